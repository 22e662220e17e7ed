"""tf.IndexedSlices, tf.gradients' sparse gradients and TF 1.15's sparse optimizer updates.

The numbers written below come from real TensorFlow: TF 1.15 semantics through tensorflow 2.21's
``tf.compat.v1`` with v2 behaviour disabled (RefVariables, so each optimizer's ``_apply_sparse``
runs), printed by ``tools/sparse_optimizer_golden.py`` (GOLDEN) and by the commands quoted beside
the others.
"""
import numpy as np
import pytest

import tinyflow as tf
from tinyflow.frontend.indexed_slices import IndexedSlicesValue

# the model of tools/sparse_optimizer_golden.py: ids with duplicates, row 2 never looked up,
# rows 0 and 5 at one step only
STEPS = [[1, 3, 1, 4], [0, 1, 0, 4], [3, 5, 3, 3]]
INITIAL = (np.arange(18, dtype=np.float32).reshape(6, 3) / 7.0 - 1.2).astype(np.float32)
WEIGHTS = (np.arange(12, dtype=np.float32).reshape(4, 3) / 5.0 - 0.9).astype(np.float32)

CASES = {
    "sgd": lambda lr: tf.train.GradientDescentOptimizer(lr),
    "momentum": lambda lr: tf.train.MomentumOptimizer(lr, 0.9),
    "nesterov": lambda lr: tf.train.MomentumOptimizer(lr, 0.8, use_nesterov=True),
    "momentum_tensor_lr": lambda lr: tf.train.MomentumOptimizer(tf.constant(lr), 0.9),
    "adam": lambda lr: tf.train.AdamOptimizer(lr),
    "adagrad": lambda lr: tf.train.AdagradOptimizer(lr),
    "rmsprop": lambda lr: tf.train.RMSPropOptimizer(lr, decay=0.8, momentum=0.5),
    "centered_rmsprop": lambda lr: tf.train.RMSPropOptimizer(lr, decay=0.8, momentum=0.3,
                                                             centered=True),
    "adadelta": lambda lr: tf.train.AdadeltaOptimizer(lr * 10, rho=0.9, epsilon=1e-3),
    "ftrl": lambda lr: tf.train.FtrlOptimizer(lr, l1_regularization_strength=0.05,
                                              l2_regularization_strength=0.2),
    "ftrl_shrinkage": lambda lr: tf.train.FtrlOptimizer(
        lr, learning_rate_power=-0.7, l1_regularization_strength=0.01,
        l2_shrinkage_regularization_strength=0.1),
    "proximal_adagrad": lambda lr: tf.train.ProximalAdagradOptimizer(
        lr, l1_regularization_strength=0.05, l2_regularization_strength=0.2),
    "proximal_sgd": lambda lr: tf.train.ProximalGradientDescentOptimizer(
        lr, l1_regularization_strength=0.05, l2_regularization_strength=0.2),
}

# Real TF (see the module docstring): for each case, the names of the variable, its slots (by
# slot name) and the optimizer's other variables, then their values after each step
GOLDEN = {
    'sgd': (['emb'], [
        [[-1.2, -1.0571429, -0.9142858, -0.12857142, -0.19142856, -0.25428572, -0.34285718, -0.20000005, -0.057142854, 0.14999995, 0.18999998, 0.22999993, 0.089999974, 0.12999988, 0.16999996, 0.942857, 1.0857143, 1.2285714]],
        [[-0.30000004, -0.3628571, -0.4257143, 0.0, -0.104, -0.208, -0.34285718, -0.20000005, -0.057142854, 0.14999995, 0.18999998, 0.22999993, -0.20700002, -0.23900011, -0.27100006, 0.942857, 1.0857143, 1.2285714]],
        [[-0.30000004, -0.3628571, -0.4257143, 0.0, -0.104, -0.208, -0.34285718, -0.20000005, -0.057142854, -0.07500006, -0.251, -0.42700008, -0.20700002, -0.23900011, -0.27100006, 0.7499999, 0.79, 0.8299999]],
    ]),
    'momentum': (['emb', 'emb/Momentum'], [
        [[-1.2, -1.0571429, -0.9142858, -0.12857145, -0.19142857, -0.25428575, -0.34285718, -0.20000005, -0.057142854, 0.14999995, 0.18999998, 0.22999993, 0.089999974, 0.12999988, 0.16999996, 0.942857, 1.0857143, 1.2285714],
         [0.0, 0.0, 0.0, -2.142857, -1.4571428, -0.7714286, 0.0, 0.0, 0.0, -0.21428573, 0.12857145, 0.4714285, 1.4142857, 1.7571428, 2.1, 0.0, 0.0, 0.0]],
        [[-0.3, -0.3628571, -0.4257143, 0.5785714, 0.2894286, 0.00028568506, -0.34285718, -0.20000005, -0.057142854, 0.14999995, 0.18999998, 0.22999993, -0.5888571, -0.7134287, -0.83800006, 0.942857, 1.0857143, 1.2285714],
         [-3.0, -2.3142858, -1.6285715, -2.3571427, -1.6028571, -0.8485714, 0.0, 0.0, 0.0, -0.21428573, 0.12857145, 0.4714285, 2.262857, 2.8114283, 3.36, 0.0, 0.0, 0.0]],
        [[-0.3, -0.3628571, -0.4257143, 0.5785714, 0.2894286, 0.00028568506, -0.34285718, -0.20000005, -0.057142854, -0.017142922, -0.28571433, -0.55428576, -0.5888571, -0.7134287, -0.83800006, 0.7499999, 0.79, 0.8299999],
         [-3.0, -2.3142858, -1.6285715, -2.3571427, -1.6028571, -0.8485714, 0.0, 0.0, 0.0, 0.55714285, 1.5857143, 2.6142855, 2.262857, 2.8114283, 3.36, 0.6428571, 0.9857144, 1.3285714]],
    ]),
    'nesterov': (['emb', 'emb/Momentum'], [
        [[-1.2, -1.0571429, -0.9142858, 0.3857143, 0.15828568, -0.06914288, -0.34285718, -0.20000005, -0.057142854, 0.20142853, 0.15914282, 0.11685708, -0.24942863, -0.29171443, -0.3340001, 0.942857, 1.0857143, 1.2285714],
         [0.0, 0.0, 0.0, -2.142857, -1.4571428, -0.7714286, 0.0, 0.0, 0.0, -0.21428573, 0.12857145, 0.4714285, 1.4142857, 1.7571428, 2.1, 0.0, 0.0, 0.0]],
        [[0.42000008, 0.19257152, -0.034857154, 0.7508571, 0.40658283, 0.062308565, -0.34285718, -0.20000005, -0.057142854, 0.20142853, 0.15914282, 0.11685708, -0.87228006, -1.0655601, -1.2588401, 0.942857, 1.0857143, 1.2285714],
         [-3.0, -2.3142858, -1.6285715, -1.6285714, -1.1074286, -0.5862857, 0.0, 0.0, 0.0, -0.21428573, 0.12857145, 0.4714285, 1.782, 2.2139997, 2.646, 0.0, 0.0, 0.0]],
        [[0.42000008, 0.19257152, -0.034857154, 0.7508571, 0.40658283, 0.062308565, -0.34285718, -0.20000005, -0.057142854, -0.24574289, -0.60935426, -0.97296584, -0.87228006, -1.0655601, -1.2588401, 0.5957142, 0.55342853, 0.5111428],
         [-3.0, -2.3142858, -1.6285715, -1.6285714, -1.1074286, -0.5862857, 0.0, 0.0, 0.0, 0.7328571, 1.4802856, 2.2277143, 1.782, 2.2139997, 2.646, 0.6428571, 0.9857144, 1.3285714]],
    ]),
    'momentum_tensor_lr': (['emb', 'emb/Momentum'], [
        [[-1.2, -1.0571429, -0.9142858, -0.12857145, -0.19142857, -0.25428575, -0.34285718, -0.20000005, -0.057142854, 0.14999995, 0.18999998, 0.22999993, 0.089999974, 0.12999988, 0.16999996, 0.942857, 1.0857143, 1.2285714],
         [0.0, 0.0, 0.0, -2.142857, -1.4571428, -0.7714286, 0.0, 0.0, 0.0, -0.21428573, 0.12857145, 0.4714285, 1.4142857, 1.7571428, 2.1, 0.0, 0.0, 0.0]],
        [[-0.3, -0.3628571, -0.4257143, 0.5785714, 0.2894286, 0.00028568506, -0.34285718, -0.20000005, -0.057142854, 0.14999995, 0.18999998, 0.22999993, -0.5888571, -0.7134287, -0.83800006, 0.942857, 1.0857143, 1.2285714],
         [-3.0, -2.3142858, -1.6285715, -2.3571427, -1.6028571, -0.8485714, 0.0, 0.0, 0.0, -0.21428573, 0.12857145, 0.4714285, 2.262857, 2.8114283, 3.36, 0.0, 0.0, 0.0]],
        [[-0.3, -0.3628571, -0.4257143, 0.5785714, 0.2894286, 0.00028568506, -0.34285718, -0.20000005, -0.057142854, -0.017142922, -0.28571433, -0.55428576, -0.5888571, -0.7134287, -0.83800006, 0.7499999, 0.79, 0.8299999],
         [-3.0, -2.3142858, -1.6285715, -2.3571427, -1.6028571, -0.8485714, 0.0, 0.0, 0.0, 0.55714285, 1.5857143, 2.6142855, 2.262857, 2.8114283, 3.36, 0.6428571, 0.9857144, 1.3285714]],
    ]),
    'adam': (['emb', 'emb/Adam', 'emb/Adam_1', 'beta1_power', 'beta2_power'], [
        [[-1.2, -1.0571429, -0.9142858, -0.47142863, -0.3285715, -0.18571442, -0.34285718, -0.20000005, -0.057142854, 0.38571376, -0.07142788, 0.07142869, 0.21428573, 0.35714284, 0.49999997, 0.942857, 1.0857143, 1.2285714],
         [0.0, 0.0, 0.0, -0.21428576, -0.14571431, -0.07714288, 0.0, 0.0, 0.0, -0.021428578, 0.012857148, 0.047142863, 0.1414286, 0.17571431, 0.21000004, 0.0, 0.0, 0.0],
         [0.0, 0.0, 0.0, 0.0045917775, 0.0021232378, 0.0005950944, 0.0, 0.0, 0.0, 4.5917783e-05, 1.6530405e-05, 0.00022224199, 0.0020001782, 0.003087511, 0.004409943, 0.0, 0.0, 0.0],
         [0.80999994],
         [0.99800104]],
        [[-0.9767598, -0.8339026, -0.6910455, -0.20665604, -0.07271075, 0.03873661, -0.34285718, -0.20000005, -0.057142854, 0.58673024, -0.27244422, -0.12958798, -0.08178085, 0.059895575, 0.20208424, 0.942857, 1.0857143, 1.2285714],
         [-0.30000007, -0.23142864, -0.16285719, -0.27000004, -0.17400004, -0.07800004, 0.0, 0.0, 0.0, -0.01928572, 0.011571433, 0.042428575, 0.23871434, 0.3038572, 0.36900008, 0.0, 0.0, 0.0],
         [0.008999884, 0.00535585, 0.002652211, 0.00518228, 0.002304786, 0.00060184614, 0.0, 0.0, 0.0, 4.5871864e-05, 1.6513874e-05, 0.00022201975, 0.0032397946, 0.0052076615, 0.0076454915, 0.0, 0.0, 0.0],
         [0.7289999],
         [0.9970031]],
        [[-0.80419505, -0.66133785, -0.5184808, -0.0019867867, 0.12506963, 0.2122373, -0.34285718, -0.20000005, -0.057142854, 0.41217327, -0.50682455, -0.36667192, -0.31064034, -0.16987656, -0.028204635, 0.7512144, 0.89407164, 1.0369287],
         [-0.27000007, -0.20828576, -0.14657147, -0.24300003, -0.15660003, -0.07020003, 0.0, 0.0, 0.0, 0.18866196, 0.018681027, 0.14930935, 0.2148429, 0.27347147, 0.33210006, 0.064285725, 0.098571464, 0.13285717],
         [0.008990885, 0.0053504943, 0.002649559, 0.005177098, 0.002302481, 0.0006012443, 0.0, 0.0, 0.0, 0.0042901575, 2.3331164e-05, 0.0014566274, 0.0032365548, 0.005202454, 0.0076378463, 0.0004132599, 0.0009716203, 0.0017650793],
         [0.6560999],
         [0.9960061]],
    ]),
    'adagrad': (['emb', 'emb/Adagrad'], [
        [[-1.2, -1.0571429, -0.9142858, -0.47464284, -0.3353959, -0.20813143, -0.34285718, -0.20000005, -0.057142854, 0.25400472, 0.11557991, 0.12228812, 0.22151494, 0.36188602, 0.50334454, 0.942857, 1.0857143, 1.2285714],
         [0.1, 0.1, 0.1, 4.6918364, 2.2232652, 0.6951021, 0.1, 0.1, 0.1, 0.14591837, 0.11653062, 0.32224485, 2.1002038, 3.1875505, 4.5099993, 0.1, 0.1, 0.1]],
        [[-0.90165293, -0.75990486, -0.61978626, -0.3736207, -0.25130638, -0.16954571, -0.34285718, -0.20000005, -0.057142854, 0.25400472, 0.11557991, 0.12228812, 0.0379093, 0.17182687, 0.3091613, 0.942857, 1.0857143, 1.2285714],
         [9.1, 5.4559183, 2.7522452, 5.291908, 2.4128346, 0.7067945, 0.1, 0.1, 0.1, 0.14591837, 0.11653062, 0.32224485, 3.3579993, 5.3246613, 7.762051, 0.1, 0.1, 0.1]],
        [[-0.90165293, -0.75990486, -0.61978626, -0.3736207, -0.25130638, -0.16954571, -0.34285718, -0.20000005, -0.057142854, -0.028289676, -0.17376983, -0.1647359, 0.0379093, 0.17182687, 0.3091613, 0.6736634, 0.80005443, 0.93672466],
         [9.1, 5.4559183, 2.7522452, 5.291908, 2.4128346, 0.7067945, 0.1, 0.1, 0.1, 1.2737926, 1.6708909, 3.8074276, 3.3579993, 5.3246613, 7.762051, 0.51326525, 1.0716329, 1.865102]],
    ]),
    'rmsprop': (['emb', 'emb/RMSProp_1', 'emb/RMSProp'], [
        [[-1.2, -1.0571429, -0.9142858, -0.28102177, -0.23355347, -0.24430479, -0.34285718, -0.20000005, -0.057142854, 0.15717882, 0.18553607, 0.21752432, 0.12697417, 0.21438593, 0.31423342, 0.942857, 1.0857143, 1.2285714],
         [0.0, 0.0, 0.0, -0.4904068, -0.39501798, -0.24140953, 0.0, 0.0, 0.0, -0.071464606, 0.043035343, 0.15390417, 0.38731152, 0.44275683, 0.48576653, 0.0, 0.0, 0.0],
         [1.0, 1.0, 1.0, 1.7183672, 1.224653, 0.9190204, 1.0, 1.0, 1.0, 0.80918366, 0.80330616, 0.844449, 1.2000408, 1.41751, 1.6819999, 1.0, 1.0, 1.0]],
        [[-0.6418437, -0.5495915, -0.49071208, 0.10932568, 0.06392294, -0.073253706, -0.34285718, -0.20000005, -0.057142854, 0.15717882, 0.18553607, 0.21752432, -0.35139525, -0.33116955, -0.2830913, 0.942857, 1.0857143, 1.2285714],
         [-0.5581564, -0.5075514, -0.4235737, -0.39034745, -0.2974764, -0.17105108, 0.0, 0.0, 0.0, -0.071464606, 0.043035343, 0.15390417, 0.4783694, 0.5455555, 0.5973247, 0.0, 0.0, 0.0],
         [2.6, 1.8711836, 1.3304491, 1.442211, 1.001974, 0.7393811, 1.0, 1.0, 1.0, 0.80918366, 0.80330616, 0.844449, 1.1709678, 1.4795301, 1.86675, 1.0, 1.0, 1.0]],
        [[-0.6418437, -0.5495915, -0.49071208, 0.10932568, 0.06392294, -0.073253706, -0.34285718, -0.20000005, -0.057142854, -0.071481794, -0.25902468, -0.36959305, -0.35139525, -0.33116955, -0.2830913, 0.7375798, 0.7891575, 0.85738873],
         [-0.5581564, -0.5075514, -0.4235737, -0.39034745, -0.2974764, -0.17105108, 0.0, 0.0, 0.0, 0.22866061, 0.44456074, 0.5871174, 0.4783694, 0.5455555, 0.5973247, 0.20527719, 0.2965568, 0.37118268],
         [2.6, 1.8711836, 1.3304491, 1.442211, 1.001974, 0.7393811, 1.0, 1.0, 1.0, 0.76640064, 1.0669864, 1.6022735, 1.1709678, 1.4795301, 1.86675, 0.88265306, 0.9943266, 1.1530204]],
    ]),
    'centered_rmsprop': (['emb', 'emb/RMSProp_1', 'emb/RMSProp_2', 'emb/RMSProp'], [
        [[-1.2, -1.0571429, -0.9142858, -0.25250477, -0.21909979, -0.24111626, -0.34285718, -0.20000005, -0.057142854, 0.15726006, 0.18551835, 0.21670775, 0.11337921, 0.1937387, 0.28656465, 0.942857, 1.0857143, 1.2285714],
         [0.0, 0.0, 0.0, -0.4285714, -0.29142854, -0.15428571, 0.0, 0.0, 0.0, -0.042857144, 0.02571429, 0.0942857, 0.28285712, 0.35142854, 0.41999996, 0.0, 0.0, 0.0],
         [0.0, 0.0, 0.0, -0.5189238, -0.40947166, -0.24459806, 0.0, 0.0, 0.0, -0.07154584, 0.043053064, 0.15472074, 0.40090647, 0.46340406, 0.5134353, 0.0, 0.0, 0.0],
         [1.0, 1.0, 1.0, 1.7183672, 1.224653, 0.9190204, 1.0, 1.0, 1.0, 0.80918366, 0.80330616, 0.844449, 1.2000408, 1.41751, 1.6819999, 1.0, 1.0, 1.0]],
        [[-0.59866226, -0.51777637, -0.4727421, 0.052612484, 0.003989324, -0.11771256, -0.34285718, -0.20000005, -0.057142854, 0.15726006, 0.18551835, 0.21670775, -0.313772, -0.3029902, -0.26657885, 0.942857, 1.0857143, 1.2285714],
         [-0.59999996, -0.46285713, -0.3257143, -0.45335805, -0.2969628, -0.15165181, 0.0, 0.0, 0.0, -0.042857144, 0.02571429, 0.0942857, 0.42896152, 0.5398905, 0.6533129, 0.0, 0.0, 0.0],
         [-0.6013378, -0.5393665, -0.44154367, -0.30511725, -0.22308911, -0.1234037, 0.0, 0.0, 0.0, -0.07154584, 0.043053064, 0.15472074, 0.4271512, 0.4967289, 0.5531435, 0.0, 0.0, 0.0],
         [2.6, 1.8711836, 1.3304491, 1.4357461, 1.0000874, 0.7391991, 1.0, 1.0, 1.0, 0.80918366, 0.80330616, 0.844449, 1.1654202, 1.46876, 1.8490375, 1.0, 1.0, 1.0]],
        [[-0.59866226, -0.51777637, -0.4727421, 0.052612484, 0.003989324, -0.11771256, -0.34285718, -0.20000005, -0.057142854, -0.0882625, -0.27114195, -0.38596457, -0.313772, -0.3029902, -0.26657885, 0.73563015, 0.7831862, 0.8454742],
         [-0.59999996, -0.46285713, -0.3257143, -0.45335805, -0.2969628, -0.15165181, 0.0, 0.0, 0.0, 0.12007033, 0.31188244, 0.5054532, 0.42896152, 0.5398905, 0.6533129, 0.1285714, 0.19714287, 0.26571426],
         [-0.6013378, -0.5393665, -0.44154367, -0.30511725, -0.22308911, -0.1234037, 0.0, 0.0, 0.0, 0.24552256, 0.4566603, 0.60267234, 0.4271512, 0.4967289, 0.5531435, 0.20722687, 0.30252817, 0.38309723],
         [2.6, 1.8711836, 1.3304491, 1.4357461, 1.0000874, 0.7391991, 1.0, 1.0, 1.0, 0.76647586, 1.0669556, 1.6001654, 1.1654202, 1.46876, 1.8490375, 0.88265306, 0.9943266, 1.1530204]],
    ]),
    'adadelta': (['emb', 'emb/Adadelta', 'emb/Adadelta_1'], [
        [[-1.2, -1.0571429, -0.9142858, -0.47175473, -0.32927546, -0.18820357, -0.34285718, -0.20000005, -0.057142854, 0.3575692, -0.0082342625, 0.077958286, 0.21503282, 0.3576274, 0.5003395, 0.942857, 1.0857143, 1.2285714],
         [0.0, 0.0, 0.0, 0.45918375, 0.21232657, 0.05951022, 0.0, 0.0, 0.0, 0.0045918385, 0.0016530622, 0.02222449, 0.20002043, 0.30875513, 0.44100004, 0.0, 0.0, 0.0],
         [0.0, 0.0, 0.0, 0.000997827, 0.0009953124, 0.000983474, 0.0, 0.0, 0.0, 0.0008211682, 0.00062307715, 0.0009569421, 0.0009950256, 0.000996772, 0.0009977377, 0.0, 0.0, 0.0]],
        [[-0.9001666, -0.75742257, -0.6148498, -0.3214163, -0.20389947, -0.13810652, -0.34285718, -0.20000005, -0.057142854, 0.3575692, -0.0082342625, 0.077958286, -0.05535394, 0.07886279, 0.21624058, 0.942857, 1.0857143, 1.2285714],
         [0.9000002, 0.53559196, 0.2652246, 0.4728259, 0.20952165, 0.05433718, 0.0, 0.0, 0.0, 0.0045918385, 0.0016530622, 0.02222449, 0.30434823, 0.49034742, 0.72102237, 0.0, 0.0, 0.0],
         [0.0009988903, 0.0009981366, 0.0009962438, 0.0011491738, 0.0010704382, 0.00091301225, 0.0, 0.0, 0.0, 0.0008211682, 0.00062307715, 0.0009569421, 0.0017078456, 0.0017605362, 0.0017947662, 0.0, 0.0, 0.0]],
        [[-0.9001666, -0.75742257, -0.6148498, -0.3214163, -0.20389947, -0.13810652, -0.34285718, -0.20000005, -0.057142854, -0.041879088, -0.3843763, -0.32778078, -0.05535394, 0.07886279, 0.21624058, 0.64642215, 0.78724635, 0.92941767],
         [0.9000002, 0.53559196, 0.2652246, 0.4728259, 0.20952165, 0.05433718, 0.0, 0.0, 0.0, 0.19256535, 0.0781023, 0.32063434, 0.30434823, 0.49034742, 0.72102237, 0.041326534, 0.097163305, 0.17651024],
         [0.0009988903, 0.0009981366, 0.0009962438, 0.0011491738, 0.0010704382, 0.00091301225, 0.0, 0.0, 0.0, 0.0025119288, 0.0021328013, 0.002690406, 0.0017078456, 0.0017605362, 0.0017947662, 0.00097637414, 0.0009898129, 0.0009943665]],
    ]),
    'ftrl': (['emb', 'emb/Ftrl', 'emb/Ftrl_1'], [
        [[-1.2, -1.0571429, -0.9142858, -0.33645588, -0.17772393, -0.005167701, -0.34285718, -0.20000005, -0.057142854, 0.109409384, -0.038636576, -0.04804246, 0.09137716, 0.22215834, 0.35698488, 0.942857, 1.0857143, 1.2285714],
         [0.1, 0.1, 0.1, 4.6918364, 2.2232652, 0.6951021, 0.1, 0.1, 0.1, 0.14591837, 0.11653062, 0.32224485, 2.1002038, 3.1875505, 4.5099993, 0.1, 0.1, 0.1],
         [0.0, 0.0, 0.0, 2.6138663, 1.0044141, 0.0664286, 0.0, 0.0, 0.0, -0.23307568, 0.10941865, 0.16012391, -0.5279659, -1.4609804, -2.719861, 0.0, 0.0, 0.0]],
        [[-0.741394, -0.58053845, -0.40702668, -0.25615054, -0.12681851, -0.034830496, -0.34285718, -0.20000005, -0.057142854, 0.109409384, -0.038636576, -0.04804246, -0.05117805, 0.052769065, 0.18031028, 0.942857, 1.0857143, 1.2285714],
         [9.1, 5.4559183, 2.7522452, 5.0969124, 2.3003957, 0.70409524, 0.1, 0.1, 0.1, 0.14591837, 0.11653062, 0.32224485, 3.0830324, 4.935653, 7.255598, 0.1, 0.1, 0.1],
         [7.801572, 4.8022695, 2.4636536, 2.0801075, 0.74188185, 0.16135353, 0.0, 0.0, 0.0, -0.23307568, 0.10941865, 0.16012391, 0.37000895, -0.46188593, -1.7410829, 0.0, 0.0, 0.0]],
        [[-0.741394, -0.58053845, -0.40702668, -0.25615054, -0.12681851, -0.034830496, -0.34285718, -0.20000005, -0.057142854, -0.075880185, -0.27985126, -0.303882, -0.05117805, 0.052769065, 0.18031028, 0.20261455, 0.4067539, 0.58946764],
         [9.1, 5.4559183, 2.7522452, 5.0969124, 2.3003957, 0.70409524, 0.1, 0.1, 0.1, 0.54058903, 0.73132825, 2.160636, 3.0830324, 4.935653, 7.255598, 0.51326525, 1.0716329, 1.865102],
         [7.801572, 4.8022695, 2.4636536, 2.0801075, 0.74188185, 0.16135353, 0.0, 0.0, 0.0, 0.26632115, 0.95968205, 1.6604835, 0.37000895, -0.46188593, -1.7410829, -0.61490643, -1.6162696, -2.9692154]],
    ]),
    'ftrl_shrinkage': (['emb', 'emb/Ftrl', 'emb/Ftrl_1'], [
        [[-1.2, -1.0571429, -0.9142858, -0.48470533, -0.2837292, -0.020715084, -0.34285718, -0.20000005, -0.057142854, 0.23590381, -0.19871613, -0.1473862, 0.18071243, 0.3458958, 0.50712866, 0.942857, 1.0857143, 1.2285714],
         [0.1, 0.1, 0.1, 4.6918364, 2.2232652, 0.6951021, 0.1, 0.1, 0.1, 0.14591837, 0.11653062, 0.32224485, 2.1002038, 3.1875505, 4.5099993, 0.1, 0.1, 0.1],
         [0.0, 0.0, 0.0, 4.777564, 1.6645377, 0.06353027, 0.0, 0.0, 0.0, -0.21440461, 0.15710247, 0.23236465, -1.0226276, -2.605637, -4.8619957, 0.0, 0.0, 0.0]],
        [[-0.94115245, -0.7608652, -0.5554806, -0.40248352, -0.21150999, -0.04961075, -0.34285718, -0.20000005, -0.057142854, 0.23590381, -0.19871613, -0.1473862, 0.034458593, 0.20404972, 0.3708877, 0.942857, 1.0857143, 1.2285714],
         [9.1, 5.4559183, 2.7522452, 5.3075986, 2.3705132, 0.7013882, 0.1, 0.1, 0.1, 0.14591837, 0.11653062, 0.32224485, 3.2681432, 5.278165, 7.775713, 0.1, 0.1, 0.1],
         [14.7286415, 8.327522, 3.7712188, 4.3257422, 1.3000283, 0.13901061, 0.0, 0.0, 0.0, -0.21440461, 0.15710247, 0.23236465, -0.27314007, -2.1894796, -5.205643, 0.0, 0.0, 0.0]],
        [[-0.94115245, -0.7608652, -0.5554806, -0.40248352, -0.21150999, -0.04961075, -0.34285718, -0.20000005, -0.057142854, -0.04369086, -0.43585896, -0.38624746, 0.034458593, 0.20404972, 0.3708877, 0.24017458, 0.5326708, 0.76288587],
         [9.1, 5.4559183, 2.7522452, 5.3075986, 2.3705132, 0.7013882, 0.1, 0.1, 0.1, 1.1614009, 0.20885642, 1.4412736, 3.2681432, 5.278165, 7.775713, 0.51326525, 1.0716329, 1.865102],
         [14.7286415, 8.327522, 3.7712188, 4.3257422, 1.3000283, 0.13901061, 0.0, 0.0, 0.0, 0.17171744, 0.4954206, 1.6729028, -0.27314007, -2.1894796, -5.205643, -0.5119322, -1.8736734, -3.9439614]],
    ]),
    'proximal_adagrad': (['emb', 'emb/ProximalAdagrad'], [
        [[-1.2, -1.0571429, -0.9142858, -0.4551113, -0.3127509, -0.17737499, -0.34285718, -0.20000005, -0.057142854, 0.18558663, 0.060929526, 0.08670027, 0.2027694, 0.34199134, 0.4826451, 0.942857, 1.0857143, 1.2285714],
         [0.1, 0.1, 0.1, 4.6918364, 2.2232652, 0.6951021, 0.1, 0.1, 0.1, 0.14591837, 0.11653062, 0.32224485, 2.1002038, 3.1875505, 4.5099993, 0.1, 0.1, 0.1]],
        [[-0.8791935, -0.7346129, -0.58942705, -0.34090137, -0.21469425, -0.12292897, -0.34285718, -0.20000005, -0.057142854, 0.18558663, 0.060929526, 0.08670027, 0.012454014, 0.1432131, 0.2783334, 0.942857, 1.0857143, 1.2285714],
         [9.1, 5.4559183, 2.7522452, 5.262029, 2.3936284, 0.70108896, 0.1, 0.1, 0.1, 0.14591837, 0.11653062, 0.32224485, 3.3163042, 5.2668896, 7.6878233, 0.1, 0.1, 0.1]],
        [[-0.8791935, -0.7346129, -0.58942705, -0.34090137, -0.21469425, -0.12292897, -0.34285718, -0.20000005, -0.057142854, -0.06806872, -0.20133597, -0.1847139, 0.012454014, 0.1432131, 0.2783334, 0.6022852, 0.7425275, 0.88678145],
         [9.1, 5.4559183, 2.7522452, 5.262029, 2.3936284, 0.70108896, 0.1, 0.1, 0.1, 0.8799559, 1.288962, 3.4202003, 3.3163042, 5.2668896, 7.6878233, 0.51326525, 1.0716329, 1.865102]],
    ]),
    'proximal_sgd': (['emb'], [
        [[-1.2, -1.0571429, -0.9142858, -0.10714288, -0.16644205, -0.22574128, -0.34285718, -0.20000005, -0.057142854, 0.12735845, 0.16509433, 0.20283014, 0.07075469, 0.10849045, 0.14622638, 0.942857, 1.0857143, 1.2285714]],
        [[-0.26886797, -0.3281671, -0.38746637, 0.0, -0.06746175, -0.16322538, -0.34285718, -0.20000005, -0.057142854, 0.12735845, 0.16509433, 0.20283014, -0.19384126, -0.22552519, -0.25720906, 0.942857, 1.0857143, 1.2285714]],
        [[-0.26886797, -0.3281671, -0.38746637, 0.0, -0.06746175, -0.16322538, -0.34285718, -0.20000005, -0.057142854, -0.05873979, -0.22499111, -0.3912425, -0.19384126, -0.22552519, -0.25720906, 0.69339615, 0.73113215, 0.7688679]],
    ]),
}


def _embedding_model():
    emb = tf.Variable(INITIAL, name="emb")
    ids = tf.placeholder(tf.int32, [4], name="ids")
    looked = tf.nn.embedding_lookup(emb, ids)
    return emb, ids, tf.reduce_sum(WEIGHTS * looked + 0.5 * looked * looked)


@pytest.mark.parametrize("case", sorted(CASES))
def test_sparse_updates_as_tensorflows(case, config, plan_memory):
    tf.reset_default_graph()
    emb, ids, loss = _embedding_model()
    opt = CASES[case](0.3)
    (grad, var), = opt.compute_gradients(loss, [emb])
    assert isinstance(grad, tf.IndexedSlices) and var is emb
    step = opt.apply_gradients([(grad, emb)])
    slots = [opt.get_slot(emb, name) for name in opt.get_slot_names()]
    others = sorted((v for v in opt.variables() if all(v is not s for s in slots)),
                    key=lambda v: v.op.name)
    watched = [emb] + slots + others
    names, expected = GOLDEN[case]
    assert [v.op.name for v in watched] == names
    with tf.Session(config, plan_memory=plan_memory) as sess:
        sess.run(tf.global_variables_initializer())
        for batch, values in zip(STEPS, expected):
            sess.run(step, {ids: batch})
            for variable, want in zip(watched, values):
                np.testing.assert_allclose(sess.run(variable).ravel(), want, rtol=2e-5,
                                           atol=2e-6, err_msg=f"{case}: {variable.op.name}")


def test_dense_updates_differ_from_tensorflows():
    """The bug the sparse updates fix: the dense gradient moves rows not looked up."""
    tf.reset_default_graph()
    emb, ids, loss = _embedding_model()
    opt = CASES["momentum"](0.3)
    (grad, _), = opt.compute_gradients(loss, [emb])
    step = opt.apply_gradients([(tf.convert_to_tensor(grad), emb)])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for batch in STEPS:
            sess.run(step, {ids: batch})
        assert np.abs(sess.run(emb).ravel() - GOLDEN["momentum"][1][2][0]).max() > 0.5


def test_a_sparse_step_runs_no_dense_gradient():
    tf.reset_default_graph()
    _, ids, loss = _embedding_model()
    sparse_step = tf.train.RMSPropOptimizer(0.1).minimize(loss)
    (grad, _), = tf.train.RMSPropOptimizer(0.1).compute_gradients(loss)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        ops = [row[1] for row in sess.closures(sparse_step, {ids: STEPS[0]}).rows]
        assert "sparse_rmsprop_update" in ops and "_embedding_lookup_backward" not in ops
        dense = [row[1] for row in sess.closures(tf.convert_to_tensor(grad),
                                                 {ids: STEPS[0]}).rows]
        assert "_embedding_lookup_backward" in dense


def test_indices_out_of_range_fail_the_step_and_change_nothing(config):
    tf.reset_default_graph()
    emb = tf.Variable(np.ones((4, 2), np.float32))
    rows = tf.placeholder(tf.int32, [2])
    slices = tf.IndexedSlices(tf.constant([[1.0, 2.0], [3.0, 4.0]]), rows, tf.shape(emb))
    opt = tf.train.MomentumOptimizer(0.1, 0.9)
    step = opt.apply_gradients([(slices, emb)])
    with tf.Session(config) as sess:
        sess.run(tf.global_variables_initializer())
        with pytest.raises(tf.TinyflowError, match=r"indices\[1\] = 7 is not in \[0, 4\)"):
            sess.run(step, {rows: [1, 7]})
        np.testing.assert_array_equal(sess.run(emb), np.ones((4, 2)))
        np.testing.assert_array_equal(sess.run(opt.get_slot(emb, "momentum")), np.zeros((4, 2)))
        sess.run(step, {rows: [1, 1]})  # duplicates summed: accum 4, 6
        np.testing.assert_allclose(sess.run(emb)[1], [0.6, 0.4], rtol=1e-6)


def test_sparse_update_shapes_are_checked():
    tf.reset_default_graph()
    emb = tf.Variable(np.ones((4, 2), np.float32))
    with pytest.raises(tf.ShapeError, match="values have shape"):
        tf.train.AdagradOptimizer(0.1).apply_gradients(
            [(tf.IndexedSlices(tf.ones([2, 3]), tf.constant([0, 1]), [4, 2]), emb)])
    with pytest.raises(TypeError, match="int32 or int64"):
        tf.train.AdagradOptimizer(0.1).apply_gradients(
            [(tf.IndexedSlices(tf.ones([2, 2]), tf.constant([0.0, 1.0]), [4, 2]), emb)])


# -- IndexedSlices and tf.gradients against real TF (tf.compat.v1, v2 behaviour disabled):
# emb = Variable(ones((5, 3))), ids = [0, 2, 2], g = tf.gradients(reduce_sum(gather(emb, ids)),
# emb)[0] is an IndexedSlices named as its values, int32 indices and dense_shape; its run:
# IndexedSlicesValue(values=ones((3, 3)), indices=[0, 2, 2], dense_shape=[5, 3])
def _gathered():
    tf.reset_default_graph()
    emb = tf.Variable(np.ones((5, 3), np.float32), name="emb")
    ids = tf.constant([0, 2, 2])
    return emb, ids, tf.gradients(tf.reduce_sum(tf.gather(emb, ids)), emb)[0]


def test_indexed_slices_surface_as_tensorflows():
    emb, _, grad = _gathered()
    assert isinstance(grad, tf.IndexedSlices)
    assert grad.name == grad.values.name and grad.op is grad.values.op
    assert grad.dtype == tf.float32 and grad.indices.dtype == tf.int32
    assert grad.dense_shape.dtype == tf.int32 and grad.graph is emb.graph and grad.device == ""
    assert grad.values.shape.as_list() == [3, 3] and grad.indices.shape.as_list() == [3]
    assert grad.dense_shape.shape.as_list() == [2] and grad.shape.as_list() == [5, 3]
    assert str(grad).startswith("IndexedSlices(indices=") and "dense_shape=" in str(grad)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        value = sess.run(grad)
        assert isinstance(value, IndexedSlicesValue)
        np.testing.assert_array_equal(value.values, np.ones((3, 3)))
        assert value.indices.tolist() == [0, 2, 2] and value.indices.dtype == np.int32
        assert value.dense_shape.tolist() == [5, 3]
        # TF: convert_to_tensor sums the duplicates (UnsortedSegmentSum); -g negates values
        np.testing.assert_array_equal(sess.run(tf.convert_to_tensor(grad)),
                                      [[1] * 3, [0] * 3, [2] * 3, [0] * 3, [0] * 3])
        np.testing.assert_array_equal(sess.run(-grad).values, -np.ones((3, 3)))
        np.testing.assert_array_equal(sess.run(tf.multiply(grad, 2.0))[2], [4.0] * 3)
    with pytest.raises(TypeError):
        grad * 2  # TF's IndexedSlices has no arithmetic either


def test_gradients_sparse_where_tensorflows_are():
    emb, ids, _ = _gathered()
    looked = tf.reduce_sum(tf.gather(emb, ids))
    grads = {
        # TF: IndexedSlices, the slices concatenated, int64 indices when one is
        "two": looked + tf.reduce_sum(tf.nn.embedding_lookup(emb, tf.constant([[1, 1]],
                                                                               tf.int64))),
        # TF 1.x: IndexedSlices, the dense term over all rows (tensorflow/tensorflow#21243;
        # TF 2 sums to a dense tensor instead); densified [[3], [2], [4], [2], [2]]
        "mix": looked + tf.reduce_sum(emb * 2.0),
        "identity": tf.reduce_sum(tf.gather(tf.identity(emb), ids)),  # TF: IndexedSlices
        "axis1": tf.reduce_sum(tf.gather(emb, ids, axis=1)),  # TF: a tensor
        "mul": tf.reduce_sum(tf.gather(emb * 1.0, ids)),  # TF: a tensor
    }
    grads = {key: tf.gradients(loss, emb)[0] for key, loss in grads.items()}
    assert {k for k, g in grads.items() if isinstance(g, tf.IndexedSlices)} == {
        "two", "mix", "identity"}
    assert grads["two"].indices.dtype == tf.int64
    assert grads["two"].values.shape.as_list() == [5, 3]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        two = sess.run(grads["two"])
        assert sorted(two.indices.tolist()) == [0, 1, 1, 2, 2]
        mix = sess.run(grads["mix"])
        assert sorted(mix.indices.tolist()) == [0, 0, 1, 2, 2, 2, 3, 4]
        np.testing.assert_array_equal(sess.run(tf.convert_to_tensor(grads["mix"]))[:, 0],
                                      [3, 2, 4, 2, 2])
        np.testing.assert_array_equal(sess.run(grads["axis1"]), np.ones((5, 3)) * [1, 0, 2])


def test_clipping_indexed_slices_as_tensorflows():
    _, _, grad = _gathered()
    by_norm = tf.clip_by_norm(grad, 1.0)
    clipped, norm = tf.clip_by_global_norm([grad, tf.constant([3.0, 4.0])], 1.0)
    assert isinstance(by_norm, tf.IndexedSlices) and isinstance(clipped[0], tf.IndexedSlices)
    assert isinstance(tf.clip_by_value(grad, -0.5, 0.5), tf.IndexedSlices)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        # TF: norms of the values, the duplicate rows not summed: 0.33333334, 3.0, 0.5;
        # the global clip 0.1714986 and [0.5144958, 0.6859944]
        np.testing.assert_allclose(sess.run(by_norm).values, np.full((3, 3), 0.33333334))
        assert sess.run(tf.global_norm([grad])) == pytest.approx(3.0)
        np.testing.assert_allclose(sess.run(tf.clip_by_value(grad, -0.5, 0.5)).values, 0.5)
        first, second = sess.run(clipped)
        np.testing.assert_allclose(first.values, np.full((3, 3), 0.1714986), rtol=1e-6)
        assert first.indices.tolist() == [0, 2, 2]
        np.testing.assert_allclose(second, [0.5144958, 0.6859944], rtol=1e-6)
        assert sess.run(norm) == pytest.approx(np.sqrt(34.0))  # the values' 9 and 25


def test_indexed_slices_a_program_makes():
    tf.reset_default_graph()
    made = tf.IndexedSlices(tf.constant([[1.0, 2.0], [3.0, 4.0]]), tf.constant([1, 1]),
                            tf.constant([3, 2]))
    with tf.Session() as sess:
        value = sess.run(made)
        assert value.indices.tolist() == [1, 1] and value.dense_shape.tolist() == [3, 2]
        # TF: [[0, 0], [4, 6], [0, 0]]
        assert sess.run(tf.convert_to_tensor(made)).tolist() == [[0, 0], [4, 6], [0, 0]]
    shapeless = tf.IndexedSlices(tf.constant([[1.0, 2.0]]), tf.constant([1]))
    assert shapeless.dense_shape is None and shapeless.shape.ndims is None
    with pytest.raises(ValueError, match="without dense_shape"):
        tf.convert_to_tensor(shapeless)


def test_optimize_loss_scales_and_summarises_indexed_slices():
    """TF 1.15's optimize_loss: a multiplier scales an IndexedSlices' values, the summaries
    take its values; SGD then subtracts at the rows looked up (numpy's arithmetic below)."""
    tf.reset_default_graph()
    emb = tf.Variable(np.ones((5, 3), np.float32))
    loss = tf.reduce_sum(tf.nn.embedding_lookup(emb, tf.constant([0, 2, 2])) * 2.0)
    step = tf.contrib.layers.optimize_loss(
        loss, tf.train.get_or_create_global_step(), 0.1, "SGD", gradient_multipliers={emb: 0.5},
        clip_gradients=10.0, summaries=["gradients", "gradient_norm", "global_gradient_norm"])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(step)
        sess.run(tf.summary.merge_all())
        np.testing.assert_allclose(sess.run(emb)[:, 0], [1 - 0.1, 1, 1 - 0.2, 1, 1], rtol=1e-6)


# Real TF (tools/sparse_optimizer_golden.py): Momentum on the embedding split in two shards
# of 3 rows, each shard's gradient its own IndexedSlices; the shards after each step
SHARDED_MOD = [
    [[-1.2, -1.0571429, -0.9142858, -0.7714286, -0.62857145, -0.48571432, -0.51, -0.47000006, -0.43000004],
     [0.21428567, 0.15142855, 0.08857137, 0.44999996, 0.48999992, 0.53, 0.942857, 1.0857143, 1.2285714]],
    [[-0.3, -0.3628571, -0.4257143, -0.7714286, -0.62857145, -0.48571432, -0.7774285, -0.90200007, -1.0265715],
     [0.35571426, 0.066571414, -0.22257146, 0.44999996, 0.48999992, 0.53, 0.942857, 1.0857143, 1.2285714]],
    [[-0.3, -0.3628571, -0.4257143, -0.7714286, -0.62857145, -0.48571432, -0.7774285, -0.90200007, -1.0265715],
     [0.35571426, 0.066571414, -0.22257146, -0.10285714, -0.37142864, -0.6400001, 0.7499999, 0.79, 0.8299999]],
]
SHARDED_DIV = [
    [[-1.2, -1.0571429, -0.9142858, -0.12857145, -0.19142857, -0.25428575, -0.34285718, -0.20000005, -0.057142854],
     [0.14999995, 0.18999998, 0.22999993, 0.089999974, 0.12999988, 0.16999996, 0.942857, 1.0857143, 1.2285714]],
    [[-0.3, -0.3628571, -0.4257143, 0.5785714, 0.2894286, 0.00028568506, -0.34285718, -0.20000005, -0.057142854],
     [0.14999995, 0.18999998, 0.22999993, -0.5888571, -0.7134287, -0.83800006, 0.942857, 1.0857143, 1.2285714]],
    [[-0.3, -0.3628571, -0.4257143, 0.5785714, 0.2894286, 0.00028568506, -0.34285718, -0.20000005, -0.057142854],
     [-0.017142922, -0.28571433, -0.55428576, -0.5888571, -0.7134287, -0.83800006, 0.7499999, 0.79, 0.8299999]],
]


@pytest.mark.parametrize("strategy", ["mod", "div"])
def test_sharded_lookups_update_each_shard_sparsely(strategy, plan_memory):
    tf.reset_default_graph()
    shards = [tf.Variable(INITIAL[:3], name="shard0"), tf.Variable(INITIAL[3:], name="shard1")]
    ids = tf.placeholder(tf.int32, [4], name="ids")
    looked = tf.nn.embedding_lookup(shards, ids, partition_strategy=strategy)
    loss = tf.reduce_sum(WEIGHTS * looked + 0.5 * looked * looked)
    opt = tf.train.MomentumOptimizer(0.3, 0.9)
    grads = opt.compute_gradients(loss, shards)
    assert all(isinstance(g, tf.IndexedSlices) for g, _ in grads)
    step = opt.apply_gradients(grads)
    expected = SHARDED_MOD if strategy == "mod" else SHARDED_DIV
    with tf.Session(plan_memory=plan_memory) as sess:
        sess.run(tf.global_variables_initializer())
        for batch, values in zip(STEPS, expected):
            sess.run(step, {ids: batch})
            for shard, want in zip(shards, values):
                np.testing.assert_allclose(sess.run(shard).ravel(), want, rtol=2e-5, atol=2e-6)
