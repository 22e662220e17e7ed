-- if: y = the outputs of subgraph kwarg.then_branch when x[1] is true, else of
-- kwarg.else_branch; only that one's closures run.  x[2..]: the tensors the branches capture
-- (their inputs by position: inputs[1] is the predicate, which no branch reads).
-- kwarg.varying[j]: output j takes the branches' two shapes, y[j] a tensor of its own resized
-- to the taken branch's (TShapeAtRunTime).
return function(x, y, kwarg)
  local copy, truth, run_subgraph = torch.copy, kernels.truth, kernels.run_subgraph
  local set = {}
  for j = 1, #y do set[j] = (kwarg.varying and kwarg.varying[j]) and kernels.resize_copy or copy end
  local function run(branch)
    local inputs = branch.inputs
    for i = 2, #x do
      if inputs[i] ~= nil then copy(inputs[i], x[i]) end
    end
    run_subgraph(branch, "a tf.cond branch")
    for j = 1, #y do set[j](y[j], branch.outputs[j]) end
  end
  local taken, other = kwarg.then_branch, kwarg.else_branch
  return function()
    if truth(x[1]) then run(taken) else run(other) end
  end
end
