-- centered_rmsprop_update: one step of TensorFlow's centered RMSProp (ApplyCenteredRMSProp) of
-- var, mg, ms, mom (x[1..4], also y[1..4]) against grad (x[5]):
--   ms <- ms + (grad^2 - ms) * (1 - rho);  mg <- mg + (grad - mg) * (1 - rho)
--   mom <- momentum * mom + lr * grad / sqrt(ms - mg^2 + epsilon)
--   var <- var - mom
-- lr is kwarg.lr or, without it, the scalar tensor x[6]
return function(x, y, kwarg)
  local add, mul, cmul, cdiv, csub, sqrt =
    torch.add, torch.mul, torch.cmul, torch.cdiv, torch.csub, torch.sqrt
  local var, mg, ms, mom, grad = y[1], y[2], y[3], y[4], x[5]
  local step, lr = torch.empty_like(grad), kwarg.lr or x[6]
  local scale = type(lr) == "number" and mul or cmul
  local weight, momentum, epsilon = 1 - kwarg.rho, kwarg.momentum, kwarg.epsilon
  return function()
    cmul(step, grad, grad)
    csub(step, step, ms)
    add(ms, ms, weight, step)
    csub(step, grad, mg)
    add(mg, mg, weight, step)
    cmul(step, mg, mg)
    csub(step, ms, step)
    add(step, step, epsilon)
    sqrt(step, step)
    cdiv(step, grad, step)
    scale(step, step, lr)
    mul(mom, mom, momentum)
    add(mom, mom, step)
    csub(var, var, mom)
  end
end
