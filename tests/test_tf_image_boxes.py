"""tf.image.crop_and_resize and draw_bounding_boxes: TensorFlow 1.15's semantics, checked
against numbers from real TensorFlow (tf.compat.v1 of TF 2.21, graph mode, written down below)
and finite differences."""
import numpy as np
import pytest

import tinyflow as tf
from tinyflow.frontend.testing import check_gradients

pytestmark = pytest.mark.usefixtures("fresh_graph")

IMG = (np.arange(2 * 4 * 5 * 2, dtype=np.float32).reshape(2, 4, 5, 2) ** 1.5) / 20
BOXES = np.array([[0.1, 0.2, 0.8, 0.9], [0.5, -0.2, 1.3, 0.6], [0.9, 0.7, 0.2, 0.1],
                  [0.3, 0.3, 0.3, 0.3]], np.float32)
IND = np.array([0, 1, 1, 0], np.int32)


def run(fetches, feeds=None, plan_memory=True):
    with tf.Session(plan_memory=plan_memory) as sess:
        return sess.run(fetches, feeds)


@pytest.mark.parametrize("plan_memory", [True, False])
def test_crop_and_resize_as_tensorflow(plan_memory):
    boxes = tf.placeholder(tf.float32, [None, 4])
    got = run([tf.image.crop_and_resize(IMG, boxes, IND, [3, 2], extrapolation_value=-1.0),
               tf.image.crop_and_resize(IMG, boxes, box_ind=IND, crop_size=[1, 3],
                                        method="nearest")], {boxes: BOXES}, plan_memory)
    # real TF: channel 1 of crop_and_resize(IMG, BOXES, IND, [3, 2], extrapolation_value=-1)
    bilinear = [[[0.82441, 1.99221], [3.33689, 5.14803], [6.94824, 9.21777]],
                [[-1.0, 23.76666], [-1.0, 31.10624], [-1.0, -1.0]],
                [[31.61862, 28.58347], [25.11758, 22.31606], [19.13845, 16.59208]],
                [[2.24222, 2.24222], [2.24222, 2.24222], [2.24222, 2.24222]]]
    # real TF: channel 0 of the same boxes' [1, 3] crops, method="nearest"
    nearest = [[[2.07846, 2.61916, 3.81838]], [[0.0, 30.54701, 31.8286]],
               [[26.80932, 25.6, 23.2379]], [[2.07846, 2.07846, 2.07846]]]
    assert got[0].shape == (4, 3, 2, 2) and got[1].shape == (4, 1, 3, 2)
    np.testing.assert_allclose(got[0][..., 1], bilinear, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(got[1][..., 0], nearest, rtol=1e-5, atol=1e-5)


def test_crop_and_resize_gradients_as_tensorflow_and_finite_differences():
    x, boxes = tf.constant(IMG), tf.constant(BOXES)
    crops = tf.image.crop_and_resize(x, boxes, IND, [3, 2])
    weights = np.arange(48, dtype=np.float32).reshape(4, 3, 2, 2) / 10
    image_grad, box_grad = run(tf.gradients(tf.reduce_sum(crops * weights), [x, boxes]))
    # real TF: the gradients of sum(crop_and_resize(IMG, BOXES, IND, [3, 2]) * weights)
    want_image = [[[0.0, 1.968, 0.492, 0.056, 0.084], [0.052, 17.92, 4.428, 0.18, 0.27],
                   [0.124, 0.496, 0.0, 0.324, 0.486], [0.064, 0.256, 0.0, 0.16, 0.24]],
                  [[0.816, 0.544, 0.256, 1.024, 0.0], [1.854, 1.236, 1.0, 2.6, 0.0],
                   [1.638, 1.092, 1.252, 2.528, 0.0], [1.092, 0.728, 1.092, 1.848, 0.0]]]
    want_boxes = [[15.7354, 7.321, 58.0248, 11.5639], [85.5547, 0.0, 34.8954, 32.4185],
                  [291.6171, 79.8885, 311.6834, 82.6516], [144.3955, 50.9183, 164.2178, 53.4321]]
    np.testing.assert_allclose(image_grad[..., 0], want_image, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(box_grad, want_boxes, rtol=1e-4, atol=2e-3)
    check_gradients(lambda t: tf.image.crop_and_resize(t, BOXES[:3], IND[:3], [3, 4]),
                    [(2, 4, 5, 2)])


def test_crop_and_resize_bad_arguments():
    with pytest.raises(ValueError, match="crop_and_resize: method must be 'bilinear' or"):
        tf.image.crop_and_resize(IMG, BOXES, IND, [2, 2], method="bicubic")
    with pytest.raises(ValueError, match="crop_and_resize: boxes must be 2-dimensional"):
        tf.image.crop_and_resize(IMG, BOXES[None], IND, [2, 2])
    crops = tf.image.crop_and_resize(IMG, BOXES, np.array([0, 2, 1, 0], np.int32), [2, 2])
    with pytest.raises(Exception, match="gather|index|range"):
        run(crops)


CANVAS = np.zeros((2, 6, 7, 3), np.float32) + 0.25
DRAWN = np.array([[[0.0, 0.0, 1.0, 1.0], [0.2, 0.3, 0.7, 0.6], [-0.5, 0.5, 0.5, 1.5]],
                  [[0.5, 0.1, 0.9, 0.9], [0.6, 0.6, 0.4, 0.8], [0.1, 0.1, 0.1, 0.1]]], np.float32)


@pytest.mark.parametrize("plan_memory", [True, False])
def test_draw_bounding_boxes_as_tensorflow(plan_memory):
    got, coloured = run([tf.image.draw_bounding_boxes(CANVAS, DRAWN),
                         tf.image.draw_bounding_boxes(CANVAS[:1, :, :, :1], DRAWN[:1],
                                                      colors=[[7, 0, 0], [9, 0, 0]])],
                        plan_memory=plan_memory)
    q = 0.25  # real TF: draw_bounding_boxes(CANVAS, DRAWN), channels 0 and 2 of image 0
    red = [[1, 1, 1, 1, 1, 1, 1], [1, 0, 0, 1, q, q, 1], [1, 0, q, 1, 1, 1, 1],
           [1, 0, 0, 0, q, q, 1], [1, q, q, q, q, q, 1], [1, 1, 1, 1, 1, 1, 1]]
    blue = [[0, 0, 0, 0, 0, 0, 0], [0, 1, 1, 0, q, q, 0], [0, 1, q, 0, 0, 0, 0],
            [0, 1, 1, 1, q, q, 0], [0, q, q, q, q, q, 0], [0, 0, 0, 0, 0, 0, 0]]
    # and channels 0 and 1 of image 1 (the second box is upside down: not drawn)
    red1 = [[1, q, q, q, q, q, q], [q, q, q, q, q, q, q], [1, 1, 1, 1, 1, 1, q],
            [1, q, q, q, q, 1, q], [1, 1, 1, 1, 1, 1, q], [q, q, q, q, q, q, q]]
    green1 = [[0, q, q, q, q, q, q], [q, q, q, q, q, q, q], [1, 1, 1, 1, 1, 1, q],
              [1, q, q, q, q, 1, q], [1, 1, 1, 1, 1, 1, q], [q, q, q, q, q, q, q]]
    # real TF: colors=[[7, 0, 0], [9, 0, 0]] on a zero one-channel image
    seven_nine = [[7, 7, 7, 7, 7, 7, 7], [7, 9, 9, 7, 0, 0, 7], [7, 9, 0, 7, 7, 7, 7],
                  [7, 9, 9, 9, 0, 0, 7], [7, 0, 0, 0, 0, 0, 7], [7, 7, 7, 7, 7, 7, 7]]
    np.testing.assert_array_equal(got[0, ..., 0], red)
    np.testing.assert_array_equal(got[0, ..., 2], blue)
    np.testing.assert_array_equal(got[1, ..., 0], red1)
    np.testing.assert_array_equal(got[1, ..., 1], green1)
    np.testing.assert_array_equal(coloured[0, ..., 0], np.where(np.array(seven_nine) > 0,
                                                                seven_nine, q))


def test_draw_bounding_boxes_without_boxes_leaves_the_images():
    boxes = tf.placeholder(tf.float32, [2, None, 4])
    drawn = tf.image.draw_bounding_boxes(CANVAS, boxes)
    np.testing.assert_array_equal(run(drawn, {boxes: np.zeros((2, 0, 4), np.float32)}), CANVAS)
    np.testing.assert_array_equal(run(drawn, {boxes: DRAWN})[0, 0, :, 0], 1)  # a run-time count


def test_draw_bounding_boxes_bad_arguments():
    with pytest.raises(TypeError, match="draw_bounding_boxes: the images must be float"):
        tf.image.draw_bounding_boxes(CANVAS.astype(np.uint8), DRAWN)
    with pytest.raises(ValueError, match="draw_bounding_boxes: boxes must be 3-dimensional"):
        tf.image.draw_bounding_boxes(CANVAS, DRAWN[0])
    with pytest.raises(ValueError, match="colors must be a list of at least one colour of 3"):
        tf.image.draw_bounding_boxes(CANVAS, DRAWN, colors=[[1, 0]])


# boxes with flipped corners (3), a duplicate (5 of 4, an equal score), a zero area (7) and
# another tie (9 with 2); real TF's results below are of these numbers
NMS_BOXES = np.array([
    [0.086, 0.237, 0.532, 0.529], [0.801, 0.582, 1.037, 0.969], [0.094, 0.433, 0.109, 0.787],
    [0.666, 0.205, 0.479, 0.16], [0.735, 0.114, 1.065, 0.579], [0.735, 0.114, 1.065, 0.579],
    [0.431, 0.587, 0.58, 0.958], [0.738, 0.956, 0.738, 1.066], [0.284, 0.649, 0.699, 0.977],
    [0.696, 0.293, 1.038, 0.703], [0.001, 0.973, 0.216, 1.353], [0.298, 0.314, 0.738, 0.365]],
    np.float32)
NMS_SCORES = np.array([0.85, 0.394, 0.48, 0.146, 0.698, 0.698, 0.871, 0.275, 0.562, 0.48,
                       0.613, 0.197], np.float32)
OVERLAPS = np.array([[0.18, 0.747, 0.752, 0.567, 0.921, 0.206],
                     [0.851, 0.169, 0.964, 0.624, 0.607, 0.971],
                     [0.787, 0.79, 0.054, 0.369, 0.085, 0.194],
                     [0.214, 0.859, 0.127, 0.297, 0.493, 0.849],
                     [0.965, 0.708, 0.214, 0.545, 0.706, 0.052],
                     [0.68, 0.368, 0.59, 0.67, 0.669, 0.523]], np.float32)


@pytest.mark.parametrize("plan_memory", [True, False])
def test_non_max_suppression_as_tensorflow(plan_memory):
    boxes, scores = tf.placeholder(tf.float32, [None, 4]), tf.placeholder(tf.float32, [None])
    with_scores = tf.image.non_max_suppression_with_scores(boxes, scores, 5, 0.3)
    padded = tf.image.non_max_suppression_padded(boxes, scores, 8, 0.4, 0.2,
                                                 pad_to_max_output_size=True)
    fetches = [tf.image.non_max_suppression(boxes, scores, 10),
               tf.image.non_max_suppression(boxes, scores, 3, iou_threshold=0.1),
               tf.image.non_max_suppression(boxes, scores, 20, iou_threshold=0.0,
                                            score_threshold=0.3),
               with_scores[0], with_scores[1],
               tf.image.non_max_suppression_overlaps(OVERLAPS, OVERLAPS[0], 4, 0.5),
               padded[0], padded[1], tf.image.non_max_suppression(boxes, scores, 0),
               tf.image.non_max_suppression_padded(boxes, scores, 8, 0.4, 0.2)[0]]
    got = run(fetches, {boxes: NMS_BOXES, scores: NMS_SCORES}, plan_memory)
    want = [[6, 0, 4, 10, 8, 2, 9, 1, 7, 11], [6, 0, 4], [6, 0, 4, 10, 1],  # real TF
            [6, 0, 4, 10, 2], [0.871, 0.85, 0.698, 0.613, 0.48], [4, 2, 3],
            [6, 0, 4, 10, 8, 2, 1, 7], 8, [], [6, 0, 4, 10, 8, 2, 1, 7]]
    for value, expected in zip(got, want):
        np.testing.assert_allclose(value, expected)
    assert got[0].dtype == np.int32 and got[7].dtype == np.int32
    # fewer kept than max_output_size: padded with zeros (TF's NonMaxSuppressionV4)
    few = run(tf.image.non_max_suppression_padded(NMS_BOXES[:3], NMS_SCORES[:3], 5,
                                                  pad_to_max_output_size=True))
    np.testing.assert_array_equal(few[0], [0, 2, 1, 0, 0])
    assert few[1] == 3


def test_non_max_suppression_against_a_plain_loop():
    rng = np.random.default_rng(7)
    corners = rng.random((200, 2)).astype(np.float32)
    boxes = np.concatenate([corners, corners + rng.random((200, 2)).astype(np.float32) / 4], 1)
    scores = rng.random(200).astype(np.float32)
    got = run(tf.image.non_max_suppression(boxes, scores, 50, 0.3, 0.1))

    def iou(a, b):
        inter = (max(min(a[2], b[2]) - max(a[0], b[0]), 0)
                 * max(min(a[3], b[3]) - max(a[1], b[1]), 0))
        union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
        return inter / union
    kept = []
    for i in sorted(range(200), key=lambda i: (-scores[i], i)):
        if scores[i] > 0.1 and len(kept) < 50 and all(iou(boxes[i], boxes[k]) <= 0.3
                                                       for k in kept):
            kept.append(i)
    np.testing.assert_array_equal(got, kept)


def test_non_max_suppression_bad_arguments():
    with pytest.raises(ValueError, match="non_max_suppression: iou_threshold must be in"):
        tf.image.non_max_suppression(NMS_BOXES, NMS_SCORES, 3, iou_threshold=1.5)
    with pytest.raises(TypeError, match="max_output_size as a Python int"):
        tf.image.non_max_suppression(NMS_BOXES, NMS_SCORES, tf.constant(3))
    with pytest.raises(Exception, match="boxes must be \\[n, 4\\] for scores of n"):
        tf.image.non_max_suppression(NMS_BOXES, NMS_SCORES[:5], 3)
    with pytest.raises(ValueError, match="TinyFlow has no soft-NMS"):
        tf.image.non_max_suppression_with_scores(NMS_BOXES, NMS_SCORES, 3, soft_nms_sigma=0.5)
    boxes = tf.placeholder(tf.float32, [None, 4])
    kept = tf.image.non_max_suppression(boxes, NMS_SCORES, 3)
    with tf.Session() as sess:
        with pytest.raises(Exception, match="non_max_suppression"):
            sess.run(kept, {boxes: NMS_BOXES[:4]})
        np.testing.assert_array_equal(sess.run(kept, {boxes: NMS_BOXES}), [6, 0, 4])


SAMPLE_BOX = np.array([[[0.1, 0.2, 0.5, 0.6]]], np.float32)


@pytest.mark.parametrize("plan_memory", [True, False])
def test_sample_distorted_bounding_box_as_tensorflow(plan_memory):
    whole = tf.image.sample_distorted_bounding_box([40, 60, 3], SAMPLE_BOX, seed=1,
                                                   area_range=[1.0, 1.0],
                                                   aspect_ratio_range=[1.5, 1.5])
    fallback = tf.image.sample_distorted_bounding_box([40, 60, 3], SAMPLE_BOX, seed=1,
                                                      min_object_covered=1.0,
                                                      area_range=[0.01, 0.02],
                                                      aspect_ratio_range=[1, 1])
    square = tf.image.sample_distorted_bounding_box([40, 60, 3], SAMPLE_BOX, seed=3,
                                                    min_object_covered=0.0,
                                                    area_range=[1 / 6, 1 / 6],
                                                    aspect_ratio_range=[1, 1])
    got = run([whole, fallback, square], plan_memory=plan_memory)
    # real TF: the whole image when the area must be all of it, and when no crop covers the box
    for begin, size, boxes in got[:2]:
        np.testing.assert_array_equal(begin, [0, 0, 0])
        np.testing.assert_array_equal(size, [40, 60, -1])
        np.testing.assert_allclose(boxes, [[[0, 0, 1, 1]]])
        assert begin.dtype == np.int32 and boxes.dtype == np.float32
    begin, size, boxes = got[2]  # real TF: a 20 x 20 crop (its place is random)
    np.testing.assert_array_equal(size, [20, 20, -1])
    assert 0 <= begin[0] <= 20 and 0 <= begin[1] <= 40 and begin[2] == 0
    np.testing.assert_allclose(boxes[0, 0], [begin[0] / 40, begin[1] / 60,
                                             (begin[0] + 20) / 40, (begin[1] + 20) / 60],
                               rtol=1e-6)


def test_sample_distorted_bounding_box_draws_within_tf_constraints():
    image = tf.placeholder(tf.float32, [None, None, 3])
    begin, size, _ = tf.image.sample_distorted_bounding_box(
        tf.shape(image), SAMPLE_BOX, seed=5, min_object_covered=0.5,
        aspect_ratio_range=[0.5, 2.0], area_range=[0.1, 0.9])
    pixels = np.zeros((40, 60, 3), np.float32)
    box = [4, 12, 20, 36]  # SAMPLE_BOX in pixels: rows 4..20, columns 12..36
    with tf.Session() as sess:
        draws = [sess.run([begin, size], {image: pixels}) for _ in range(40)]
    assert len({tuple(s) for _, s in draws}) > 5  # drawn anew every run
    for (top, left, _), (rows, cols, _) in draws:
        assert 0.1 * 2400 <= rows * cols <= 0.9 * 2400 and top + rows <= 40 and left + cols <= 60
        inner = (max(min(top + rows, box[2]) - max(top, box[0]), 0)
                 * max(min(left + cols, box[3]) - max(left, box[1]), 0))
        assert inner / (16 * 24) >= 0.5
        assert 0.5 * rows - 1 <= cols <= 2.0 * rows + 1
    again = tf.image.sample_distorted_bounding_box([40, 60, 3], SAMPLE_BOX, seed=5)
    with tf.Session() as one, tf.Session() as two:
        np.testing.assert_array_equal(one.run(again[0]), two.run(again[0]))  # seeded


def test_sample_distorted_bounding_box_bad_boxes_are_tf_errors():
    empty = np.zeros((1, 0, 4), np.float32)
    begin, size, _ = run(tf.image.sample_distorted_bounding_box(
        [40, 60, 3], empty, seed=3, use_image_if_no_bounding_boxes=True))
    assert begin[2] == 0 and size[2] == -1 and size[0] * size[1] >= 0.05 * 2400
    for boxes, message in ((empty, "No bounding boxes provided"),
                           (SAMPLE_BOX + 1, "must be in \\[0.0, 1.0\\]")):
        with pytest.raises(tf.errors.InvalidArgumentError, match=message):
            run(tf.image.sample_distorted_bounding_box([40, 60, 3], boxes, seed=3))
    with pytest.raises(ValueError, match="sample_distorted_bounding_box: max_attempts must"):
        tf.image.sample_distorted_bounding_box([40, 60, 3], SAMPLE_BOX, area_range=[0.5, 0.1])


def test_sample_distorted_bounding_box_follows_tf_distribution():
    _, size, _ = tf.image.sample_distorted_bounding_box([40, 60, 3], SAMPLE_BOX, seed=1,
                                                        min_object_covered=0.3)
    with tf.Session() as sess:
        sizes = np.array([sess.run(size) for _ in range(600)])
    # real TF, 1,500 draws of these arguments: mean crop 29.50 rows x 31.11 columns (standard
    # error about 0.2 each over 600 draws), never the whole image
    assert abs(sizes[:, 0].mean() - 29.50) < 1.2 and abs(sizes[:, 1].mean() - 31.11) < 1.2
    assert not np.any((sizes[:, 0] == 40) & (sizes[:, 1] == 60))


def _combined_inputs():
    rng = np.random.default_rng(11)
    corners = rng.random((2, 6, 1, 2)).astype(np.float32)
    boxes = np.concatenate([corners, corners + 0.4], -1).round(3).astype(np.float32)
    return boxes, rng.random((2, 6, 3)).round(3).astype(np.float32)


@pytest.mark.parametrize("plan_memory", [True, False])
def test_combined_non_max_suppression_as_tensorflow(plan_memory):
    boxes, scores = _combined_inputs()
    per_class_boxes = np.tile(boxes, [1, 1, 3, 1])
    per_class_boxes[:, :, 1] *= 0.5
    got = run([tf.image.combined_non_max_suppression(boxes, scores, 2, 5, 0.3, 0.2),
               tf.image.combined_non_max_suppression(boxes, scores, 1, 7, 0.5,
                                                     pad_per_class=True, clip_boxes=False),
               tf.image.combined_non_max_suppression(per_class_boxes, scores, 2, 4, 0.2)],
              plan_memory=plan_memory)
    # real TF: scores and classes of the three calls, and the valid counts
    want = [([[0.901, 0.896, 0.867, 0.802, 0.592], [0.996, 0.906, 0.846, 0.697, 0.588]],
             [[2, 0, 1, 0, 1], [1, 2, 0, 0, 1]], [5, 5]),
            ([[0.901, 0.896, 0.867], [0.996, 0.906, 0.846]], [[2, 0, 1], [1, 2, 0]], [3, 3]),
            ([[0.901, 0.896, 0.867, 0.802], [0.996, 0.906, 0.846, 0.697]],
             [[2, 0, 1, 0], [1, 2, 0, 0]], [4, 4])]
    for (nmsed_boxes, nmsed_scores, classes, valid), (w_scores, w_classes, w_valid) in zip(
            got, want):
        np.testing.assert_allclose(nmsed_scores, w_scores, rtol=1e-6)
        np.testing.assert_array_equal(classes, w_classes)
        np.testing.assert_array_equal(valid, w_valid)
        assert valid.dtype == np.int32 and classes.dtype == np.float32
    # real TF: the boxes of the first call (clipped to [0, 1]) and of the third, image 1
    np.testing.assert_allclose(got[0][0][0], [
        [0.948, 0.622, 1.0, 1.0], [0.07, 0.13, 0.47, 0.53], [0.601, 0.029, 1.0, 0.429],
        [0.601, 0.029, 1.0, 0.429], [0.129, 0.499, 0.529, 0.899]], rtol=1e-6)
    np.testing.assert_allclose(got[1][0][1, 2], [0.981, 0.205, 1.381, 0.605], rtol=1e-6)
    np.testing.assert_allclose(got[2][0][1], [
        [0.335, 0.256, 0.535, 0.456], [0.663, 0.275, 1.0, 0.675], [0.981, 0.205, 1.0, 0.605],
        [0.138, 0.788, 0.538, 1.0]], rtol=1e-5)
    few = run(tf.image.combined_non_max_suppression(boxes, scores, 1, 6, 0.5, 0.8))
    np.testing.assert_array_equal(few.valid_detections, [3, 3])  # each class has one above 0.8
    np.testing.assert_array_equal(few.nmsed_scores[:, 3:], 0)  # zeros past them


def test_combined_non_max_suppression_bad_arguments():
    boxes, scores = _combined_inputs()
    with pytest.raises(Exception, match="boxes must be \\[batch, boxes, 1 or classes, 4\\]"):
        tf.image.combined_non_max_suppression(np.tile(boxes, [1, 1, 2, 1]), scores, 2, 5)
    with pytest.raises(ValueError, match="iou_threshold must be in \\[0, 1\\]"):
        tf.image.combined_non_max_suppression(boxes, scores, 2, 5, iou_threshold=-0.5)
