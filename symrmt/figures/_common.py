"""Small pieces the figure modules share: the nonlinearities, their colours, and Monte Carlo calls."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Mapping

import numpy as np

from ._core import Curve, cell, paired_difference

if TYPE_CHECKING:
    from ..nonlinearity import HermiteCoefficients
    from .claims import Claim

__all__ = ["Nonlinearity", "ZOO", "NONLINEAR", "nonlinearity", "FigureF", "figure_f", "mc_over_gamma",
           "theory_curve", "mc_curve", "mc_gap", "LINEAR_STYLE", "n_label"]


@dataclass(frozen=True)
class Nonlinearity:
    """A centred f: a short name for legends and CSVs, the formula given to symrmt, and a colour."""

    name: str
    formula: str
    color: str

    def hermite(self):
        from .. import hermite

        return hermite(self.formula, center=True)


#: The nonlinearities of the random-input figure, centred (the theory needs a_0 = 0).
ZOO: dict[str, Nonlinearity] = {n.name: n for n in (
    Nonlinearity("tanh", "tanh(x)", "C0"),
    Nonlinearity("ReLU (centred)", "relu(x) - 1/sqrt(2*pi)", "C1"),
    Nonlinearity("erf", "erf(x)", "C2"),
    Nonlinearity("sin", "sin(x)", "C3"),
    Nonlinearity("GELU (centred)", "gelu(x) - 1/(2*sqrt(pi))", "C4"),
    Nonlinearity("x", "x", "C5"),
)}

#: The genuinely nonlinear members of :data:`ZOO` (f = x is linear attention).
NONLINEAR: tuple[str, ...] = tuple(name for name in ZOO if name != "x")

#: Linear regression is drawn in black, dashed, in every figure.
LINEAR_STYLE = {"color": "k", "linestyle": "--", "marker": "s"}


def nonlinearity(name: str) -> Nonlinearity:
    return ZOO[name]


@dataclass(frozen=True)
class FigureF:
    r"""The one nonlinearity of a figure built around a single f: its default (tanh), or the user's formula
    at one value of each of its parameters.

    The figure reads everything about f from here: the Hermite data :attr:`h` at the point (what the
    theory and, through ``h.f``, the Monte Carlo use), the CSV's ``f`` and ``params`` columns
    (:meth:`tags`), and the title and the first caption sentence. The figure's claim
    (:mod:`symrmt.figures.claims`) is checked for the default f only, so another f gets a neutral title.

    Attributes
    ----------
    formula : str
        The formula as given (``"tanh(s*x)"``); ``"tanh"`` for the default.
    h : HermiteCoefficients
        :math:`a_0 = 0, a_1, a_2, \nu` of f at ``params``.
    params : dict
        The value of each parameter of f, by name (sorted); empty for an f without parameters.
    centred : bool
        Whether :math:`a_0` was subtracted from the formula (``center=True``).
    default : bool
        True for the figure's own f, whose claim the title and caption state.
    """

    formula: str
    h: "HermiteCoefficients"
    params: dict[str, float] = field(default_factory=dict)
    centred: bool = False
    default: bool = False

    @property
    def name(self) -> str:
        """The CSV's ``f``: the formula, marked ``(centred)`` when :math:`a_0` was subtracted."""
        return f"{self.formula} (centred)" if self.centred else self.formula

    @property
    def text(self) -> str:
        """f as titles and captions name it: ``tanh``, or ``tanh(s*x) at s = 2``."""
        values = ", ".join(f"{k} = {cell(v)}" for k, v in self.params.items())
        return f"{self.name} at {values}" if values else self.name

    def tags(self) -> dict[str, Any]:
        """The CSV columns of f: ``f``, ``params`` (``s=2``; only for an f with parameters), ``a1``, ``nu``."""
        values = {"params": "; ".join(f"{k}={cell(v)}" for k, v in self.params.items())} if self.params else {}
        return {"f": self.name, **values, "a1": self.h.a1, "nu": self.h.nu}

    def title(self, claim: "Claim") -> str:
        """The claim's title for the default f; for another f, the figure's name and f (no claim asserted)."""
        return claim.title if self.default else f"{claim.figure}, f = {self.text}"

    def sentence(self, claim: "Claim") -> str:
        """The caption's first sentence: the claim with its region for the default f, else what f is."""
        if self.default:
            return claim.sentence
        return f"The figure's claim is made for f = {DEFAULT_F} and is not asserted for this f."


#: The nonlinearity of the figures built around one f, unless the user gives another.
DEFAULT_F = "tanh"

#: The figures built around one f, which take another (:func:`figure_f`); the others draw a fixed set of f.
TAKE_F: tuple[str, ...] = ("alignment", "phase_diagram", "rank")


def figure_f(f: str | None = None, params: Mapping[str, float] | None = None, center: bool = False) -> FigureF:
    """The f of a figure: the default (``f=None``), or the formula ``f`` at ``params``, centred with ``center``.

    Raises
    ------
    ParameterError
        ``params`` or ``center`` without ``f``, ``f`` that is not a formula, or ``params`` that do not give each parameter
        of f exactly once (one value each), naming the parameter.
    NonlinearityError
        An f that is not centred (with the way to center it), or not usable at the point.
    """
    from .. import hermite
    from ..errors import ParameterError

    if f is None:
        if params or center:
            given = f"params = {dict(params)!r}" if params else "center=True"
            raise ParameterError(f"{given}: give the f it applies to as well, e.g. f='tanh(s*x)', params={{'s': 2.0}}.")
        return FigureF(DEFAULT_F, ZOO[DEFAULT_F].hermite(), default=True)
    if not isinstance(f, str):
        raise ParameterError(f"f = {f!r}: a figure takes f as a formula (it is written into the CSV), "
                             "e.g. f='tanh(s*x)'.")
    h = hermite(f, center=center, params=params or {})      # refuses a missing, unknown or array parameter
    h.require_centered()
    values = {str(k): float(v) for k, v in sorted((params or {}).items())}
    return FigureF(f.strip(), h, values, centred=bool(center))


def n_label(n: int, seeds: int) -> str:
    return f", n = {n}, {seeds} seeds"


def theory_curve(label: str | None, quantity: str, x: str, params: dict[str, Any], value, style: dict,
                 series: str | None = None) -> Curve:
    return Curve(label=label, source="theory", quantity=quantity, x=x, params=params, value=value, style=style,
                 series=series)


def mc_curve(series: str, quantity: str, x: str, params: dict[str, Any], mean, se, style: dict,
             theory=None, label: str | None = None) -> Curve:
    """Monte Carlo markers of ``series``; ``theory``: the deterministic equivalent at the same points."""
    if theory is not None:
        params = {**params, "theory": np.asarray(theory, dtype=float)}
    return Curve(label=label, source="monte_carlo", quantity=quantity, x=x, params=params, value=mean, se=se,
                 style=style, series=series)


def mc_over_gamma(f: str | Callable | None, n: int, c: float, gamma, geometry=None, d: float = 0.0,
                  seeds: int = 4, seed: int = 0, gram=None, **attention):
    """One :func:`symrmt.simulate` call: every gamma from the same draws (``attention``: e.g. softmax's keywords)."""
    from .. import simulate

    return simulate(f, n=n, c=c, gamma=np.asarray(gamma, float), geometry=geometry, d=d, seeds=seeds, seed=seed,
                    gram=gram, progress=False, **attention)   # the figure's own bar counts the settings


def mc_gap(run, index: int = 0) -> tuple[float, float]:
    r"""Paired :math:`E_\mathrm{attn} - E_\mathrm{lin}` of one simulation at its ``index``-th gamma: (mean, se)."""
    mean, se = paired_difference(run.attention_per_seed[:, index], run.linear_per_seed[:, index])
    return float(mean), float(se)
