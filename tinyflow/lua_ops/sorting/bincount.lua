-- bincount: y[1][v] = how often v occurs in x[1] (or the sum of the weights x[2] there);
-- max(x[1]) + 1 bins within kwarg.minlength and kwarg.maxlength, sized as it runs
-- (kernels.bincount, checked with kwarg.check_fits)
return function(x, y, kwarg)
  local count, out, arr, weights, fits = kernels.bincount, y[1], x[1], x[2], kwarg.check_fits
  local minlength, maxlength = kwarg.minlength, kwarg.maxlength
  return function() count(out, arr, weights, minlength, maxlength, fits) end
end
