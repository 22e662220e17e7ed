"""``tinyflow.examples.tutorials``: the tutorials' helper modules (``mnist.input_data``)."""
