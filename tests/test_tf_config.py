"""tf.config, tf.version, tf.get_logger and tf.DeviceSpec against TensorFlow's: the values and
errors were recorded from TensorFlow (tensorflow-cpu 2.21's tf.compat.v1, graph mode, whose
DeviceSpec is TF 1.15's DeviceSpecV1) on 2026-11-27, and written here."""
import logging

import numpy as np
import pytest
import torch

import tinyflow as tf
from tinyflow.session.options import ThreadDefaults

pytestmark = pytest.mark.usefixtures("fresh_graph")


@pytest.fixture(autouse=True)
def _thread_defaults():
    """Each test starts from, and leaves, the process's default thread counts."""
    saved = ThreadDefaults.intra_op, ThreadDefaults.inter_op
    yield
    ThreadDefaults.intra_op, ThreadDefaults.inter_op = saved


def test_list_devices_on_the_cpu(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    # recorded from TensorFlow: [PhysicalDevice(name='/physical_device:CPU:0', device_type='CPU')]
    cpu = tf.config.list_physical_devices()
    assert cpu == [("/physical_device:CPU:0", "CPU")]
    assert (cpu[0].name, cpu[0].device_type) == ("/physical_device:CPU:0", "CPU")
    assert repr(cpu[0]) == "PhysicalDevice(name='/physical_device:CPU:0', device_type='CPU')"
    assert tf.config.experimental.list_physical_devices("CPU") == cpu
    assert tf.config.list_physical_devices("GPU") == []
    assert tf.config.list_physical_devices("cpu") == []  # TensorFlow compares as given
    assert tf.config.list_physical_devices("XYZ") == []
    logical = tf.config.list_logical_devices()
    assert repr(logical) == "[LogicalDevice(name='/device:CPU:0', device_type='CPU')]"
    assert tf.config.experimental.list_logical_devices("GPU") == []


def test_list_devices_with_cuda_devices(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 2)
    names = [d.name for d in tf.config.list_physical_devices()]
    assert names == ["/physical_device:CPU:0", "/physical_device:GPU:0",
                     "/physical_device:GPU:1"]
    assert [d.name for d in tf.config.list_logical_devices("GPU")] == [
        "/device:GPU:0", "/device:GPU:1"]
    gpu = tf.config.list_physical_devices("GPU")[1]
    assert tf.config.experimental.get_memory_growth(gpu) is False
    tf.config.experimental.set_memory_growth(gpu, True)
    assert tf.config.experimental.get_memory_growth(gpu) is True
    tf.config.experimental.set_memory_growth(gpu, False)
    assert tf.config.experimental.get_memory_growth(gpu) is False


def test_memory_growth_errors_as_tensorflow(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    cpu = tf.config.list_physical_devices("CPU")[0]
    # recorded: ValueError on the CPU, KeyError reading it, ValueError "Unrecognized device"
    with pytest.raises(ValueError, match="non-GPU"):
        tf.config.experimental.set_memory_growth(cpu, True)
    with pytest.raises(KeyError):
        tf.config.experimental.get_memory_growth(cpu)
    with pytest.raises(ValueError, match="Unrecognized device: 'x'"):
        tf.config.experimental.get_memory_growth("x")
    gpu = tf.config.PhysicalDevice("/physical_device:GPU:0", "GPU")  # no GPU here
    with pytest.raises(ValueError, match="Unrecognized device"):
        tf.config.experimental.set_memory_growth(gpu, True)


def test_threading_counts_reach_new_sessions():
    threading = tf.config.threading
    # recorded: both 0 by default; set then get gives the value (-1 too)
    assert threading.get_intra_op_parallelism_threads() == 0
    assert threading.get_inter_op_parallelism_threads() == 0
    assert tf.Session().options.threads is None  # chosen by timing (TF_DETERMINISTIC_OPS unset)
    threading.set_intra_op_parallelism_threads(1)
    threading.set_inter_op_parallelism_threads(2)
    assert threading.get_intra_op_parallelism_threads() == 1
    assert threading.get_inter_op_parallelism_threads() == 2
    sess = tf.Session()
    assert sess.options.threads == 1
    assert sess.run(tf.constant(2.0) * 3) == 6.0
    # a ConfigProto replaces the defaults, as TensorFlow's replaces its context's
    assert tf.Session(config=tf.ConfigProto()).options.threads is None
    assert tf.Session(config=tf.ConfigProto(intra_op_parallelism_threads=2)).options.threads == 2
    threading.set_intra_op_parallelism_threads(-1)
    assert threading.get_intra_op_parallelism_threads() == -1
    assert tf.Session().options.threads is None
    with pytest.raises(TypeError, match="num_threads must be an int"):
        threading.set_intra_op_parallelism_threads("x")
    assert threading.get_intra_op_parallelism_threads() == -1


def test_version_and_logger():
    assert (tf.version.VERSION, tf.version.GIT_VERSION, tf.version.COMPILER_VERSION) == (
        tf.VERSION, tf.GIT_VERSION, tf.COMPILER_VERSION)
    assert tf.VERSION == tf.__version__  # TinyFlow's own version, not TensorFlow's
    assert tf.get_logger() is logging.getLogger("tensorflow")
    assert tf.get_logger() is tf.logging.get_logger()
    with pytest.raises(AttributeError, match="tf.version.GRAPH_DEF_VERSION is not supported"):
        tf.version.GRAPH_DEF_VERSION  # noqa: B018
    with pytest.raises(AttributeError, match="tf.config.optimizer is not supported"):
        tf.config.optimizer  # noqa: B018
    with pytest.raises(AttributeError, match="tf.config.threading.foo is not supported"):
        tf.config.threading.foo  # noqa: B018


# recorded from TensorFlow: string -> (to_string, job, replica, task, device_type, device_index)
PARSED = {
    "/job:ps/replica:0/task:1/device:GPU:2": (
        "/job:ps/replica:0/task:1/device:GPU:2", "ps", 0, 1, "GPU", 2),
    "/cpu:0": ("/device:CPU:0", None, None, None, "CPU", 0),
    "/device:CPU:*": ("/device:CPU:*", None, None, None, "CPU", None),
    "/job:worker/gpu:3": ("/job:worker/device:GPU:3", "worker", None, None, "GPU", 3),
    "": ("", None, None, None, None, None),
    "/task:2": ("/task:2", None, None, 2, None, None),
    "/replica:1/device:gpu:1": ("/replica:1/device:GPU:1", None, 1, None, "GPU", 1),
    "/GPU:0": ("/device:GPU:0", None, None, None, "GPU", 0),
    "/job:a/task:1/CPU:0": ("/job:a/task:1/device:CPU:0", "a", None, 1, "CPU", 0),
    "/job:a/job:b": ("/job:b", "b", None, None, None, None),
    "/job:a/device:FOO:1": ("/job:a/device:FOO:1", "a", None, None, "FOO", 1),
    "//job:a//": ("/job:a", "a", None, None, None, None),
}


@pytest.mark.parametrize("spec", list(PARSED))
def test_device_spec_from_string(spec):
    parsed = tf.DeviceSpec.from_string(spec)
    assert (parsed.to_string(), parsed.job, parsed.replica, parsed.task, parsed.device_type,
            parsed.device_index) == PARSED[spec]


@pytest.mark.parametrize("spec, message", [
    ("/foo:1", ("Unknown attribute 'foo' is encountered while parsing the device spec: "
               "'/foo:1'.")),
    ("garbage", "Unknown attribute 'garbage'"),
    ("/job:a:b", "Unknown attribute 'job'"),
    ("/device:GPU:x", "invalid literal for int"),
    ("/task:x", "invalid literal for int"),
    ("/cpu:0/gpu:1", ("Multiple device types are not allowed while parsing the device spec: "
                     "/cpu:0/gpu:1.")),
])
def test_device_spec_errors(spec, message):
    with pytest.raises(ValueError, match=message.replace("*", r"\*").replace(".", r"\.")):
        tf.DeviceSpec.from_string(spec)


def test_device_spec_merge_and_fields():
    spec = tf.DeviceSpec(job="ps", device_type="CPU", device_index=0)
    other = tf.DeviceSpec(task=2, device_type="GPU", device_index=1)
    # recorded: /job:ps/device:CPU:0, merged /job:ps/task:2/device:GPU:1 (merge_from too)
    assert spec.to_string() == "/job:ps/device:CPU:0"
    assert spec.make_merged_spec(other).to_string() == "/job:ps/task:2/device:GPU:1"
    assert spec.to_string() == "/job:ps/device:CPU:0"
    spec.merge_from(other)
    assert spec.to_string() == "/job:ps/task:2/device:GPU:1"
    spec = tf.DeviceSpec.from_string("/job:ps/cpu:0")
    spec.job = "w"
    assert spec.to_string() == "/job:w/device:CPU:0"
    assert repr(spec) == ("<DeviceSpec(job=w, replica=None, task=None, device_type=CPU, "
                          "device_index=0)>")
    assert spec.parse_from_string("/gpu:1") is spec and spec.to_string() == "/device:GPU:1"
    spec.device_index = None
    assert spec.to_string() == "/device:GPU:*"
    assert tf.DeviceSpec(device_type="tpu").to_string() == "/device:tpu:*"
    assert tf.DeviceSpec(task="3").task == 3
    assert tf.DeviceSpec(replica=0, task=0).to_string() == "/replica:0/task:0"
    assert tf.DeviceSpec.from_string("/job:a").replace(task=3).to_string() == "/job:a/task:3"
    assert tf.DeviceSpec(job="a") == tf.DeviceSpec.from_string("/job:a")
    assert tf.DeviceSpec(job="a") != "/job:a"
    assert hash(tf.DeviceSpec(job="a")) == hash(tf.DeviceSpec.from_string("/job:a"))
    with pytest.raises(ValueError, match="invalid literal"):
        tf.DeviceSpec(task="x")


def test_device_scope_takes_a_device_spec():
    with tf.Graph().as_default(), tf.device(tf.DeviceSpec(job="ps", device_type="CPU")):
        value = tf.constant([1.0, 2.0]) * 2
        assert np.array_equal(tf.Session().run(value), [2.0, 4.0])
