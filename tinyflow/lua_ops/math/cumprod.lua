-- cumprod: y = running products of x along kwarg.axis; kwarg.exclusive: shifted one place,
-- the first being 1; kwarg.reverse: from the end (TF 1.15's attributes; kernels.running)
return function(x, y, kwarg)
  return kernels.running(torch.cumprod, 1, x, y, kwarg)
end
