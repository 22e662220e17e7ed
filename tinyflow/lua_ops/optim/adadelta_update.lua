-- adadelta_update: one step of TensorFlow's Adadelta (ApplyAdadelta) of var, accum, accum_update
-- (x[1..3], also y[1..3]) against grad (x[4]):
--   accum <- rho * accum + (1 - rho) * grad^2
--   update = sqrt(accum_update + epsilon) / sqrt(accum + epsilon) * grad
--   accum_update <- rho * accum_update + (1 - rho) * update^2
--   var <- var - lr * update
-- lr is kwarg.lr or, without it, the scalar tensor x[5]
return function(x, y, kwarg)
  local add, mul, cmul, cdiv, csub, sqrt =
    torch.add, torch.mul, torch.cmul, torch.cdiv, torch.csub, torch.sqrt
  local var, accum, accum_update, grad = y[1], y[2], y[3], x[4]
  local update, square = torch.empty_like(grad), torch.empty_like(grad)
  local lr = kwarg.lr or x[5]
  local scale = type(lr) == "number" and mul or cmul
  local rho, weight, epsilon = kwarg.rho, 1 - kwarg.rho, kwarg.epsilon
  return function()
    cmul(square, grad, grad)
    mul(accum, accum, rho)
    add(accum, accum, weight, square)
    add(update, accum, epsilon)
    sqrt(update, update)
    add(square, accum_update, epsilon)
    sqrt(square, square)
    cdiv(update, square, update)
    cmul(update, update, grad)
    cmul(square, update, update)
    mul(accum_update, accum_update, rho)
    add(accum_update, accum_update, weight, square)
    scale(update, update, lr)
    csub(var, var, update)
  end
end
