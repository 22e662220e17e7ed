"""``tinyflow.examples``: TensorFlow 1.x's ``tensorflow.examples`` modules that programs import.

Nothing here is imported by ``import tinyflow``; a program asks for it, as in TensorFlow::

    from tinyflow.examples.tutorials.mnist import input_data
"""
