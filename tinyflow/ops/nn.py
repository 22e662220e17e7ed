"""TensorFlow 1.x's ``tf.nn`` ops that are not compositions of others: bias_add, the softmax
cross-entropies, embedding_lookup, in_top_k, top_k and lrn.
Bodies: ``tinyflow/lua_ops/nn/<name>.lua``.

Class ids and indices (labels, ids, targets) may have any dtype (TensorFlow's int32 / int64, or
the seed's float class ids); the bodies read them into int64 scratch and check their range as
TensorFlow's CPU kernels do.  ``data_format`` is ``"NHWC"`` (channels last, TensorFlow's
default) or ``"NCHW"`` (channels on axis 1).
"""
from __future__ import annotations

from ..nnvm.attrs import inplace_first, no_gradient, same_as_input, same_shape, shape_str
from ..nnvm.errors import GraphError, ShapeError
from ..nnvm.op import Op, register_op
from ..nnvm.symbol import create_op
from .elemwise import dtype_rule

__all__ = []


def _backward_op(name, doc, num_inputs, shape_rule):
    return (register_op(name).describe(doc).set_num_inputs(num_inputs)
            .set_attr("FInferShape", shape_rule).set_attr("TIsBackward", True))


def _float_and_ids(float_inputs, id_inputs, num_outputs=1, out_type=None):
    """FInferType: the float inputs and the outputs share one type (``out_type`` fixes the
    outputs'); the id inputs keep theirs (int32, int64 or float)."""
    def rule(attrs, in_types, out_types):
        known = [in_types[i] for i in float_inputs] + ([] if out_type else list(out_types))
        dtype = next((t for t in known if t is not None), None)
        in_types = list(in_types)
        for i in float_inputs:
            in_types[i] = dtype
        for i in id_inputs:
            in_types[i] = in_types[i] or "int64"
        return in_types, [out_type or dtype] * num_outputs
    return rule


# -- bias_add --------------------------------------------------------------------------------
def _channel_axis(attrs, rank):
    return 1 if attrs.get("data_format") == "NCHW" else rank - 1


def _bias_add_shape(attrs, in_shapes, out_shapes):
    value = in_shapes[0] if in_shapes[0] is not None else out_shapes[0]
    bias = in_shapes[1]
    if bias is not None and len(bias) != 1:
        raise ShapeError(f"bias must be a vector, got shape {shape_str(bias)}")
    if value is None:
        return in_shapes, out_shapes
    if len(value) < (3 if attrs.get("data_format") == "NCHW" else 2):
        raise ShapeError(f"value must have rank at least 2 (3 for NCHW), got shape {value}")
    channels = (value[_channel_axis(attrs, len(value))],)
    if bias is not None and tuple(bias) != channels:
        raise ShapeError(f"bias {tuple(bias)} must match the {channels[0]} channels of value "
                         f"{value} ({attrs.get('data_format') or 'NHWC'})")
    return [value, channels], [value]


(register_op("bias_add")
 .describe("value + bias, bias (C,) added along the channel axis: the last (data_format NHWC, "
           "the default) or axis 1 (NCHW).")
 .set_num_inputs(2).set_attr("FInferShape", _bias_add_shape)
 .set_attr("FInplaceOption", inplace_first)
 .set_attr("FBiasLayout", lambda attrs: attrs.get("data_format") or "NHWC")
 .set_attr("FDataLayout", lambda attrs: attrs.get("data_format") or "NHWC")
 .set_attr("FGradient", lambda n, g: [g[0], create_op(
     "_bias_add_backward", g[0], n.inputs[1], data_format=n.attrs.get("data_format"))]))
(_backward_op("_bias_add_backward", "Gradient of bias_add's bias: g summed over every axis but "
              "the channel axis; inputs g and bias (for its shape).", 2, same_as_input(1))
 .set_attr("FIgnoreInputs", [1])
 # the sum's gradient: h (per channel) broadcast along the channel axis of g's shape
 .set_attr("FGradient", lambda n, g: [create_op(
     "bias_add", create_op("zeros_like", n.inputs[0]), g[0],
     data_format=n.attrs.get("data_format")), None]))


# -- softmax cross-entropy with probability labels -----------------------------------------
def _xent_shape(attrs, in_shapes, out_shapes):
    logits, labels = in_shapes
    if logits is not None and labels is not None and tuple(logits) != tuple(labels):
        raise ShapeError(f"logits {tuple(logits)} and labels {tuple(labels)} must have one "
                         f"shape")
    logits = logits if logits is not None else labels
    if logits is None:
        return in_shapes, out_shapes
    if len(logits) == 0:
        raise ShapeError("logits must have at least one axis (the classes), got a scalar")
    axis = attrs.get("axis", -1) % len(logits)
    return [logits, logits], [tuple(d for i, d in enumerate(logits) if i != axis)]


def _xent_grad(node, grads):
    """TensorFlow's rule: logits get g * (softmax(logits) - labels); labels (when
    backprop_labels, as ``_v2``) get g * -log_softmax(logits)."""
    logits, labels = node.inputs
    axis = node.attrs.get("axis", -1)
    g = create_op("broadcast_like", grads[0], logits, axis=axis)
    grad_logits = g * (create_op("softmax", logits, axis=axis) - labels)
    if not node.attrs.get("backprop_labels", False):
        return [grad_logits, None]
    return [grad_logits, -g * create_op("log_softmax", logits, axis=axis)]


(register_op("softmax_cross_entropy_with_logits")
 .describe("Per-example -sum(labels * log_softmax(logits)) along axis (default -1); inputs "
           "logits and labels (probabilities) of one shape; attr backprop_labels (tf.nn's _v2: "
           "the labels get a gradient too).")
 .set_num_inputs(2).set_attr("FInferShape", _xent_shape).set_attr("FGradient", _xent_grad))


# -- sparse softmax cross-entropy ----------------------------------------------------------
def _sparse_xent_shape(attrs, in_shapes, out_shapes):
    logits, labels = in_shapes
    if logits is not None and len(logits) == 0:
        raise ShapeError("logits must have at least one axis (the classes), got a scalar")
    labels = labels if labels is not None else out_shapes[0]
    if logits is not None and labels is not None and tuple(labels) != tuple(logits[:-1]):
        raise ShapeError(f"labels {tuple(labels)} must have the shape of logits {tuple(logits)} "
                         f"without its last (class) axis, {tuple(logits[:-1])}")
    if logits is not None:
        labels = tuple(logits[:-1])
    return [logits, labels], [labels]


# TUncapturable: the bodies of the sparse cross entropy and embedding_lookup check class ids /
# indices on the host (torch.aminmax, then a comparison in Python), as TensorFlow's CPU
# kernels do: a sync a CUDA graph capture refuses
_SPARSE = "sparse_softmax_cross_entropy_with_logits"
(register_op(_SPARSE)
 .describe("Per-example -log_softmax(logits)[label] along the last axis: logits (..., classes), "
           "labels (...) holding class ids (int32, int64, or float).")
 .set_num_inputs(2).set_attr("FInferShape", _sparse_xent_shape)
 .set_attr("FInferType", _float_and_ids([0], [1])).set_attr("TUncapturable", True)
 .set_attr("FGradient", lambda n, g: [create_op(f"_{_SPARSE}_backward", g[0], *n.inputs),
                                      None]))


def _sparse_xent_backward_grad(node, grads):
    """out = (softmax(z) - onehot(labels)) * g[..., None]: d g = sum(h * the op of ones) over
    the classes; d z = softmax's backward of h * g[..., None]; labels get none."""
    (g, logits, labels), h = node.inputs, grads[0]
    unit = create_op(node.op.name, create_op("ones_like", g), logits, labels)
    grad_g = create_op("reduce_sum", h * unit, axis=-1)
    scaled = h * create_op("expand_dims", g, axis=-1)
    return [grad_g, create_op("_softmax_backward", scaled, create_op("softmax", logits, axis=-1),
                              axis=-1), None]


(_backward_op(f"_{_SPARSE}_backward", "(softmax(logits) - onehot(labels)) * g, from g (per "
              "example), logits and labels.", 3, same_as_input(1))
 .set_attr("FInferType", _float_and_ids([0, 1], [2])).set_attr("TUncapturable", True)
 .set_attr("FGradient", _sparse_xent_backward_grad))


# -- embedding_lookup ------------------------------------------------------------------------
def _embedding_shape(attrs, in_shapes, out_shapes):
    params, ids = in_shapes
    if params is not None and len(params) == 0:
        raise ShapeError("params must have at least one axis (the rows), got a scalar")
    if params is None or ids is None:
        return in_shapes, out_shapes
    return in_shapes, [tuple(ids) + tuple(params[1:])]


(register_op("embedding_lookup")
 .describe("Rows of params (axis 0) at ids: output ids.shape + params.shape[1:] (TensorFlow's "
           "gather on axis 0); ids int32, int64 or float.")
 .set_num_inputs(2).set_attr("FInferShape", _embedding_shape)
 .set_attr("FInferType", _float_and_ids([0], [1])).set_attr("TUncapturable", True)
 .set_attr("FGradient", lambda n, g: [create_op("_embedding_lookup_backward", g[0],
                                                *n.inputs), None]))
(_backward_op("_embedding_lookup_backward", "Gradient of embedding_lookup's params: zeros of "
              "params' shape with the rows of g added at ids (repeated ids sum); inputs g, "
              "params (for its shape) and ids.", 3, same_as_input(1))
 .set_attr("FIgnoreInputs", [1]).set_attr("FInferType", _float_and_ids([0, 1], [2]))
 .set_attr("TUncapturable", True)
 .set_attr("FIndexedSlices", (0, 2, 1))  # TF's: IndexedSlices(g's rows, ids, params' shape)
 # a sum of g's rows at ids: its gradient reads h's rows at ids
 .set_attr("FGradient", lambda n, g: [
     create_op("embedding_lookup", g[0], n.inputs[2]), None, None]))


# -- in_top_k ---------------------------------------------------------------------------------
def _in_top_k_shape(attrs, in_shapes, out_shapes):
    predictions, targets = in_shapes
    if predictions is not None and len(predictions) != 2:
        raise ShapeError(f"predictions must be (batch, classes), got shape "
                         f"{shape_str(predictions)}")
    if targets is not None and len(targets) != 1:
        raise ShapeError(f"targets must be a vector (batch,), got shape {shape_str(targets)}")
    if predictions is None:
        return in_shapes, [targets]
    if targets is not None and targets[0] != predictions[0]:
        raise ShapeError(f"{targets[0]} targets for a batch of {predictions[0]} predictions")
    return [predictions, (predictions[0],)], [(predictions[0],)]


(register_op("in_top_k")
 .describe("Whether targets[i] is among the k (attr) largest predictions[i] (bool): fewer than "
           "k classes score strictly higher (ties count as in); false for a target out of "
           "range or a prediction that is not finite.")
 .set_num_inputs(2).set_attr("FInferShape", _in_top_k_shape)
 .set_attr("FInferType", _float_and_ids([0], [1], out_type="bool"))
 .set_attr("FGradient", no_gradient))


def _pick_last_axis(h, indices, x):
    """h[..., indices] row by row (top_k's backward, transposed): the sum over the last axis
    of h times one_hot(indices), of depth x's last axis, which must be known statically."""
    shape = x.get_shape()
    depth = shape.as_list()[-1] if shape.ndims else None
    if depth is None:
        raise GraphError(f"the gradient of top_k's gradient needs the static size of the last "
                         f"axis of {x.name} (got shape {x.get_shape()})")
    mask = create_op("one_hot", create_op("cast", indices, dtype="int32"), depth=int(depth),
                     dtype=h.dtype.name)
    return create_op("reduce_sum", mask * create_op("expand_dims", h, axis=-2), axis=-1)


# -- top_k -------------------------------------------------------------------------------------
def _top_k_shape(attrs, in_shapes, out_shapes):
    x, k = in_shapes[0], attrs["k"]
    if x is None:
        return in_shapes, out_shapes
    if len(x) == 0 or (x[-1] is not None and x[-1] < k):
        raise ShapeError(f"input {shape_str(x)} must have at least k={k} columns (the last "
                         f"axis)")
    out = tuple(x[:-1]) + (k,)
    return in_shapes, [out, out]


def _top_k_type(attrs, in_types, out_types):
    dtype_rule(("float", "int"))(attrs, in_types[:1], out_types[:1])  # checks the input
    return in_types, [in_types[0], "int32"]


(register_op("top_k")
 .describe("The k (attr) largest entries of each row along the last axis, in descending order "
           "(the lower index first among equal values; sorted=False gives the same), and their "
           "indices (int32), as TensorFlow's TopKV2; the gradient goes to the chosen entries.")
 .set_num_inputs(1).set_num_outputs(2).set_attr("FInferShape", _top_k_shape)
 .set_attr("FInferType", _top_k_type)
 .set_attr("FGradient", lambda n, g: [create_op("_top_k_backward", g[0], n.outputs[1],
                                                n.inputs[0])]))
(_backward_op("_top_k_backward", "Gradient of top_k's input: zeros of x's shape with g put at "
              "the indices along the last axis; inputs g, indices (int32) and x (for its shape).",
              3, same_as_input(2))
 .set_attr("FIgnoreInputs", [2]).set_attr("FInferType", _float_and_ids([0, 2], [1]))
 .set_attr("TUncapturable", True)  # on a GPU, the indices are checked on the host
 .set_attr("FGradient", lambda n, g: [_pick_last_axis(g[0], n.inputs[1], n.inputs[2]),
                                      None, None]))


# -- local response normalisation --------------------------------------------------------------
def _lrn_shape(attrs, in_shapes, out_shapes):
    in_shapes, out_shapes = same_shape(attrs, in_shapes, out_shapes)
    if out_shapes[0] is not None and len(out_shapes[0]) != 4:
        raise ShapeError(f"input must be 4-D (NHWC: the window runs along the last axis), got "
                         f"shape {shape_str(out_shapes[0])}")
    return in_shapes, out_shapes


def _lrn_grad(node, grads):
    return [create_op("_lrn_backward", grads[0], node.inputs[0], node.outputs[0],
                      **node.attrs)]


_FLOATS = dtype_rule(("float",))
(register_op("lrn")
 .describe("TensorFlow's local response normalisation of 4-D x along its last axis: y = x / "
           "(bias + alpha * sqr_sum) ** beta, sqr_sum the sum of x ** 2 over [d - "
           "depth_radius, d + depth_radius] (attrs depth_radius, bias, alpha, beta; alpha is "
           "not divided by the window's size, unlike torch's).")
 .set_num_inputs(1).set_attr("FInferShape", _lrn_shape).set_attr("FInferType", _FLOATS)
 .set_attr("FInplaceOption", inplace_first).set_attr("FGradient", _lrn_grad))
(_backward_op("_lrn_backward", "Gradient of lrn's x from g, x and y (TensorFlow's LRNGrad): g * "
              "N ** -beta - 2 alpha beta x * window_sum(g * y / N), N = bias + alpha * sqr_sum.",
              3, _lrn_shape)
 .set_attr("FInferType", _FLOATS).set_attr("FGradient", lambda n, g: _lrn_backward_grad(
     n, g[0], *(n.attrs[k] for k in ("depth_radius", "bias", "alpha", "beta")))))


def _window_sum(v, radius):
    """W(v): the sum of v over [d - radius, d + radius] along the last axis (zeros past the
    ends), as shifted slices of v padded by radius on both sides."""
    if radius == 0:
        return v
    padded = create_op("pad", create_op("pad", v, dim=-1, pad=-radius), dim=-1, pad=radius)
    parts = [padded[..., j:j - 2 * radius] for j in range(2 * radius)]
    return create_op("elemwise_sum", *parts, padded[..., 2 * radius:], num_args=2 * radius + 1)


def _lrn_backward_grad(node, h, radius, bias, alpha, beta):
    """out = g N^-b - 2ab x W(u), u = g y / N, N = bias + a W(x^2) (W the window sum, its own
    transpose): d g = h N^-b - 2ab (y / N) W(h x); d y = -2ab (g / N) W(h x); d x = -2ab h W(u)
    + 2a x W(d N), d N = -b h g N^(-b-1) + 2ab g y W(h x) / N^2."""
    g, x, y = node.inputs
    norm = _window_sum(x * x, radius) * alpha + bias
    hx = _window_sum(h * x, radius)
    scale = -2.0 * alpha * beta
    grad_norm = (h * g * norm ** (-beta - 1.0)) * -beta - (hx * g * y / (norm * norm)) * scale
    return [h * norm ** -beta + (y / norm) * hx * scale,
            h * _window_sum(g * y / norm, radius) * scale
            + x * _window_sum(grad_norm, radius) * (2.0 * alpha), (g / norm) * hx * scale]


# -- candidate samplers (sampled losses: nce_loss, sampled_softmax_loss) ------------------
def _sampler_shape(attrs, in_shapes, out_shapes):
    classes, count = in_shapes[0], attrs["num_sampled"]
    table = attrs.get("probabilities")
    if table is not None and len(table) != attrs["range_max"]:
        raise ShapeError(f"range_max {attrs['range_max']} must be the number of class "
                         f"probabilities, {len(table)}")
    if table is not None and attrs.get("unique", True) and count > sum(p > 0 for p in table):
        raise ShapeError(f"cannot draw {count} distinct classes of the "
                         f"{sum(p > 0 for p in table)} of probability > 0")
    if attrs.get("unique", True) and count > attrs["range_max"]:
        raise ShapeError(f"cannot draw {count} distinct classes of {attrs['range_max']} "
                         f"(num_sampled > range_max with unique=True)")
    if classes is not None and (len(classes) != 2 or classes[1] != attrs["num_true"]):
        raise ShapeError(f"true_classes must be [batch, num_true={attrs['num_true']}], got "
                         f"shape {shape_str(classes)}")
    return in_shapes, [(count,), classes, (count,)]


def _sampler_type(attrs, in_types, out_types):
    kind = in_types[0]
    if kind is not None and not kind.startswith(("int", "uint")):
        raise TypeError(f"true_classes must be an integer tensor (int64), got {kind}")
    return in_types, ["int64", "float32", "float32"]


# TensorFlow's samplers (candidate_sampling_ops.cc): num_sampled classes of [0, range_max)
# (distinct with unique, redrawn until so), and the expected count of each true and sampled
# class among them; random, no gradient (TF's are NotDifferentiable)
_LOG_UNIFORM = "P(c) = log((c + 2) / (c + 1)) / log(range_max + 1)"
for _name, _law in (("log_uniform_candidate_sampler", _LOG_UNIFORM),
                    ("uniform_candidate_sampler", "P(c) = 1 / range_max"),
                    ("fixed_unigram_candidate_sampler", "P(c) = probabilities[c] (attr)")):
    (register_op(_name)
     .describe(f"num_sampled classes drawn from [0, range_max), {_law}, and the expected counts "
               f"of the true classes (input, int64 [batch, num_true]) and of the sampled ones: "
               f"p * num_sampled, or 1 - (1 - p) ** tries with unique; attrs num_sampled, "
               f"num_true, unique, range_max, seed, seed2.")
     .set_num_inputs(1).set_num_outputs(3).set_attr("FInferShape", _sampler_shape)
     .set_attr("FInferType", _sampler_type)
     .set_attr("FGradient", no_gradient).set_attr("TRandom", True))

# TTFType: TensorFlow's op type (op.type) where it is not our name in CamelCase
for _name, _type in (("bias_add", "BiasAdd"), ("_bias_add_backward", "BiasAddGrad"),
        ("embedding_lookup", "GatherV2"), ("in_top_k", "InTopKV2"), ("top_k", "TopKV2"), ("lrn",
        "LRN"), ("_lrn_backward", "LRNGrad")):
    Op.get(_name).set_attr("TTFType", _type)


# -- ctc_loss ------------------------------------------------------------------------------------
def _ctc_shape(attrs, in_shapes, out_shapes):
    logits, labels, label_lengths, lengths = in_shapes
    if logits is not None and len(logits) != 3:
        raise ShapeError(f"ctc_loss: logits must be [max_time, batch, num_classes], got "
                         f"{shape_str(logits)}")
    if labels is not None and len(labels) != 2:
        raise ShapeError(f"ctc_loss: labels must be [batch, max_label_length], got "
                         f"{shape_str(labels)}")
    for name, shape in (("label lengths", label_lengths), ("sequence_length", lengths)):
        if shape is not None and len(shape) != 1:
            raise ShapeError(f"ctc_loss: {name} must be a vector, got {shape_str(shape)}")
    if logits is None:
        return in_shapes, out_shapes
    batch = (logits[1],)
    for shape in (labels[:1] if labels is not None else None, label_lengths, lengths):
        if shape is not None and tuple(shape[:1]) != batch:
            raise ShapeError(f"ctc_loss: a batch of {logits[1]} (logits {shape_str(logits)}) "
                             f"against {shape_str(shape)}")
    return [logits, labels, batch, batch], [batch, logits]


def _ctc_grad(node, grads):
    """The kept gradient of each example's loss, scaled by g; TF's refusal of a second order
    (its prevent_gradient on the kept gradient)."""
    kept = grads[1].outputs[0].node
    if kept.op is None or kept.op.attr("TGradientRole") != "zero":  # a gradient reached it
        raise GraphError("Currently there is no way to take the second derivative of ctc_loss "
                         "due to the fused implementation's interaction with tf.gradients()")
    scale = create_op("expand_dims", create_op("expand_dims", grads[0], axis=0), axis=-1)
    return [create_op("elemwise_mul", node.outputs[1], scale), None, None, None]


(register_op("ctc_loss")
 .describe("TF's CTCLoss: the negative log probability of each example's labels under logits "
           "[max_time, batch, num_classes] (softmax inside; the last class the blank), labels "
           "[batch, max_label_length] with their lengths, and each sequence's length; "
           "ctc_merge_repeated, not preprocess_collapse_repeated.  Output 1 (hidden): the "
           "gradient of each loss by the logits.  Attr ignore_longer_outputs_than_inputs: "
           "an example too long for its sequence gets loss 0 and no gradient, else an error.")
 .set_num_inputs(4).set_num_outputs(2).set_attr("FNumVisibleOutputs", lambda attrs: 1)
 .set_attr("FInferShape", _ctc_shape)
 .set_attr("FInferType", _float_and_ids([0], [1, 2, 3], num_outputs=2))
 .set_attr("TUncapturable", True)
 .set_attr("FGradient", _ctc_grad))
