-- rmsprop_update: one step of TensorFlow's RMSProp (ApplyRMSProp) of var, ms, mom (x[1..3], also
-- y[1..3]) against grad (x[4]), epsilon inside the square root:
--   ms <- ms + (grad^2 - ms) * (1 - rho)
--   mom <- momentum * mom + lr * grad / sqrt(ms + epsilon)
--   var <- var - mom
-- lr is kwarg.lr or, without it, the scalar tensor x[5]
return function(x, y, kwarg)
  local add, mul, cmul, cdiv, csub, sqrt =
    torch.add, torch.mul, torch.cmul, torch.cdiv, torch.csub, torch.sqrt
  local var, ms, mom, grad, step = y[1], y[2], y[3], x[4], torch.empty_like(x[4])
  local lr = kwarg.lr or x[5]
  local scale = type(lr) == "number" and mul or cmul
  local weight, momentum, epsilon = 1 - kwarg.rho, kwarg.momentum, kwarg.epsilon
  return function()
    cmul(step, grad, grad)
    csub(step, step, ms)
    add(ms, ms, weight, step)
    add(step, ms, epsilon)
    sqrt(step, step)
    cdiv(step, grad, step)
    scale(step, step, lr)
    mul(mom, mom, momentum)
    add(mom, mom, step)
    csub(var, var, mom)
  end
end
