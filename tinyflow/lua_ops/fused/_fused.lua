-- _fused: elementwise ops fused into one kernel (the FuseElemwise pass); the setup compiles the
-- generated code (or finds it in the cache), each step runs it into y
return function(x, y, kwarg)
  local step = kernels.fused_step(kwarg, x, y)
  return function() step() end
end
