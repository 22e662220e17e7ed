"""Second-order gradients: ``tf.gradients`` of an expression that holds gradients (WGAN-GP's
gradient penalty, double backprop, Hessian-vector products), as TensorFlow 1.15 allows.

Each backward op's own gradient rule is checked in tests/test_ops.py's table (finite
differences and PyTorch's double backward, memory planning on and off); here: every backward op
has one, whole networks' Hessian-vector products against PyTorch's double backward, and a
WGAN-GP critic and generator trained with Adam, step by step against a PyTorch twin.
"""
import sys

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from op_cases_top_k_lrn import _lrn_backward_ref, torch_lrn
from test_ops import torch_avg_pool, torch_batch_norm, torch_conv2d, torch_max_pool

import tinyflow as tf

F64 = torch.float64
pytestmark = pytest.mark.usefixtures("fresh_graph", "torch_seed")


def test_every_backward_op_has_a_gradient(programs):
    # a backward op without FGradient would make tf.gradients of a gradient fail: walk the
    # registry of a process of its own, forked from one that only imported tinyflow (ops other
    # tests register here do not count)
    code = ("import tinyflow, tinyflow.nnvm as nnvm\n"
            "from tinyflow.nnvm.op import Op\n"
            "print(' '.join(n for n in nnvm.list_ops() if Op.get(n).attr('TIsBackward')\n"
            "               and Op.get(n).attr('FGradient') is None))")
    result = programs.run([sys.executable, "-c", code])
    assert result.returncode == 0, result.stderr
    # a loop's backward is differentiated once only: second-order gradients through
    # tf.while_loop are not part of TF-1 programs' needs (a gradient of it is a clear error);
    # nor has TF's RandomGammaGrad a gradient (tf.random_gamma's second order: a clear error)
    missing = [name for name in result.stdout.split()
               if name not in ("_while_loop_backward", "_random_gamma_grad")]
    assert missing == [], f"backward ops without FGradient: {missing}"


def test_lrn_backward_twin_is_lrn_gradient():
    # the twin test_ops checks _lrn_backward's gradient against, at y = lrn(x), is autograd's
    rng = np.random.default_rng(0)
    attrs = (2, 1.0, 0.5, 0.75)
    g, x = (torch.tensor(rng.standard_normal((2, 3, 3, 6))) for _ in range(2))
    x.requires_grad_(True)
    (expected,) = torch.autograd.grad(torch_lrn(x, *attrs), x, g)
    torch.testing.assert_close(_lrn_backward_ref(g, x, torch_lrn(x, *attrs), attrs), expected)


# -- Hessian-vector products of whole networks: d/dx <grad f(x), v> -----------------------------
def _conv_net(api):
    """f(x, w, b, gamma, beta, w2) -> scalar: conv, bias, relu, batch norm, max and avg pooling,
    tanh, matmul, log_softmax (NCHW); ``api`` "tf" or "torch"."""
    def tf_net(x, w, b, gamma, beta, w2):
        h = tf.nn.conv2d(x, w, strides=[1, 1, 1, 1], padding="SAME", data_format="NCHW")
        h = tf.nn.relu(tf.nn.bias_add(h, b, data_format="NCHW"))
        h = tf.nn.batch_normalization(h, gamma=gamma, beta=beta, epsilon=1e-3)
        h = tf.nn.max_pool(h, [1, 1, 2, 2], [1, 1, 2, 2], "SAME", data_format="NCHW")
        h = tf.nn.avg_pool(tf.tanh(h), [1, 1, 2, 2], [1, 1, 1, 1], "VALID", data_format="NCHW")
        logits = tf.matmul(tf.reshape(h, [-1, 16]), w2)
        return tf.reduce_sum(tf.nn.log_softmax(logits) * tf.constant([[0.3, -1.0, 0.5]]))

    def torch_net(x, w, b, gamma, beta, w2):
        h = torch_conv2d(x, w.permute(3, 2, 0, 1), padding="SAME")
        h = torch.relu(h + b.view(1, -1, 1, 1))
        h = torch_batch_norm(h, gamma, beta, eps=1e-3)
        h = torch_max_pool(h, (2, 2), (2, 2), "SAME")
        h = torch_avg_pool(torch.tanh(h), (2, 2), (1, 1), "VALID")
        logits = h.reshape(-1, 16) @ w2
        return (torch.log_softmax(logits, 1) * torch.tensor([[0.3, -1.0, 0.5]], dtype=F64)).sum()
    shapes = [(3, 2, 6, 6), (3, 3, 2, 4), (4,), (4,), (4,), (16, 3)]
    return (tf_net if api == "tf" else torch_net), shapes


def _lrn_net(api):
    def tf_net(x, w):
        y = tf.nn.lrn(x * w, depth_radius=2, bias=1.0, alpha=0.5, beta=0.75)
        return tf.reduce_sum(tf.nn.softmax(y) * y)

    def torch_net(x, w):
        y = torch_lrn(x * w, 2, 1.0, 0.5, 0.75)
        return (torch.softmax(y, -1) * y).sum()
    return (tf_net if api == "tf" else torch_net), [(2, 3, 2, 6), (6,)]


_IDS = [[2, 0], [1, 2], [0, 0], [2, 1]]


def _array_net(api):
    """concat, strided slices, gather, tile, reduce_prod, top_k, embedding_lookup and the
    sparse cross entropies (per example and mean)."""
    labels = np.array([1, 0, 2, 1])

    def tf_net(x, table):
        wide = tf.concat([x, tf.tanh(x)], 1)[:, ::-1][:, 1:]             # (4, 5)
        picked = tf.tile(tf.gather(wide, [3, 0, 3], axis=1), [1, 2])    # (4, 6)
        prod = tf.reduce_prod(picked[:, :3] + 2.0, axis=1)              # (4,)
        top = tf.nn.top_k(picked, 3).values                             # (4, 3)
        rows = tf.reduce_sum(tf.nn.embedding_lookup(table, tf.constant(_IDS)), 1)  # (4, 3)
        logits = top * rows + tf.expand_dims(prod, 1)
        per = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=tf.constant(labels),
                                                             logits=logits)
        mean = tf.nn.mean_sparse_softmax_cross_entropy_with_logits(
            logits * 0.5, tf.constant(labels.astype(np.float32)))
        return tf.reduce_sum(per * tf.constant([1.0, 0.5, -0.5, 2.0])) + mean

    def torch_net(x, table):
        wide = torch.cat([x, torch.tanh(x)], 1).flip(1)[:, 1:]
        picked = wide[:, [3, 0, 3]].repeat(1, 2)
        prod = (picked[:, :3] + 2.0).prod(1)
        top = torch.topk(picked, 3).values
        rows = table[torch.tensor(_IDS)].sum(1)
        logits = top * rows + prod[:, None]
        per = F.cross_entropy(logits, torch.tensor(labels), reduction="none")
        mean = F.cross_entropy(logits * 0.5, torch.tensor(labels))
        return (per * torch.tensor([1.0, 0.5, -0.5, 2.0], dtype=F64)).sum() + mean
    return (tf_net if api == "tf" else torch_net), [(4, 3), (3, 3)]


def _draw(shapes, rng):
    # magnitudes away from 0 and from each other: no relu or max pooling at a kink
    return [(rng.permutation(int(np.prod(s))).reshape(s) / np.prod(s) + 0.1)
            * rng.choice([-1.0, 1.0], s) for s in shapes]


@pytest.mark.parametrize("net", [_conv_net, _lrn_net, _array_net],
                         ids=["conv-bn-pool", "lrn-softmax", "array-ops-xent"])
def test_hessian_vector_products_match_torch(net, plan_memory):
    tf_net, shapes = net("tf")
    torch_net, _ = net("torch")
    rng = np.random.default_rng(1)
    values = [v.astype(np.float32) for v in _draw(shapes, rng)]
    vectors = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    xs = [tf.placeholder(tf.float32, s) for s in shapes]
    grads = tf.gradients(tf_net(*xs), xs)
    dot = tf.add_n([tf.reduce_sum(g * tf.constant(v)) for g, v in zip(grads, vectors)])
    hvp = tf.gradients(dot, xs)
    sess = tf.Session(plan_memory=plan_memory)
    # the embedding table's gradients are IndexedSlices (TF's): compared dense
    got = sess.run([tf.convert_to_tensor(g) for g in grads + hvp], dict(zip(xs, values)))

    params = [torch.tensor(v, dtype=F64, requires_grad=True) for v in values]
    expected_grads = torch.autograd.grad(torch_net(*params), params, create_graph=True)
    inner = sum((g * torch.tensor(v, dtype=F64)).sum() for g, v in zip(expected_grads, vectors))
    expected_hvp = torch.autograd.grad(inner, params)
    for i, (value, want) in enumerate(zip(got, list(expected_grads) + list(expected_hvp))):
        np.testing.assert_allclose(value, want.detach().numpy(), rtol=2e-3, atol=2e-4,
                                   err_msg=f"{'gradient' if i < len(xs) else 'Hv'} {i % len(xs)}")


def test_hessian_vector_product_against_finite_differences():
    # Hv = (grad f(x + e v) - grad f(x - e v)) / 2e, in float64 from the float32 runs, of a
    # smooth f (relu and max pooling would put kinks within the step)
    tf_net, shapes = _lrn_net("tf")
    rng = np.random.default_rng(2)
    values = [v.astype(np.float32) for v in _draw(shapes, rng)]
    vector = rng.standard_normal(shapes[0]).astype(np.float32)
    xs = [tf.placeholder(tf.float32, s) for s in shapes]
    (grad,) = tf.gradients(tf_net(*xs), xs[:1])
    (hvp,) = tf.gradients(tf.reduce_sum(grad * tf.constant(vector)), xs[:1])
    sess = tf.Session()
    feeds = dict(zip(xs, values))
    step = 1e-2
    plus, minus = (sess.run(grad, {**feeds, xs[0]: values[0] + s * vector})
                   for s in (step, -step))
    numeric = (plus.astype(np.float64) - minus) / (2 * step)
    np.testing.assert_allclose(sess.run(hvp, feeds), numeric, rtol=2e-2, atol=2e-3)


# -- WGAN-GP: a critic trained with a gradient penalty, and its generator, with Adam -----------
_BATCH, _NOISE = 6, 4


def _wgan_weights(rng):
    return {"g_w": rng.normal(0, 0.3, (_NOISE, 36)), "g_b": np.zeros(36),
            "d_conv": rng.normal(0, 0.3, (3, 3, 1, 4)), "d_bias": np.zeros(4),
            "d_w": rng.normal(0, 0.3, (64, 1))}


def _tf_wgan(weights, penalty_weight=10.0):
    v = {k: tf.Variable(tf.constant(w.astype(np.float32)), name=k) for k, w in weights.items()}
    real = tf.placeholder(tf.float32, [None, 6, 6, 1])
    noise = tf.placeholder(tf.float32, [None, _NOISE])
    mix = tf.placeholder(tf.float32, [None, 1, 1, 1])

    def critic(images):
        h = tf.nn.conv2d(images, v["d_conv"], strides=[1, 1, 1, 1], padding="VALID")
        h = tf.nn.leaky_relu(tf.nn.bias_add(h, v["d_bias"]), 0.2)
        return tf.matmul(tf.reshape(tf.tanh(h), [-1, 64]), v["d_w"])

    fake = tf.reshape(tf.tanh(tf.matmul(noise, v["g_w"]) + v["g_b"]), [-1, 6, 6, 1])
    between = mix * real + (1.0 - mix) * fake
    (slopes,) = tf.gradients(critic(between), [between])
    norms = tf.sqrt(tf.reduce_sum(tf.square(slopes), axis=[1, 2, 3]))
    penalty = tf.reduce_mean(tf.square(norms - 1.0))
    d_loss = (tf.reduce_mean(critic(fake)) - tf.reduce_mean(critic(real))
              + penalty_weight * penalty)
    g_loss = -tf.reduce_mean(critic(fake))
    d_vars = [v[k] for k in ("d_conv", "d_bias", "d_w")]
    g_vars = [v["g_w"], v["g_b"]]
    d_step = tf.train.AdamOptimizer(1e-2, beta1=0.5, beta2=0.9).minimize(d_loss, var_list=d_vars)
    g_step = tf.train.AdamOptimizer(1e-2, beta1=0.5, beta2=0.9).minimize(g_loss, var_list=g_vars)
    return (real, noise, mix), (d_loss, g_loss, penalty), (d_step, g_step)


def _torch_wgan(weights, penalty_weight=10.0):
    p = {k: torch.tensor(w, dtype=F64, requires_grad=True) for k, w in weights.items()}

    def critic(images):  # NHWC as TF's; HWIO filter
        h = F.conv2d(images.permute(0, 3, 1, 2), p["d_conv"].permute(3, 2, 0, 1))
        h = F.leaky_relu(h + p["d_bias"].view(1, -1, 1, 1), 0.2)
        return torch.tanh(h).permute(0, 2, 3, 1).reshape(-1, 64) @ p["d_w"]

    def losses(real, noise, mix):
        fake = torch.tanh(noise @ p["g_w"] + p["g_b"]).reshape(-1, 6, 6, 1)
        between = (mix * real + (1 - mix) * fake)
        (slopes,) = torch.autograd.grad(critic(between).sum(), between, create_graph=True)
        penalty = ((slopes.pow(2).sum((1, 2, 3)).sqrt() - 1) ** 2).mean()
        d_loss = critic(fake).mean() - critic(real).mean() + penalty_weight * penalty
        return d_loss, -critic(fake).mean(), penalty
    d_opt = torch.optim.Adam([p[k] for k in ("d_conv", "d_bias", "d_w")], 1e-2, (0.5, 0.9))
    g_opt = torch.optim.Adam([p["g_w"], p["g_b"]], 1e-2, (0.5, 0.9))
    return losses, d_opt, g_opt


def test_wgan_gp_trains_as_torch(plan_memory):
    rng = np.random.default_rng(3)
    weights = _wgan_weights(rng)
    (real, noise, mix), (d_loss, g_loss, penalty), (d_step, g_step) = _tf_wgan(weights)
    losses, d_opt, g_opt = _torch_wgan(weights)
    sess = tf.Session(plan_memory=plan_memory)
    sess.run(tf.global_variables_initializer())
    history = []
    for step in range(4):
        batch = [rng.uniform(-1, 1, (_BATCH, 6, 6, 1)), rng.normal(size=(_BATCH, _NOISE)),
                 rng.uniform(size=(_BATCH, 1, 1, 1))]
        feeds = dict(zip((real, noise, mix), (b.astype(np.float32) for b in batch)))
        got = sess.run([d_loss, g_loss, penalty], feeds)
        torch_batch = [torch.tensor(b.astype(np.float32), dtype=F64) for b in batch]
        want = losses(*torch_batch)
        np.testing.assert_allclose(got, [w.item() for w in want], rtol=1e-3, atol=1e-4,
                                   err_msg=f"step {step}: d_loss, g_loss, penalty")
        history.append(got[2])
        sess.run(d_step, feeds)  # the critic's step, then the generator's (as torch below)
        d_opt.zero_grad()
        want[0].backward()
        d_opt.step()
        sess.run(g_step, feeds)
        g_opt.zero_grad()
        losses(*torch_batch)[1].backward()
        g_opt.step()
    assert history[0] > 0.1  # the penalty is at work, not a zero term
