"""``tf.app``: TensorFlow 1.x's program entry point, :func:`run`, and its :mod:`flags`.

``tf.app.run()`` parses the flags on the command line into ``tf.app.flags.FLAGS``, calls
``main`` with the rest of the arguments and exits with what it returns, as TensorFlow 1.15 did
through absl: undefined flags are not an error but handed to ``main``; ``--help`` (also
``--helpshort``) prints the main module's docstring and flags, ``--helpfull`` every flag, and
exits with status 1.
"""
from __future__ import annotations

import sys
from collections.abc import Callable, Sequence

from . import flags

__all__ = ["flags", "run", "usage"]


def usage(shorthelp: bool = False, stream=None) -> None:
    """Write the ``__main__`` module's docstring and the flags' help, as absl's ``--help``.

    Parameters
    ----------
    shorthelp : bool, optional
        Only the flags the ``__main__`` module defined.
    stream : file, optional
        Where to write; ``sys.stdout`` by default.
    """
    stream = sys.stdout if stream is None else stream
    program = sys.argv[0] if sys.argv else "program"
    main_module = sys.modules.get("__main__")
    doc = getattr(main_module, "__doc__", None) or f"\nUSAGE: {program} [flags]\n"
    if "%s" in doc:
        try:
            doc %= (program,) * (doc.count("%") - 2 * doc.count("%%"))
        except (TypeError, ValueError):
            pass  # a docstring that is no format string is shown as it is
    stream.write(doc)
    flag_help = flags.FLAGS.get_help(main_module_only=shorthelp)
    if flag_help:
        stream.write("\nflags:\n\n" + flag_help + "\n")


def _help_converter(shorthelp: bool) -> Callable[[object], bool]:
    """A boolean flag's converter that, when the flag is set, prints the usage and exits."""
    def show_help(value: object) -> bool:
        if value is True or str(value).lower() in ("true", "t", "1"):
            usage(shorthelp=shorthelp)
            if shorthelp:
                print("\nTry --helpfull to get a list of all flags.")
            sys.exit(1)
        return False
    return show_help


def _define_help_flags() -> None:
    """Define --help, --helpshort and --helpfull, unless a program defined them itself."""
    for name, shorthelp, text in (("help", True, "show this help"),
                                  ("helpshort", True, "show this help"),
                                  ("helpfull", False, "show full help")):
        if name not in flags.FLAGS:
            flags.FLAGS.define(flags.Flag(name, False, text, _help_converter(shorthelp),
                                          boolean=True), module=(__name__, id(globals())))


def run(main: Callable[[list[str]], object] | None = None,
        argv: Sequence[str] | None = None) -> None:
    """Parse the command line's flags, call ``main(argv)`` and exit with its return value.

    Parameters
    ----------
    main : callable, optional
        Takes the arguments left after parsing (program name first, then undefined flags and
        positional arguments); its return value goes to ``sys.exit`` (None or 0 is success).
        By default the ``main`` function of the ``__main__`` module.
    argv : sequence of str, optional
        The command line, program name first; ``sys.argv`` by default.

    Raises
    ------
    SystemExit
        Always: with ``main``'s return value, or 1 after ``--help``.
    tinyflow.flags.IllegalFlagValueError
        If a flag's value does not convert (the message names the flag).
    """
    if main is None:
        main = sys.modules["__main__"].main
    _define_help_flags()
    remaining = flags.FLAGS(sys.argv if argv is None else argv, known_only=True)
    sys.exit(main(remaining))
