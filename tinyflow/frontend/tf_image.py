"""``tf.image``: the names of TensorFlow 1.15's ``tf.image`` that TinyFlow has
(:mod:`tinyflow.frontend.image_ops`, :mod:`~tinyflow.frontend.image_resize`,
:mod:`~tinyflow.frontend.image_quality`, :mod:`~tinyflow.frontend.image_boxes`,
:mod:`~tinyflow.frontend.image_codecs`;
``random_crop`` is ``tf.random_crop`` too).  Any other ``tf.image.X`` is an AttributeError
saying TinyFlow does not support it.
"""
from __future__ import annotations

from .array_ops import extract_image_patches
from .image_boxes import *
from .image_boxes import __all__ as _boxes_all
from .image_codecs import *
from .image_codecs import __all__ as _codecs_all
from .image_ops import *  # tf.image is these modules' public names, and the patches below
from .image_ops import __all__ as _image_all
from .image_quality import *
from .image_quality import __all__ as _quality_all
from .image_resize import *
from .image_resize import __all__ as _resize_all
from .unsupported import unsupported

__all__ = (list(_image_all) + list(_resize_all) + list(_quality_all)
           + list(_boxes_all) + list(_codecs_all) + ["extract_image_patches", "extract_patches"])
extract_patches = extract_image_patches  # TF's newer name (its ksizes named sizes)


def __getattr__(name):
    raise unsupported("tf.image.", "tinyflow.tf_image", name, {"tf.image.": __all__})
