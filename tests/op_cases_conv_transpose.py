"""test_ops' table for tf.nn.conv2d_transpose: conv2d's input-gradient op given the output's
size (attr input_size) instead of conv2d's input, against torch's conv_transpose2d (forward
values; gradients against its autograd and finite differences)."""
import torch.nn.functional as F

import tinyflow as tf


def torch_conv2d_transpose(x, w, out_hw, stride):
    """TF's conv2d_transpose of NCHW x with a TF filter [kh, kw, out, in]: torch's full
    transposed convolution, cropped where TF's conv2d padded (the odd pixel after), or padded
    with zeros at the end where VALID left rows unread."""
    full = F.conv_transpose2d(x, w.permute(3, 2, 0, 1), stride=stride)
    pads = []
    for size, k, s, out in zip(x.shape[2:], w.shape[:2], stride, out_hw):
        total = (size - 1) * s + k - out
        before = max(total, 0) // 2
        pads.append((-before, -(total - before)))
    return F.pad(full, (*pads[1], *pads[0]))


def nhwc(function):
    return lambda x, *rest: function(x.permute(0, 3, 1, 2), *rest).permute(0, 2, 3, 1)


# (value NHWC, filter [kh, kw, out, in], output height and width, stride, padding)
TRANSPOSES = [((2, 3, 3, 4), (3, 3, 2, 4), (6, 6), (2, 2), "SAME"),
              ((2, 3, 4, 4), (3, 3, 2, 4), (5, 7), (2, 2), "SAME"),
              ((1, 3, 3, 2), (3, 3, 3, 2), (7, 8), (2, 2), "VALID"),
              ((2, 4, 5, 3), (2, 3, 2, 3), (4, 5), (1, 1), "SAME"),
              ((1, 4, 3, 2), (2, 2, 3, 2), (5, 4), (1, 1), "VALID")]


def add_cases(add):
    for value, filter_shape, out_hw, stride, padding in TRANSPOSES:
        output_shape = [value[0], *out_hw, filter_shape[2]]
        add("_conv2d_backward_data", f"transpose-{padding}-s{stride}-out{out_hw}",
            lambda x, w, o=output_shape, s=stride, p=padding: tf.nn.conv2d_transpose(
                x, w, o, strides=[1, *s, 1], padding=p),
            [value, filter_shape],
            lambda x, w, o=out_hw, s=stride: nhwc(torch_conv2d_transpose)(x, w, o, s))
    add("_conv2d_backward_data", "transpose-NCHW",
        lambda x, w: tf.nn.conv2d_transpose(x, w, [2, 2, 7, 5], [1, 1, 2, 2], "SAME",
                                            data_format="NCHW"),
        [(2, 3, 4, 3), (3, 2, 2, 3)],
        lambda x, w: torch_conv2d_transpose(x, w, (7, 5), (2, 2)))
