-- adagrad_update: one step of TensorFlow's Adagrad (ApplyAdagrad) of var, accum (x[1..2], also
-- y[1..2]) against grad (x[3]), no epsilon:
--   accum <- accum + grad^2;  var <- var - lr * grad / sqrt(accum)
-- lr is kwarg.lr or, without it, the scalar tensor x[4]
return function(x, y, kwarg)
  local add, cmul, cdiv, csub, sqrt = torch.add, torch.cmul, torch.cdiv, torch.csub, torch.sqrt
  local var, accum, grad, step = y[1], y[2], x[3], torch.empty_like(x[3])
  local lr = kwarg.lr or x[4]
  local scale = type(lr) == "number" and torch.mul or cmul
  return function()
    cmul(step, grad, grad)
    add(accum, accum, step)
    sqrt(step, accum)
    cdiv(step, grad, step)
    scale(step, step, lr)
    csub(var, var, step)
  end
end
