"""``tf.logging``: TensorFlow 1.x's logging functions, on Python's :mod:`logging`.

Messages go to the ``"tensorflow"`` logger, as in TensorFlow, so ``tf.logging.info("step %d",
step)`` prints ``INFO:tensorflow:step 10`` once ``tf.logging.set_verbosity(tf.logging.INFO)``
lets it through (the default threshold is Python's, WARN).  As TensorFlow does, the logger gets
a handler of its own (stderr; stdout with level INFO in an interactive session) only when the
root logger has none, so programs that configure :mod:`logging` themselves do not log twice.

:func:`log_every_n` and :func:`log_first_n` count calls per line of the caller's source in
:data:`CALL_COUNTS`; ``CALL_COUNTS.reset()`` starts the counts again (for tests).
"""
from __future__ import annotations

import logging as _logging
import sys

__all__ = [
    "CALL_COUNTS",
    "DEBUG",
    "ERROR",
    "FATAL",
    "INFO",
    "WARN",
    "CallCounts",
    "debug",
    "error",
    "fatal",
    "get_logger",
    "get_verbosity",
    "info",
    "log",
    "log_every_n",
    "log_first_n",
    "log_if",
    "set_verbosity",
    "vlog",
    "warn",
    "warning",
]

DEBUG = _logging.DEBUG
INFO = _logging.INFO
WARN = _logging.WARNING
ERROR = _logging.ERROR
FATAL = _logging.CRITICAL

#: The logger's name: TensorFlow's, so its messages read the same.
LOGGER_NAME = "tensorflow"
# Levels of stack between the user's call and Logger.log: the user, the tf.logging function,
# _log.  Passed as stacklevel so records carry the user's file and line.
_USER_FRAME = 3


class _ConsoleHandler(_logging.StreamHandler):
    """Writes to the current ``sys.stderr`` (or ``sys.stdout``), following later redirections."""

    def __init__(self, to_stdout: bool) -> None:
        self._to_stdout = to_stdout
        super().__init__()
        self.setFormatter(_logging.Formatter(_logging.BASIC_FORMAT))

    @property
    def stream(self):
        """The stream written to: whatever ``sys.stdout``/``sys.stderr`` is now."""
        return sys.stdout if self._to_stdout else sys.stderr

    @stream.setter
    def stream(self, value) -> None:
        pass  # StreamHandler.__init__ sets it; the property decides


class CallCounts:
    """How many times each call site (file, line) has asked to log, for ``log_every_n``."""

    def __init__(self) -> None:
        self._counts: dict[tuple[str, int], int] = {}

    def next(self, depth: int) -> int:
        """Count a call from the frame ``depth`` levels above the caller; return the count
        before this call (0 the first time)."""
        frame = sys._getframe(depth + 1)
        site = (frame.f_code.co_filename, frame.f_lineno)
        count = self._counts.get(site, 0)
        self._counts[site] = count + 1
        return count

    def reset(self) -> None:
        """Forget every count."""
        self._counts.clear()


#: The process's call counts for :func:`log_every_n` and :func:`log_first_n`.
CALL_COUNTS = CallCounts()


def get_logger() -> _logging.Logger:
    """Return the ``"tensorflow"`` logger, giving it a console handler if nothing logs yet.

    Returns
    -------
    logging.Logger
        The logger every ``tf.logging`` function writes to.
    """
    logger = _logging.getLogger(LOGGER_NAME)
    if not _logging.getLogger().handlers and not any(
            isinstance(handler, _ConsoleHandler) for handler in logger.handlers):
        interactive = hasattr(sys, "ps1") or bool(sys.flags.interactive)
        if interactive:
            logger.setLevel(INFO)
        logger.addHandler(_ConsoleHandler(to_stdout=interactive))
    return logger


def _log(level: int, msg: object, args: tuple, kwargs: dict, depth: int = 0) -> None:
    kwargs.setdefault("stacklevel", _USER_FRAME + depth)
    get_logger().log(level, msg, *args, **kwargs)


def log(level: int, msg: object, *args: object, **kwargs: object) -> None:
    """Log ``msg % args`` at ``level`` (``logging.Logger.log``'s arguments)."""
    _log(level, msg, args, kwargs)


def vlog(level: int, msg: object, *args: object, **kwargs: object) -> None:
    """Log ``msg % args`` at ``level``: TensorFlow's verbose log is a plain one."""
    _log(level, msg, args, kwargs)


def debug(msg: object, *args: object, **kwargs: object) -> None:
    """Log ``msg % args`` at DEBUG."""
    _log(DEBUG, msg, args, kwargs)


def info(msg: object, *args: object, **kwargs: object) -> None:
    """Log ``msg % args`` at INFO."""
    _log(INFO, msg, args, kwargs)


def warning(msg: object, *args: object, **kwargs: object) -> None:
    """Log ``msg % args`` at WARN."""
    _log(WARN, msg, args, kwargs)


#: TensorFlow's other name for :func:`warning`.
warn = warning


def error(msg: object, *args: object, **kwargs: object) -> None:
    """Log ``msg % args`` at ERROR."""
    _log(ERROR, msg, args, kwargs)


def fatal(msg: object, *args: object, **kwargs: object) -> None:
    """Log ``msg % args`` at FATAL; as in TensorFlow, the program goes on."""
    _log(FATAL, msg, args, kwargs)


def log_if(level: int, msg: object, condition: object, *args: object) -> None:
    """Log ``msg % args`` at ``level`` if ``condition`` holds."""
    if condition:
        _log(level, msg, args, {})


def log_every_n(level: int, msg: object, n: int, *args: object) -> None:
    """Log ``msg % args`` at ``level`` on the 1st, (n+1)th, (2n+1)th... call from this line.

    Parameters
    ----------
    level : int
        ``DEBUG``, ``INFO``...
    msg : object
        The message, a ``%`` format of ``args``.
    n : int
        Log one call in ``n``, counting from the first.
    *args : object
        The format's arguments.
    """
    if not CALL_COUNTS.next(depth=1) % n:
        _log(level, msg, args, {})


def log_first_n(level: int, msg: object, n: int, *args: object) -> None:
    """Log ``msg % args`` at ``level`` on the first ``n`` calls from this line only:
    :func:`log_every_n`'s parameters."""
    if CALL_COUNTS.next(depth=1) < n:
        _log(level, msg, args, {})


def get_verbosity() -> int:
    """Return the level below which messages are dropped (the logger's effective level)."""
    return get_logger().getEffectiveLevel()


def set_verbosity(level: int) -> None:
    """Drop messages below ``level`` (``tf.logging.INFO`` shows INFO and above)."""
    get_logger().setLevel(level)
