r"""What the command line needs of a model, declared by the model: the flag that picks it and how its flags map.

The commands ``theory``, ``simulate``, ``compare`` and ``converge`` solve or simulate the attention model picked by
``--attention MODE`` (the simulator's ``attention=`` mode) or by a flag whose value selects a model (``--weights
FILE``: a real layer's matrix M). Each such model declares a :class:`CommandLine`: the mode or flag that picks it,
whether it fixes f (and, in words, what it fixes), the model arguments read from flags of the same name with their
defaults (``temperature``), the flags only its Monte Carlo reads (``normalize``), the f its theory prints (a
:class:`FixedF`, from a hook imported on first use), whether it takes grids of c, d and the geometry, and how
``symrmt theory`` prints its rows (its ``layout``). :mod:`symrmt.cli` asks :func:`picked` and reads the answer; it
never compares a model's name or mode with a string.

Nothing here imports SymPy or the theory at import time (the command line builds its choices from this table).
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from ..errors import ParameterError, shown
from ..validate import DEFAULT_TEMPERATURE
from .model import get

__all__ = ["CommandLine", "FixedF", "register_command_line", "command_line", "attentions", "default_attention",
           "picking_flags", "picked", "option_flags", "LAYOUTS"]

#: How the commands print a model: ``curves`` (``theory``: E_attn and E_lin per gamma, with f's data; ``latex``: the
#: derived system) or ``matrix`` (``theory``: E_attn and E_lin per gamma of a real layer's weight matrix, with its
#: layer, p and scale; ``latex``: the system in words of M kept symbolic).
LAYOUTS = ("curves", "matrix")


@dataclass(frozen=True)
class FixedF:
    r"""The f a model fixes (its theory solves the entrywise system with these Hermite data), as the commands print it.

    ``options`` are the model arguments that fix it (``{"temperature": 0.5}``); a model's data hook returns a
    subclass that words its own labels (:meth:`describe`, :meth:`label`, :meth:`tex`).
    """

    f: str
    a1: float
    nu: float
    options: Mapping[str, float] = field(default_factory=dict)
    parameters: tuple = ()

    def pair(self) -> tuple[float, float]:
        """``(a_1, nu)``, the Hermite data as the theory takes them."""
        return self.a1, self.nu

    def describe(self) -> str:
        """The table's first words (``f = ...`` where a command with --f prints the formula)."""
        return f"f = {self.f}"

    def label(self) -> str:
        """A short label (plot titles)."""
        return f"f = {self.f}"

    def tex(self) -> str:
        """f in LaTeX, without the dollars of the title around it."""
        return self.f


@dataclass(frozen=True)
class CommandLine:
    """What the command line reads for one registered model (:func:`register_command_line`).

    Attributes
    ----------
    model : str
        The registered model's name.
    attention : str, optional
        The value of ``--attention`` that picks it (the simulator's ``attention=`` mode); the first registered is the
        default.
    fixes : str, optional
        What the model fixes in place of ``--f``, in words (``"f = exp(x/T) and masks the diagonal"``): ``--f``,
        ``--center``, ``--param`` and a nonzero ``--diag`` are then refused; None: it takes ``--f``.
    options : dict of str to float
        The model arguments read from the flag of the same name, with the value a flag left out gives.
    simulator_options : tuple of str
        The flags its Monte Carlo alone reads, handed on where given (``normalize``).
    data : str, optional
        ``"module:function"``: ``data(**options) -> FixedF``, the f its theory prints (with ``fixes``).
    grids : bool
        Whether it takes grids of c, d and the geometry (one output axis each).
    flag : str, optional
        A flag whose value picks the model whatever ``--attention`` says (``weights``).
    layout : str
        How ``symrmt theory`` prints it (:data:`LAYOUTS`).
    """

    model: str
    attention: str | None = None
    fixes: str | None = None
    options: Mapping[str, float] = field(default_factory=dict)
    simulator_options: tuple[str, ...] = ()
    data: str | None = None
    grids: bool = True
    flag: str | None = None
    layout: str = "curves"

    def __post_init__(self) -> None:
        if self.layout not in LAYOUTS:
            raise ParameterError(f"layout = {shown(self.layout)}: use one of {LAYOUTS}.")
        if (self.fixes is None) != (self.data is None):
            raise ParameterError(f"model {shown(self.model)}: give fixes and data together (a model that fixes f says "
                                 "what, and which f its theory prints).")

    @property
    def takes_f(self) -> bool:
        """Whether the model reads ``--f`` (it does not fix f)."""
        return self.fixes is None

    def arguments(self, given: Mapping[str, Any]) -> dict:
        """The model arguments of :attr:`options` from the flags ``given`` (their defaults where a flag is None)."""
        return {name: default if given.get(name) is None else given[name] for name, default in self.options.items()}

    def simulator_keywords(self, given: Mapping[str, Any]) -> dict:
        """``attention=`` and the options for the Monte Carlo (nothing for the default mode, which takes none)."""
        if self.attention is None or (self.attention == default_attention() and not self.options):
            return {}
        extra = {name: given[name] for name in self.simulator_options if given.get(name) is not None}
        return {"attention": self.attention, **self.arguments(given), **extra}

    def fixed_f(self, **options) -> FixedF:
        """The f the model fixes, at ``options`` (its data hook, imported on first use)."""
        if self.data is None:
            raise ParameterError(f"the {self.model} model takes f: it fixes none.")
        module, function = self.data.split(":")
        hook: Callable[..., FixedF] = getattr(importlib.import_module(module), function)
        return hook(**options)


_TABLE: dict[str, CommandLine] = {}


def register_command_line(entry: CommandLine) -> CommandLine:
    """Declare what the command line reads for a registered model (one entry per model)."""
    get(entry.model)                                   # a registered model, or the one-line refusal
    _TABLE[entry.model] = entry
    return entry


def command_line(model: Any) -> CommandLine:
    """The model's entry (a model without one: taken by ``--kind`` alone, with no mode or flag of its own)."""
    name = get(model).name
    return _TABLE.get(name, CommandLine(name))


def attentions() -> tuple[str, ...]:
    """The values of ``--attention``, the default first."""
    return tuple(e.attention for e in _TABLE.values() if e.attention is not None)


def default_attention() -> str:
    """The value ``--attention`` has when it is left out."""
    return attentions()[0]


def picking_flags() -> tuple[str, ...]:
    """The flags whose value picks a model (``weights``)."""
    return tuple(e.flag for e in _TABLE.values() if e.flag is not None)


def option_flags() -> tuple[tuple[str, tuple[str, ...]], ...]:
    """``(flag, the --attention modes that read it)`` for every option and Monte Carlo option, in the table's order."""
    owners: dict[str, list[str]] = {}
    for e in _TABLE.values():
        for name in (*e.options, *e.simulator_options):
            owners.setdefault(name, []).extend([e.attention] if e.attention is not None else [])
    return tuple((name, tuple(modes)) for name, modes in owners.items())


def picked(attention: str | None, flags: Mapping[str, Any] | None = None) -> CommandLine:
    """The entry of the model the user picked: by a picking flag that was given (a value, or True for a switch), else
    by ``--attention`` (its default where None)."""
    flags = flags or {}
    for e in _TABLE.values():
        if e.flag is not None and flags.get(e.flag) not in (None, False):
            return e
    mode = default_attention() if attention is None else attention
    for e in _TABLE.values():
        if e.attention == mode:
            return e
    raise ParameterError(f"attention = {shown(mode)}: use one of {attentions()}.")


# The package's own models on the command line: entrywise attention (the default mode), softmax attention (a mode
# that fixes f, with its temperature and, for the Monte Carlo, the orientation of its normalization), and general M
# (picked by --weights FILE, printed with its layer).
register_command_line(CommandLine("attention", attention="entrywise"))
register_command_line(CommandLine("softmax", attention="softmax", fixes="f = exp(x/T) and masks the diagonal",
                                  options={"temperature": DEFAULT_TEMPERATURE}, simulator_options=("normalize",),
                                  data="symrmt.theory.softmax:softmax_data", grids=False))
register_command_line(CommandLine("attention_general", flag="weights", layout="matrix"))
