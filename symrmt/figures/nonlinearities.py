"""The nonlinearities of the figures: the fixed set some draw (from :data:`symrmt.nonlinearity.ZOO`, with their
legend names and colours), and the one f of a figure built around a single f (:func:`figure_f`)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Mapping

from ..errors import ParameterError
from ..nonlinearity.zoo import ZOO as NAMED
from .figure import cell

if TYPE_CHECKING:
    from ..nonlinearity import HermiteCoefficients

__all__ = ["Nonlinearity", "ZOO", "NONLINEAR", "nonlinearity", "FigureF", "figure_f", "DEFAULT_F", "TAKE_F"]


@dataclass(frozen=True)
class Nonlinearity:
    """A centred f: a short name for legends and CSVs, the formula given to symrmt, and a colour."""

    name: str
    formula: str
    color: str

    def hermite(self):
        from .. import hermite  # heavy: SymPy

        return hermite(self.formula, center=True)


#: The nonlinearities of the random-input figure by their legend names: members of
#: :data:`symrmt.nonlinearity.ZOO` (centred: the theory needs a_0 = 0), each with its colour.
ZOO: dict[str, Nonlinearity] = {name: Nonlinearity(name, NAMED[key], color) for name, key, color in (
    ("tanh", "tanh", "C0"),
    ("ReLU (centred)", "relu", "C1"),
    ("erf", "erf", "C2"),
    ("sin", "sin", "C3"),
    ("GELU (centred)", "gelu", "C4"),
    ("x", "x", "C5"),
)}

#: The genuinely nonlinear members of :data:`ZOO` (f = x is linear attention).
NONLINEAR: tuple[str, ...] = tuple(name for name in ZOO if name != "x")


def nonlinearity(name: str) -> Nonlinearity:
    return ZOO[name]


@dataclass(frozen=True)
class FigureF:
    r"""The one nonlinearity of a figure built around a single f: its default (tanh), or the user's formula
    at one value of each of its parameters.

    The figure reads everything about f from here: the Hermite data :attr:`h` at the point (what the
    theory and, through ``h.f``, the Monte Carlo use), the CSV's ``f`` and ``params`` columns
    (:meth:`tags`), and how titles and captions name it (:attr:`text`). The figure's claim
    (:mod:`symrmt.figures.claims`) is checked for the default f only, so another f gets a neutral title
    (:meth:`~symrmt.figures.claims.Claim.title_for`).

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

    Parameters
    ----------
    f : str, optional
        A formula in x (and its parameters); default the figure's own f (tanh).
    params : dict, optional
        One value for each parameter of ``f``.
    center : bool
        Subtract :math:`a_0` from ``f`` first.

    Returns
    -------
    FigureF
        The formula, its parameters, its Hermite data and how a title names it.

    See Also
    --------
    build : ``build(name, f=..., params=...)`` for the figures of :data:`TAKE_F`.

    Examples
    --------
    >>> from symrmt.figures import figure_f
    >>> figure_f().formula, round(figure_f("tanh(s*x)", {"s": 2.0}).h.a1, 6)
    ('tanh', 0.729478)
    """
    from .. import hermite  # heavy: SymPy

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
