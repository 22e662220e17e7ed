-- fixed_unigram_candidate_sampler: y[1] = kwarg.num_sampled classes drawn from the node's
-- stream (kwarg.generator) by kwarg.probabilities, y[2] / y[3] the expected counts of the
-- true classes x[1] and of y[1]
return function(x, y, kwarg)
  local sample, gen, classes = kernels.candidate_sampler, kwarg.generator, x[1]
  local sampled, true_count, sampled_count = y[1], y[2], y[3]
  local range_max, unique = kwarg.range_max, kwarg.unique ~= false
  local table = kernels.class_table(kwarg.probabilities)
  return function()
    sample(sampled, true_count, sampled_count, classes, "fixed_unigram", range_max, unique, gen,
           table)
  end
end
