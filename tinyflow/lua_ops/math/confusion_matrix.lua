-- confusion_matrix: y (n, n) = zeros with the weights x[3][i] added at (labels x[1][i],
-- predictions x[2][i]); ids of any dtype, checked against [0, n) as TensorFlow's asserts
return function(x, y, kwarg)
  local labels, predictions, weights, out = x[1], x[2], x[3], y[1]
  local rows, cols = kernels.ids_buffer(labels), kernels.ids_buffer(predictions)
  local confusion_matrix = kernels.confusion_matrix
  return function() confusion_matrix(out, labels, predictions, weights, rows, cols) end
end
