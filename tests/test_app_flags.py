"""tf.app.run, tf.app.flags / tf.flags and tf.logging, against TensorFlow 1.15's (absl's) rules."""
import logging
import subprocess
import sys
import textwrap

import pytest

import tinyflow as tf
from tinyflow.frontend import app, flags, tf_logging

FLAGS = flags.FLAGS


@pytest.fixture(autouse=True)
def fresh_flags():
    """Every test starts with no flags defined and nothing parsed, and leaves it so."""
    FLAGS.reset()
    yield
    FLAGS.reset()


@pytest.fixture
def tf_logger():
    """The "tensorflow" logger, its level and the log_every_n counts restored afterwards."""
    logger = logging.getLogger(tf_logging.LOGGER_NAME)
    level = logger.level
    tf_logging.CALL_COUNTS.reset()
    yield logger
    logger.setLevel(level)
    tf_logging.CALL_COUNTS.reset()


def define_common():
    flags.DEFINE_string("data_dir", "/tmp/data", "where the data is")
    flags.DEFINE_integer("steps", 100, "training steps")
    flags.DEFINE_float("learning_rate", 0.01, "step size")
    flags.DEFINE_boolean("fake_data", False, "use fake data")
    flags.DEFINE_bool("verbose", True, "talk")


def run_script(tmp_path, source, *args):
    script = tmp_path / "program.py"
    script.write_text(textwrap.dedent(source))
    return subprocess.run([sys.executable, str(script), *args], capture_output=True, text=True,
                          timeout=60, check=False)


# ---------------------------------------------------------------------------
# The modules as TensorFlow exposes them


def test_tf_exposes_app_flags_and_logging():
    assert tf.app.flags is tf.flags is flags
    assert tf.app.flags.FLAGS is tf.flags.FLAGS is FLAGS
    assert tf.logging is tf_logging
    assert tf.app.run is app.run
    assert {"app", "flags", "logging"} <= set(tf.__all__)


def test_import_tinyflow_loads_none_of_them():
    code = ("import sys, tinyflow; print(sorted(m for m in ('tinyflow.frontend.app', "
            "'tinyflow.frontend.flags', 'tinyflow.frontend.tf_logging', 'tinyflow.examples') "
            "if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=60, check=True).stdout
    assert out.strip() == "[]"


# ---------------------------------------------------------------------------
# Flags


def test_defaults_and_types():
    define_common()
    flags.DEFINE_enum("optimizer", "sgd", ["sgd", "adam"], "which optimizer")
    flags.DEFINE_list("layers", "128,64", "hidden sizes")
    flags.DEFINE_string("nothing", None, "no default")
    assert FLAGS(["prog"]) == ["prog"]
    assert FLAGS.data_dir == "/tmp/data"
    assert FLAGS.steps == 100 and isinstance(FLAGS.steps, int)
    assert FLAGS.learning_rate == 0.01 and isinstance(FLAGS.learning_rate, float)
    assert FLAGS.fake_data is False and FLAGS.verbose is True
    assert FLAGS.optimizer == "sgd"
    assert FLAGS.layers == ["128", "64"]
    assert FLAGS.nothing is None
    assert FLAGS["steps"].using_default_value


def test_string_defaults_are_converted():
    flags.DEFINE_integer("steps", "0x10", "hexadecimal, as absl reads it")
    flags.DEFINE_float("rate", "1e-3", "a string default")
    flags.DEFINE_boolean("on", "true", "a string default")
    FLAGS.mark_as_parsed()
    assert (FLAGS.steps, FLAGS.rate, FLAGS.on) == (16, 0.001, True)


def test_command_line_forms():
    define_common()
    rest = FLAGS(["prog", "--data_dir=/data", "--steps", "7", "-learning_rate=0.5",
                  "input.txt", "--fake_data", "--noverbose", "-", "--", "--steps=9", "x"])
    assert rest == ["prog", "input.txt", "-", "--steps=9", "x"]
    assert FLAGS.data_dir == "/data"
    assert FLAGS.steps == 7
    assert FLAGS.learning_rate == 0.5
    assert FLAGS.fake_data is True and FLAGS.verbose is False
    assert FLAGS["steps"].present == 1 and not FLAGS["steps"].using_default_value


@pytest.mark.parametrize(("text", "expected"), [
    ("true", True), ("True", True), ("t", True), ("1", True),
    ("false", False), ("FALSE", False), ("f", False), ("0", False)])
def test_boolean_values(text, expected):
    flags.DEFINE_boolean("flag", not expected, "a switch")
    FLAGS(["prog", f"--flag={text}"])
    assert FLAGS.flag is expected


def test_a_boolean_takes_no_separate_value():
    flags.DEFINE_boolean("flag", False, "a switch")
    assert FLAGS(["prog", "--flag", "false"]) == ["prog", "false"]
    assert FLAGS.flag is True


@pytest.mark.parametrize(("argv", "message"), [
    (["--steps=ten"], "flag --steps=ten: invalid literal for int"),
    (["--steps", "1.5"], "flag --steps=1.5: invalid literal for int"),
    (["--learning_rate=fast"], "flag --learning_rate=fast: could not convert"),
    (["--fake_data=maybe"], "flag --fake_data=maybe: Non-boolean argument"),
    (["--steps"], "flag --steps: missing value"),
])
def test_bad_values_name_the_flag(argv, message):
    define_common()
    with pytest.raises(flags.IllegalFlagValueError, match=message):
        FLAGS(["prog", *argv])


def test_bounds_and_enum_values_are_checked():
    flags.DEFINE_integer("workers", 1, "how many", lower_bound=1, upper_bound=8)
    flags.DEFINE_float("dropout", 0.5, "keep rate", lower_bound=0.0, upper_bound=1.0)
    flags.DEFINE_enum("optimizer", "sgd", ["sgd", "adam"], "which optimizer")
    with pytest.raises(flags.IllegalFlagValueError, match="--workers=0: 0 is not >= 1"):
        FLAGS(["prog", "--workers=0"])
    with pytest.raises(flags.IllegalFlagValueError, match="--dropout=1.5: 1.5 is not <= 1.0"):
        FLAGS(["prog", "--dropout=1.5"])
    with pytest.raises(flags.IllegalFlagValueError, match=r"--optimizer=rms: .*<sgd\|adam>"):
        FLAGS(["prog", "--optimizer=rms"])
    with pytest.raises(flags.IllegalFlagValueError, match="--bad_default=9: 9 is not <= 8"):
        flags.DEFINE_integer("bad_default", 9, "out of range", upper_bound=8)
    FLAGS(["prog", "--workers=8", "--optimizer=adam"])
    assert (FLAGS.workers, FLAGS.optimizer) == (8, "adam")


def test_bad_default_is_an_error_naming_the_flag():
    with pytest.raises(flags.IllegalFlagValueError, match="flag --steps=many"):
        flags.DEFINE_integer("steps", "many", "not a number")


def test_unknown_flags():
    define_common()
    with pytest.raises(flags.UnrecognizedFlagError, match="Unknown command line flag 'epochs'"):
        FLAGS(["prog", "--epochs=3", "--steps=2"])
    assert not FLAGS.is_parsed()
    rest = FLAGS(["prog", "--epochs=3", "--steps=2", "--nofoo", "file"], known_only=True)
    assert rest == ["prog", "--epochs=3", "--nofoo", "file"]
    assert FLAGS.steps == 2


def test_first_read_parses_sys_argv(monkeypatch):
    define_common()
    monkeypatch.setattr(sys, "argv", ["prog", "--steps=5", "--fake_data"])
    assert not FLAGS.is_parsed()
    assert FLAGS.steps == 5
    assert FLAGS.is_parsed() and FLAGS.fake_data is True
    monkeypatch.setattr(sys, "argv", ["prog", "--steps=6"])
    assert FLAGS.steps == 5  # parsed once


def test_first_read_with_an_unknown_flag_fails_as_in_tf(monkeypatch):
    define_common()
    monkeypatch.setattr(sys, "argv", ["prog", "-f", "kernel.json"])  # Jupyter's argv
    with pytest.raises(flags.UnrecognizedFlagError, match="'f'"):
        _ = FLAGS.steps


def test_missing_attribute_is_an_attribute_error():
    define_common()
    FLAGS.mark_as_parsed()
    assert not hasattr(FLAGS, "epochs")
    assert "steps" in FLAGS and "epochs" not in FLAGS
    assert sorted(FLAGS) == ["data_dir", "fake_data", "learning_rate", "steps", "verbose"]


def test_assignment_dict_and_unparse():
    define_common()
    FLAGS(["prog", "--steps=3"])
    FLAGS.learning_rate = 0.1
    assert FLAGS.flag_values_dict() == {"data_dir": "/tmp/data", "steps": 3,
                                        "learning_rate": 0.1, "fake_data": False,
                                        "verbose": True}
    with pytest.raises(flags.UnrecognizedFlagError):
        FLAGS.epochs = 3
    FLAGS.set_default("data_dir", "/elsewhere")
    assert FLAGS.data_dir == "/elsewhere"
    FLAGS.unparse_flags()
    assert not FLAGS.is_parsed()
    FLAGS.mark_as_parsed()
    assert (FLAGS.steps, FLAGS.learning_rate) == (100, 0.01)


def test_tf_keyword_names_are_accepted():
    flags.DEFINE_string(flag_name="name", default_value="x", docstring="old TF keywords")
    flags.DEFINE_integer(name="count", default=2, help="absl keywords")
    FLAGS.mark_as_parsed()
    assert (FLAGS.name, FLAGS.count) == ("x", 2)
    assert FLAGS["name"].help == "old TF keywords"


def test_defining_twice_is_an_error_until_reset():
    flags.DEFINE_integer("steps", 1, "first")
    with pytest.raises(flags.DuplicateFlagError, match="'steps' is defined twice"):
        flags.DEFINE_integer("steps", 2, "second")
    FLAGS.reset()
    assert len(FLAGS) == 0 and not FLAGS.is_parsed()
    flags.DEFINE_integer("steps", 2, "second")
    FLAGS.mark_as_parsed()
    assert FLAGS.steps == 2


def test_a_private_registry():
    mine = flags.FlagValues()
    flags.DEFINE_integer("steps", 1, "mine only", flag_values=mine)
    assert "steps" in mine and "steps" not in FLAGS
    assert mine(["prog", "--steps=4"]) == ["prog"]
    assert mine.steps == 4


def test_help_text_lists_flags_by_module():
    define_common()
    text = FLAGS.get_help()
    assert f"{__name__}:" in text
    assert "  --steps: training steps\n    (default: 100)" in text
    assert "  --[no]fake_data: use fake data\n    (default: 'false')" in text


# ---------------------------------------------------------------------------
# tf.app.run


def test_run_calls_main_with_the_rest_and_exits_with_its_value():
    define_common()
    seen = []

    def main(argv):
        seen.append((argv, FLAGS.steps))
        return 3

    with pytest.raises(SystemExit) as info:
        tf.app.run(main=main, argv=["prog", "--steps=2", "--unknown=1", "pos"])
    assert info.value.code == 3
    assert seen == [(["prog", "--unknown=1", "pos"], 2)]


def test_run_bad_value_raises_naming_the_flag():
    define_common()
    with pytest.raises(flags.IllegalFlagValueError, match="--learning_rate=x"):
        tf.app.run(main=lambda argv: 0, argv=["prog", "--learning_rate=x"])


PROGRAM = '''\
    """Trains nothing; usage: %s [flags]."""
    import sys

    import tinyflow as tf

    tf.app.flags.DEFINE_integer("steps", 10, "training steps")
    tf.app.flags.DEFINE_boolean("fake_data", False, "use fake data")
    FLAGS = tf.app.flags.FLAGS


    def main(argv):
        print("argv", argv[1:], "steps", FLAGS.steps, "fake", FLAGS.fake_data)
        return FLAGS.steps % 256


    if __name__ == "__main__":
        tf.app.run()
'''


def test_run_in_a_program(tmp_path):
    done = run_script(tmp_path, PROGRAM, "--steps", "7", "--fake_data", "--other", "file")
    assert done.returncode == 7, done.stderr
    assert done.stdout == "argv ['--other', 'file'] steps 7 fake True\n"

    done = run_script(tmp_path, PROGRAM)
    assert done.returncode == 10 and "steps 10 fake False" in done.stdout

    done = run_script(tmp_path, PROGRAM, "--steps=256")
    assert done.returncode == 0, done.stderr


def test_run_help_and_errors_in_a_program(tmp_path):
    done = run_script(tmp_path, PROGRAM, "--help")
    assert done.returncode == 1
    assert done.stdout.startswith("Trains nothing; usage: ")
    assert "program.py [flags]." in done.stdout
    assert "  --steps: training steps\n    (default: 10)" in done.stdout
    assert "--helpfull" in done.stdout and "argv" not in done.stdout

    done = run_script(tmp_path, PROGRAM, "--steps=ten")
    assert done.returncode == 1
    assert "IllegalFlagValueError: flag --steps=ten: invalid literal" in done.stderr


# ---------------------------------------------------------------------------
# tf.logging


def test_levels_are_pythons():
    assert (tf.logging.DEBUG, tf.logging.INFO, tf.logging.WARN, tf.logging.ERROR,
            tf.logging.FATAL) == (10, 20, 30, 40, 50)
    assert tf.logging.warn is tf.logging.warning


def test_verbosity_filters_messages(tf_logger, caplog):
    caplog.set_level(logging.NOTSET)  # the capture takes all; the logger's level decides
    tf.logging.set_verbosity(tf.logging.WARN)
    assert tf.logging.get_verbosity() == tf.logging.WARN
    tf.logging.info("hidden %d", 1)
    tf.logging.warning("shown %d", 2)
    tf.logging.set_verbosity(tf.logging.DEBUG)
    tf.logging.debug("debug %s", "on")
    tf.logging.error("bad")
    tf.logging.fatal("worse")
    tf.logging.log(tf.logging.INFO, "via log")
    tf.logging.vlog(tf.logging.INFO, "via vlog")
    records = [(r.name, r.levelname, r.getMessage()) for r in caplog.records]
    assert records == [("tensorflow", "WARNING", "shown 2"), ("tensorflow", "DEBUG", "debug on"),
                       ("tensorflow", "ERROR", "bad"), ("tensorflow", "CRITICAL", "worse"),
                       ("tensorflow", "INFO", "via log"), ("tensorflow", "INFO", "via vlog")]
    assert {r.filename for r in caplog.records} == {"test_app_flags.py"}  # the caller's line


def test_log_every_n_first_n_and_if(tf_logger, caplog):
    caplog.set_level(logging.NOTSET)
    tf.logging.set_verbosity(tf.logging.INFO)
    for step in range(7):
        tf.logging.log_every_n(tf.logging.INFO, "every %d", 3, step)
        tf.logging.log_first_n(tf.logging.INFO, "first %d", 2, step)
        tf.logging.log_if(tf.logging.INFO, "odd %d", step % 2, step)
    messages = [r.getMessage() for r in caplog.records]
    assert [m for m in messages if m.startswith("every")] == ["every 0", "every 3", "every 6"]
    assert [m for m in messages if m.startswith("first")] == ["first 0", "first 1"]
    assert [m for m in messages if m.startswith("odd")] == ["odd 1", "odd 3", "odd 5"]
    assert {r.filename for r in caplog.records} == {"test_app_flags.py"}


def test_console_output_reads_as_tensorflows(tmp_path):
    done = run_script(tmp_path, '''\
        import tinyflow as tf
        tf.logging.info("not yet")
        tf.logging.set_verbosity(tf.logging.INFO)
        tf.logging.info("step %d", 10)
        tf.logging.warn("careful")
    ''')
    assert done.returncode == 0, done.stderr
    assert done.stderr == "INFO:tensorflow:step 10\nWARNING:tensorflow:careful\n"
    assert done.stdout == ""


def test_no_second_handler_when_the_program_configures_logging(tmp_path):
    done = run_script(tmp_path, '''\
        import logging
        import tinyflow as tf
        logging.basicConfig(format="%(name)s|%(message)s", level=logging.INFO)
        tf.logging.info("once")
    ''')
    assert done.returncode == 0, done.stderr
    assert done.stderr == "tensorflow|once\n"
