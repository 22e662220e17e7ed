"""``tf.flags`` (also ``tf.app.flags``): TensorFlow 1.x's command-line flags, as absl made them.

A program declares flags at module level and reads them from :data:`FLAGS`::

    flags = tf.app.flags
    flags.DEFINE_integer("batch_size", 100, "examples per step")
    flags.DEFINE_boolean("fake_data", False, "use fake data")
    FLAGS = flags.FLAGS

    def main(argv):
        print(FLAGS.batch_size)

    tf.app.run()

Flags are parsed by :func:`tinyflow.app.run`, by calling ``FLAGS(argv)``, or, as TensorFlow's
wrapper did, from ``sys.argv`` on the first read of a flag's value.  The command line takes
``--name=value``, ``--name value`` (not for booleans), ``--name``/``--noname`` for booleans and
one leading dash instead of two; ``--`` ends the flags.  Flags and other arguments may be mixed
(GNU style); the other arguments are returned after the program name.  An undefined flag is an
:class:`UnrecognizedFlagError` unless parsing with ``known_only=True`` (what ``tf.app.run``
does), which hands it on to ``main`` instead.  A value that does not convert is an
:class:`IllegalFlagValueError` naming the flag: ``flag --steps=ten: invalid literal...``.

:data:`FLAGS` is process-wide, as in TensorFlow; tests start from a clean slate with
``FLAGS.reset()``, which removes every flag and forgets the parse.
"""
from __future__ import annotations

import functools
import sys
from collections.abc import Callable, Iterator, Sequence

__all__ = [
    "FLAGS",
    "DEFINE_bool",
    "DEFINE_boolean",
    "DEFINE_enum",
    "DEFINE_float",
    "DEFINE_integer",
    "DEFINE_list",
    "DEFINE_string",
    "DuplicateFlagError",
    "Error",
    "Flag",
    "FlagValues",
    "IllegalFlagValueError",
    "UnrecognizedFlagError",
]


class Error(Exception):
    """Any error of the flags module (absl's ``flags.Error``)."""


class IllegalFlagValueError(Error):
    """A flag's value (from the command line, a default or an assignment) does not convert."""


class UnrecognizedFlagError(Error):
    """The command line (or an assignment) names a flag nobody defined."""


class DuplicateFlagError(Error):
    """A flag is defined twice (other than by the same module imported again)."""


# ---------------------------------------------------------------------------
# Converters: a value from the command line (a string) or from Python to the flag's type


def _to_string(value: object) -> str:
    return value if isinstance(value, str) else str(value)


def _to_bool(value: object) -> bool:
    if isinstance(value, str):
        if value.lower() in ("true", "t", "1"):
            return True
        if value.lower() in ("false", "f", "0"):
            return False
    elif isinstance(value, int) and value in (0, 1):
        return bool(value)
    raise ValueError("Non-boolean argument to boolean flag")


def _to_int(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise TypeError(f"expected an integer, got {value!r}")
    if isinstance(value, int):
        return value
    base = 10
    # absl reads 0x.. as hexadecimal and 0o.. as octal
    if len(value) > 2 and value[0] == "0" and value[1] in "xXoO":
        base = 16 if value[1] in "xX" else 8
    return int(value, base)


def _to_float(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise TypeError(f"expected a number, got {value!r}")
    return float(value)


def _to_list(value: object) -> list[str]:
    if isinstance(value, str):
        return [item.strip() for item in value.split(",")] if value.strip() else []
    return [_to_string(item) for item in value]


def _bounded(convert: Callable[[object], object], lower: object,
             upper: object) -> Callable[[object], object]:
    """``convert`` followed by a check that the result lies in [lower, upper]."""
    if lower is None and upper is None:
        return convert

    def bounded(value: object) -> object:
        result = convert(value)
        if lower is not None and result < lower:
            raise ValueError(f"{result} is not >= {lower}")
        if upper is not None and result > upper:
            raise ValueError(f"{result} is not <= {upper}")
        return result
    return bounded


def _one_of(choices: Sequence[str]) -> Callable[[object], str]:
    def choose(value: object) -> str:
        if value not in choices:
            raise ValueError(f"value should be one of <{'|'.join(choices)}>")
        return value
    return choose


# ---------------------------------------------------------------------------
# Flags and the registry


class Flag:
    """One flag: its name, help, converter, default and current value.

    Parameters
    ----------
    name : str
        The name on the command line (``--name``) and the attribute of :data:`FLAGS`.
    default : object
        The value before parsing; a string is converted as a command-line value would be,
        None stays None.
    help : str
        One line of help for ``--help``.
    convert : callable
        Turns a command-line string (or a Python value) into the flag's value; raises
        ValueError or TypeError for a bad one.
    boolean : bool, optional
        Whether the flag is a switch (``--name``, ``--noname``).
    module_name : str, optional
        The module that defined the flag, for ``--help`` and duplicate checks.

    Attributes
    ----------
    value : object
        The current value.
    present : int
        How many times the command line gave the flag.
    using_default_value : bool
        Whether ``value`` is still the default.
    """

    def __init__(self, name: str, default: object, help: str,
                 convert: Callable[[object], object], *, boolean: bool = False,
                 module_name: str = "__main__") -> None:
        self.name = name
        self.help = help
        self.boolean = boolean
        self.module_name = module_name
        self._convert = convert
        self.default = None if default is None else self.convert(default)
        self.value = self.default
        self.present = 0
        self.using_default_value = True

    def convert(self, value: object) -> object:
        """Return ``value`` as the flag's type.

        Raises
        ------
        IllegalFlagValueError
            Naming the flag and the value, if it does not convert.
        """
        try:
            return self._convert(value)
        except (TypeError, ValueError) as exc:
            raise IllegalFlagValueError(f"flag --{self.name}={value}: {exc}") from None

    def parse(self, value: object) -> None:
        """Set the flag from a command-line value, as ``--name=value`` does."""
        self.value = self.convert(value)
        self.present += 1
        self.using_default_value = False

    def help_text(self) -> str:
        """The flag's lines in ``--help``: ``--name: help`` and its default."""
        name = f"--[no]{self.name}" if self.boolean else f"--{self.name}"
        default = self.default
        if isinstance(default, bool):
            default = str(default).lower()
        elif isinstance(default, list):
            default = ",".join(default)
        return f"  {name}: {self.help}\n    (default: {default!r})"

    def __repr__(self) -> str:
        return f"Flag(--{self.name}={self.value!r})"


def _defining_module() -> tuple[str, int]:
    """The name and globals' id of the first caller outside this module."""
    frame = sys._getframe(1)
    while frame.f_back is not None and frame.f_globals.get("__name__") == __name__:
        frame = frame.f_back
    return frame.f_globals.get("__name__", "__main__"), id(frame.f_globals)


class FlagValues:
    """The registry of flags and their values (:data:`FLAGS` is the process's one).

    A flag's value is its attribute: ``FLAGS.batch_size``; ``FLAGS["batch_size"]`` is the
    :class:`Flag`.  Reading an attribute before any parse parses ``sys.argv`` first, as
    TensorFlow 1.x's ``FLAGS`` did.
    """

    def __init__(self) -> None:
        # object.__setattr__: our own __setattr__ sets flag values
        object.__setattr__(self, "_registry", {})
        object.__setattr__(self, "_modules", {})
        object.__setattr__(self, "_parsed", False)

    def reset(self) -> None:
        """Remove every flag and forget the parse: a clean slate, for tests."""
        self._registry.clear()
        self._modules.clear()
        object.__setattr__(self, "_parsed", False)

    def define(self, flag: Flag, module: tuple[str, int] | None = None) -> Flag:
        """Register ``flag`` (what the ``DEFINE_*`` functions do) and return it.

        Parameters
        ----------
        flag : Flag
            The new flag.
        module : tuple of (str, int), optional
            The defining module's name and globals' id; by default the caller's.

        Raises
        ------
        DuplicateFlagError
            If a flag of that name exists, unless it came from the same module imported
            again (absl's rule), in which case the first definition stays.
        """
        module_name, module_id = module or _defining_module()
        old = self._registry.get(flag.name)
        if old is not None:
            old_name, old_id = self._modules[flag.name]
            if old_name == module_name and old_id != module_id:
                return old
            raise DuplicateFlagError(
                f"The flag '{flag.name}' is defined twice. First from {old_name}, Second from "
                f"{module_name}.  Description from first occurrence: {old.help}")
        flag.module_name = module_name
        self._registry[flag.name] = flag
        self._modules[flag.name] = (module_name, module_id)
        return flag

    def __call__(self, argv: Sequence[str], known_only: bool = False) -> list[str]:
        """Parse the flags in ``argv`` (program name first) and return the other arguments.

        Parameters
        ----------
        argv : sequence of str
            The command line, ``sys.argv`` style.
        known_only : bool, optional
            Hand undefined flags on (in the result) instead of raising.

        Returns
        -------
        list of str
            The program name, then every argument that was not a known flag, in order.

        Raises
        ------
        UnrecognizedFlagError
            For an undefined flag, unless ``known_only``.
        IllegalFlagValueError
            For a value that does not convert, or a flag missing its value.
        """
        if isinstance(argv, str) or not argv:
            raise TypeError("argv must be a non-empty list of strings, program name first")
        args = list(argv[1:])
        rest, unknown = [], []
        while args:
            arg = args.pop(0)
            if arg == "--":
                rest += args
                break
            if not arg.startswith("-") or arg == "-":
                rest.append(arg)
            elif not self._parse_one(arg, args):
                (rest if known_only else unknown).append(arg)
        if unknown:
            name = unknown[0].lstrip("-").partition("=")[0]
            raise UnrecognizedFlagError(f"Unknown command line flag '{name}'")
        object.__setattr__(self, "_parsed", True)
        return [argv[0], *rest]

    def _parse_one(self, arg: str, args: list[str]) -> bool:
        """Apply one ``--name[=value]`` (taking its value from ``args`` if needed); return
        False if no flag has that name."""
        name, has_value, value = arg[2 if arg.startswith("--") else 1:].partition("=")
        flag = self._registry.get(name)
        if flag is None and name.startswith("no") and not has_value:
            negated = self._registry.get(name[2:])
            if negated is not None and negated.boolean:
                negated.parse("false")
                return True
        if flag is None:
            return False
        if flag.boolean and not has_value:
            value = "true"
        elif not has_value:
            if not args:
                raise IllegalFlagValueError(f"flag --{name}: missing value")
            value = args.pop(0)
        flag.parse(value)
        return True

    def is_parsed(self) -> bool:
        """Whether the command line has been parsed."""
        return self._parsed

    def mark_as_parsed(self) -> None:
        """Take the flags as parsed: their values are read as they are, ``sys.argv`` unread."""
        object.__setattr__(self, "_parsed", True)

    def unparse_flags(self) -> None:
        """Put every flag back to its default and forget the parse (absl's)."""
        for flag in self._registry.values():
            flag.value, flag.present, flag.using_default_value = flag.default, 0, True
        object.__setattr__(self, "_parsed", False)

    def flag_values_dict(self) -> dict[str, object]:
        """``{name: value}`` of every flag."""
        return {name: flag.value for name, flag in self._registry.items()}

    def set_default(self, name: str, value: object) -> None:
        """Change a flag's default (and its value, if the command line did not set it)."""
        flag = self[name]
        flag.default = None if value is None else flag.convert(value)
        if flag.using_default_value:
            flag.value = flag.default

    def get_help(self, main_module_only: bool = False) -> str:
        """The flags' help, grouped by the module that defined them.

        Parameters
        ----------
        main_module_only : bool, optional
            Only the flags the ``__main__`` module defined (``--helpshort``), when it
            defined any.
        """
        by_module = {}
        for flag in self._registry.values():
            by_module.setdefault(flag.module_name, []).append(flag)
        if main_module_only and "__main__" in by_module:
            by_module = {"__main__": by_module["__main__"]}
        return "\n\n".join(f"{module}:\n" + "\n".join(flag.help_text() for flag in flags)
                           for module, flags in by_module.items())

    def __getitem__(self, name: str) -> Flag:
        try:
            return self._registry[name]
        except KeyError:
            raise KeyError(f"no flag named {name!r}") from None

    def __contains__(self, name: object) -> bool:
        return name in self._registry

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._registry))

    def __len__(self) -> int:
        return len(self._registry)

    def __getattr__(self, name: str) -> object:
        if name.startswith("__") or "_registry" not in vars(self):
            raise AttributeError(name)
        if not self._parsed:
            self(sys.argv)
        if name not in self._registry:
            raise AttributeError(name)
        return self._registry[name].value

    def __setattr__(self, name: str, value: object) -> None:
        if name not in self._registry:
            raise UnrecognizedFlagError(f"Unknown command line flag '{name}'")
        flag = self._registry[name]
        flag.value, flag.using_default_value = value, False

    def __delattr__(self, name: str) -> None:
        if name not in self._registry:
            raise AttributeError(name)
        del self._registry[name], self._modules[name]


#: The process's flags, as ``tf.app.flags.FLAGS``.
FLAGS = FlagValues()


def _accept_tf_argument_names(define: Callable[..., Flag]) -> Callable[..., Flag]:
    """Let ``define`` take TensorFlow's older keywords: flag_name, default_value, docstring."""
    renamed = {"flag_name": "name", "default_value": "default", "docstring": "help"}

    @functools.wraps(define)
    def wrapper(*args: object, **kwargs: object) -> Flag:
        for old, new in renamed.items():
            if old in kwargs:
                kwargs[new] = kwargs.pop(old)
        return define(*args, **kwargs)
    return wrapper


def _define(flag_values: FlagValues | None, flag: Flag) -> Flag:
    return (FLAGS if flag_values is None else flag_values).define(flag)


@_accept_tf_argument_names
def DEFINE_string(name: str, default: str | None, help: str,
                  flag_values: FlagValues | None = None) -> Flag:
    """Define a string flag.

    Parameters
    ----------
    name : str
        The flag's name (``--name``).
    default : str or None
        Its value unless the command line gives one.
    help : str
        Its line in ``--help``.
    flag_values : FlagValues, optional
        The registry; :data:`FLAGS` by default.

    Returns
    -------
    Flag
        The new flag (its ``value`` is the flag's value).
    """
    return _define(flag_values, Flag(name, default, help, _to_string))


@_accept_tf_argument_names
def DEFINE_integer(name: str, default: int | str | None, help: str,
                   lower_bound: int | None = None, upper_bound: int | None = None,
                   flag_values: FlagValues | None = None) -> Flag:
    """Define an integer flag: :func:`DEFINE_string`'s parameters, plus ``lower_bound`` and
    ``upper_bound`` (inclusive, optional) that a value must respect.  ``0x..`` is read as
    hexadecimal and ``0o..`` as octal."""
    return _define(flag_values, Flag(name, default, help,
                                     _bounded(_to_int, lower_bound, upper_bound)))


@_accept_tf_argument_names
def DEFINE_float(name: str, default: float | str | None, help: str,
                 lower_bound: float | None = None, upper_bound: float | None = None,
                 flag_values: FlagValues | None = None) -> Flag:
    """Define a floating-point flag: :func:`DEFINE_integer`'s parameters."""
    return _define(flag_values, Flag(name, default, help,
                                     _bounded(_to_float, lower_bound, upper_bound)))


@_accept_tf_argument_names
def DEFINE_boolean(name: str, default: bool | str | None, help: str,
                   flag_values: FlagValues | None = None) -> Flag:
    """Define a boolean flag: :func:`DEFINE_string`'s parameters.  The command line sets it
    with ``--name`` or ``--name=true`` (``t``, ``1``) and clears it with ``--noname`` or
    ``--name=false`` (``f``, ``0``), in any case."""
    return _define(flag_values, Flag(name, default, help, _to_bool, boolean=True))


#: absl's other name for :func:`DEFINE_boolean`.
DEFINE_bool = DEFINE_boolean


@_accept_tf_argument_names
def DEFINE_enum(name: str, default: str | None, enum_values: Sequence[str],
                help: str, flag_values: FlagValues | None = None) -> Flag:
    """Define a string flag whose value must be one of ``enum_values``: otherwise
    :func:`DEFINE_string`'s parameters."""
    return _define(flag_values, Flag(name, default, help, _one_of(tuple(enum_values))))


@_accept_tf_argument_names
def DEFINE_list(name: str, default: Sequence[str] | str | None, help: str,
                flag_values: FlagValues | None = None) -> Flag:
    """Define a flag holding a list of strings, given comma-separated (``--gpus=0,1``):
    otherwise :func:`DEFINE_string`'s parameters."""
    return _define(flag_values, Flag(name, default, help, _to_list))
