r"""Shared machinery of the figures: what a figure is, and how its numbers are written and checked.

A figure is data first. Each figure function returns a :class:`Figure`: panels holding
:class:`Curve` objects, each curve a set of points with *all* its parameters attached
(``f``, ``c``, ``gamma``, ``theta``, ``n``, ``seeds``, ...). :func:`symrmt.figures.draw`
turns that into an image and :func:`write_csv` writes exactly the same points, one row per
plotted point and one column per parameter. Because both read the same objects, the CSV
cannot disagree with the picture.

Statistics. A Monte Carlo point is the mean :math:`\bar E` of ``seeds`` independent draws
with standard error :math:`\mathrm{se} = \mathrm{sd}/\sqrt{\text{seeds}}`; its error bar is
the two-sided 95% Student interval :math:`\bar E \pm t_{0.975,\,\text{seeds}-1}\,\mathrm{se}`
(:func:`symrmt.analysis.seeds.t_quantile`; with 3 seeds the factor is 4.30, with 8 it is 2.36).
A difference :math:`E_\mathrm{attn} - E_\mathrm{lin}` is computed seed by seed on the same
draws and then summarized (:func:`paired_difference`): the pairing removes the noise the two
errors share.
"""
from __future__ import annotations

import csv
import pathlib
from dataclasses import dataclass, field
from typing import Any, Iterable, Iterator, Sequence

import numpy as np

from ..runtime.files import write_atomically
from ..runtime.progress import progress_bar
from ..analysis.seeds import mean_se, t_quantile

__all__ = ["Curve", "Panel", "Figure", "FigureUnavailable", "write_csv", "csv_rows", "progress", "LEVEL",
           "FIXED_COLUMNS", "STAT_COLUMNS", "cell", "paired_difference", "finite_size_note", "INTERVAL_TEXT",
           "relative_text"]

#: Error bars are two-sided Student-t intervals of this level over seeds.
LEVEL = 0.95

#: How captions and legends name the error bars.
INTERVAL_TEXT = "95% t intervals over seeds (seeds - 1 degrees of freedom)"

#: Columns that come first in every CSV, in this order; parameter columns follow.
FIXED_COLUMNS = ("figure", "panel", "series", "source", "quantity")

#: Columns that come last: the plotted value, its standard error and the ends of its error bar.
STAT_COLUMNS = ("value", "se", "ci95_low", "ci95_high")

#: Preferred order of the parameter columns (others follow alphabetically).
PARAMETER_ORDER = ("f", "params", "a1", "nu", "d", "c", "gamma", "theta", "mu_norm", "w_norm", "cos_mu_w",
                   "angle_deg", "rank", "n", "p", "seeds", "seed", "x", "eta", "matrix", "theory")


class FigureUnavailable(RuntimeError):
    """The engine this figure needs is not in this installation (the message says which part).

    Examples
    --------
    >>> from symrmt.figures import FigureUnavailable
    >>> issubclass(FigureUnavailable, RuntimeError)        # symrmt figure NAME exits 2 with its message
    True
    """


@dataclass
class Curve:
    r"""Points of one series: ``value`` (and ``se``) at the parameters ``params``.

    Parameters
    ----------
    label : str or None
        Legend text (``None``: not in the legend, e.g. Monte Carlo markers under a theory line).
    source : str
        ``"theory"`` (drawn as a line or a heat map) or ``"monte_carlo"`` (markers with 95% t intervals).
    quantity : str
        What ``value`` is, e.g. ``"E_attn"``, ``"E_lin"``, ``"E_attn - E_lin"``, ``"density"``.
    x : str
        The parameter on the horizontal axis (a key of ``params``).
    params : dict
        Parameter name -> scalar or array broadcastable to ``value``. Monte Carlo curves carry
        ``n`` and ``seeds``, and ``theory`` (the deterministic equivalent at the same points)
        where the figure compares them.
    value, se : numpy.ndarray
        The plotted numbers and, for Monte Carlo, their standard errors over seeds.
    style : dict
        Matplotlib keywords (color, linestyle, marker).
    series : str, optional
        The CSV's name of the series (default: ``label``); a curve needs one of the two.
    low, high : numpy.ndarray, optional
        Explicit ends of the error bars (e.g. the 95% interval of an extrapolated limit); without
        them a Monte Carlo point's bar is its t interval.

    Examples
    --------
    >>> from symrmt.figures import Curve
    >>> dots = Curve(None, "monte_carlo", "E_attn", "gamma", {"gamma": [0.1, 1.0], "n": 256, "seeds": 4},
    ...              [0.456, 0.743], se=[0.019, 0.020], series="tanh, Monte Carlo")
    >>> low, high = dots.bounds()                               # 95% Student-t intervals over the 4 seeds
    >>> [round(float(v), 3) for v in high - low]
    [0.121, 0.127]
    """

    label: str | None
    source: str
    quantity: str
    x: str
    params: dict[str, Any]
    value: np.ndarray
    se: np.ndarray | None = None
    style: dict[str, Any] = field(default_factory=dict)
    series: str | None = None
    low: np.ndarray | None = None
    high: np.ndarray | None = None

    def __post_init__(self) -> None:
        self.value = np.asarray(self.value, dtype=float)
        if self.se is not None:
            self.se = np.broadcast_to(np.asarray(self.se, dtype=float), self.value.shape)
        if (self.low is None) != (self.high is None):
            raise ValueError(f"curve {self.label!r}: give both ends of the error bars or neither")
        if self.low is not None:
            self.low = np.broadcast_to(np.asarray(self.low, dtype=float), self.value.shape)
            self.high = np.broadcast_to(np.asarray(self.high, dtype=float), self.value.shape)
        if self.x not in self.params:
            raise ValueError(f"curve {self.label!r}: x = {self.x!r} is not one of its parameters")
        self.series = self.series or self.label
        if not self.series:
            raise ValueError(f"a {self.source} curve of {self.quantity} needs a label or a series name")
        if self.source == "monte_carlo" and (self.se is None or "seeds" not in self.params):
            raise ValueError(f"Monte Carlo series {self.series!r} needs its standard errors and its seeds")

    def column(self, name: str) -> np.ndarray:
        """Parameter ``name`` broadcast to the shape of ``value``."""
        return np.broadcast_to(np.asarray(self.params[name], dtype=object if _is_text(self.params[name]) else float),
                               self.value.shape)

    def bounds(self) -> tuple[np.ndarray, np.ndarray] | None:
        r"""The ends of each point's error bar: ``low, high`` if given, else the Student interval
        :math:`\bar E \pm t_{0.975,\,\text{seeds}-1}\,\mathrm{se}`; None for a curve without bars."""
        if self.low is not None:
            return self.low, self.high
        if self.se is None:
            return None
        half = t_quantile(self.column("seeds").astype(float), LEVEL) * self.se
        return self.value - half, self.value + half


def _is_text(value: Any) -> bool:
    return isinstance(value, str) or (isinstance(value, np.ndarray) and value.dtype.kind in "USO")


@dataclass
class Panel:
    """One set of axes. ``heatmap = (x, y)`` draws the theory curve as a map over those two parameters.

    Examples
    --------
    >>> from symrmt.figures import Curve, Figure, Panel
    >>> line = Curve("tanh", "theory", "E_attn", "gamma", {"gamma": [0.1, 1.0]}, [0.453, 0.743])
    >>> dots = Curve(None, "monte_carlo", "E_attn", "gamma", {"gamma": [0.1, 1.0], "n": 256, "seeds": 4,
    ...              "theory": [0.453, 0.743]}, [0.456, 0.743], se=[0.019, 0.020], series="tanh, Monte Carlo")
    >>> figure = Figure("example", "An example", "Theory and Monte Carlo.", [Panel("a", "E_attn", [line, dots],
    ...                 "gamma", "E_attn", xscale="log")])
    >>> panel = figure.panels[0]
    >>> panel.key, [curve.series for curve in panel.curves]
    ('a', ['tanh', 'tanh, Monte Carlo'])
    """

    key: str
    title: str
    curves: list[Curve]
    xlabel: str
    ylabel: str
    xscale: str = "linear"
    yscale: str = "linear"
    ylim: tuple[float, float] | None = None
    xlim: tuple[float, float] | None = None
    heatmap: tuple[str, str] | None = None
    colorbar: str = ""
    #: Horizontal offset between the Monte Carlo series at the same x, so that their bars do not hide
    #: each other: a factor 10**dodge on a log axis, ``dodge`` times the x range on a linear one.
    #: Only the drawing moves; the CSV keeps the true x.
    dodge: float = 0.0
    #: Labelled ticks on the x axis (plain numbers, also on a log axis); ``xticklabels`` may rename them.
    xticks: Sequence[float] | None = None
    xticklabels: Sequence[str] | None = None
    #: Reference lines ``{"x": [...], "y": [...], "label": ..., "color": ..., "ls": ...}``; ``"y": None``
    #: draws a vertical line at ``x[0]``.
    extra: list[dict[str, Any]] = field(default_factory=list)
    #: A convergence panel (a ladder of sizes): its markers are not counted by :func:`finite_size_note`.
    convergence: bool = False


@dataclass
class Figure:
    """A whole figure: its registry name, a title and a caption with the settings, and the panels.

    Examples
    --------
    >>> from symrmt.figures import Curve, Figure, Panel
    >>> line = Curve("tanh", "theory", "E_attn", "gamma", {"gamma": [0.1, 1.0]}, [0.453, 0.743])
    >>> dots = Curve(None, "monte_carlo", "E_attn", "gamma", {"gamma": [0.1, 1.0], "n": 256, "seeds": 4,
    ...              "theory": [0.453, 0.743]}, [0.456, 0.743], se=[0.019, 0.020], series="tanh, Monte Carlo")
    >>> figure = Figure("example", "An example", "Theory and Monte Carlo.", [Panel("a", "E_attn", [line, dots],
    ...                 "gamma", "E_attn", xscale="log")])
    >>> figure.name, len(figure.panels)
    ('example', 1)
    """

    name: str
    title: str
    caption: str
    panels: list[Panel]
    mc_label: str = ""      # e.g. ", n = 256, 3 seeds": appended to the Monte Carlo legend entry
    ncols: int | None = None

    def curves(self) -> Iterator[tuple[Panel, Curve]]:
        for panel in self.panels:
            for curve in panel.curves:
                yield panel, curve


# --------------------------------------------------------------------------- statistics

def paired_difference(attention_per_seed: np.ndarray, linear_per_seed: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    r"""Mean and standard error over seeds of :math:`E_\mathrm{attn} - E_\mathrm{lin}`, seed by seed.

    Both errors come from the same draws (``symrmt.simulate`` returns them per seed), so the
    difference is summarized from the per-seed differences (a paired comparison).

    >>> mean, se = paired_difference(np.array([[1.0], [2.0]]), np.array([[0.5], [1.5]]))
    >>> mean.tolist(), se.tolist()
    ([0.5], [0.0])
    """
    return mean_se(np.asarray(attention_per_seed) - np.asarray(linear_per_seed), axis=0)


def finite_size_note(figure: Figure) -> str:
    """One sentence on the Monte Carlo points whose 95% interval misses the theory at the same point.

    Only curves that carry ``theory`` (the deterministic equivalent at their points) are counted.

    Parameters
    ----------
    figure : Figure
        A built figure.

    Returns
    -------
    str
        The sentence, or ``""`` when the figure has no Monte Carlo point with a theory to compare.

    Raises
    ------
    Nothing
        It only reads the figure.

    See Also
    --------
    build : Ends every caption with this sentence.

    Examples
    --------
    >>> from symrmt.figures import Curve, Figure, Panel
    >>> line = Curve("tanh", "theory", "E_attn", "gamma", {"gamma": [0.1, 1.0]}, [0.453, 0.743])
    >>> dots = Curve(None, "monte_carlo", "E_attn", "gamma", {"gamma": [0.1, 1.0], "n": 256, "seeds": 4,
    ...              "theory": [0.453, 0.743]}, [0.456, 0.743], se=[0.019, 0.020], series="tanh, Monte Carlo")
    >>> figure = Figure("example", "An example", "Theory and Monte Carlo.", [Panel("a", "E_attn", [line, dots],
    ...                 "gamma", "E_attn", xscale="log")])
    >>> from symrmt.figures import finite_size_note
    >>> finite_size_note(figure)
    'All 2 Monte Carlo points with a theory value hold it inside their 95% interval.'
    """
    total, outside, worst = 0, 0, None
    for panel, curve in figure.curves():
        if curve.source != "monte_carlo" or "theory" not in curve.params or panel.convergence:
            continue
        theory = curve.column("theory").astype(float)
        low, high = curve.bounds()
        gap = curve.value - theory
        missed = (theory < low) | (theory > high)
        total += gap.size
        outside += int(np.sum(missed))
        if np.any(missed):
            k = int(np.argmax(np.where(missed, np.abs(gap), -np.inf)))
            if worst is None or abs(gap.flat[k]) > abs(worst[0]):
                worst = (float(gap.flat[k]), panel.key, curve, k)
    if total == 0:
        return ""
    if outside == 0:
        return f"All {total} Monte Carlo points with a theory value hold it inside their 95% interval."
    gap, key, curve, k = worst
    n = int(curve.column("n").flat[k])
    theory = float(curve.column("theory").flat[k])
    relative = f" ({relative_text(gap, theory)} of the theory)" if relative_text(gap, theory) else ""
    verb = "misses the theory by more than its" if outside == 1 else "miss the theory by more than their"
    chance = (1 - LEVEL) * total        # what noise alone would give if the theory held at this n
    return (f"{outside} of {total} Monte Carlo points {verb} 95% interval (noise alone would give about "
            f"{chance:.1f}); the largest finite-n effect is {gap:+.3f}{relative}, in panel ({key}) "
            f"({curve.series}, n = {n}).")


def relative_text(effect: float, theory: float) -> str:
    """``effect`` as a percentage of ``theory``, or "" where the theory is too small for a ratio to mean much."""
    return f"{100 * effect / abs(theory):+.0f}%" if abs(theory) >= RELATIVE_FLOOR else ""


#: Below this size a theory value is not a useful scale for a relative error (a gap near a sign change).
RELATIVE_FLOOR = 0.05


# --------------------------------------------------------------------------- CSV

def _columns(figure: Figure) -> list[str]:
    names = {k for _, curve in figure.curves() for k in curve.params}
    ordered = [k for k in PARAMETER_ORDER if k in names] + sorted(names - set(PARAMETER_ORDER))
    return [*FIXED_COLUMNS, *ordered, *STAT_COLUMNS]


def cell(value: Any) -> str:
    """A CSV cell: text as is, a whole number without decimals, any other number as its shortest exact repr."""
    if isinstance(value, str):
        return value
    number = float(value)
    if number.is_integer() and abs(number) < 1e15:
        return str(int(number))
    return repr(number)


def csv_rows(figure: Figure) -> tuple[list[str], list[list[str]]]:
    """The header and the rows of :func:`write_csv` (one row per plotted point, in drawing order).

    Parameters
    ----------
    figure : Figure
        A built figure (:func:`build`).

    Returns
    -------
    header, rows
        The column names and one list of cells (strings) per plotted point.

    Raises
    ------
    Nothing
        It only reads the figure.

    See Also
    --------
    write_csv : The same rows into a file.

    Examples
    --------
    >>> from symrmt.figures import Curve, Figure, Panel
    >>> line = Curve("tanh", "theory", "E_attn", "gamma", {"gamma": [0.1, 1.0]}, [0.453, 0.743])
    >>> dots = Curve(None, "monte_carlo", "E_attn", "gamma", {"gamma": [0.1, 1.0], "n": 256, "seeds": 4,
    ...              "theory": [0.453, 0.743]}, [0.456, 0.743], se=[0.019, 0.020], series="tanh, Monte Carlo")
    >>> figure = Figure("example", "An example", "Theory and Monte Carlo.", [Panel("a", "E_attn", [line, dots],
    ...                 "gamma", "E_attn", xscale="log")])
    >>> from symrmt.figures import csv_rows
    >>> header, rows = csv_rows(figure)
    >>> header[:6], len(rows)
    (['figure', 'panel', 'series', 'source', 'quantity', 'gamma'], 4)
    """
    header = _columns(figure)
    rows = []
    for panel, curve in figure.curves():
        params = {k: curve.column(k).ravel() for k in curve.params}
        values = curve.value.ravel()
        stats = {} if curve.se is None else {"se": curve.se.ravel()}
        if curve.bounds() is not None:
            stats.update(ci95_low=curve.bounds()[0].ravel(), ci95_high=curve.bounds()[1].ravel())
        for i, value in enumerate(values):
            row = {"figure": figure.name, "panel": panel.key, "series": curve.series, "source": curve.source,
                   "quantity": curve.quantity, "value": cell(value)}
            row.update({k: cell(v[i]) for k, v in stats.items()})
            row.update({k: cell(v[i]) for k, v in params.items()})
            rows.append([row.get(column, "") for column in header])
    return header, rows


def write_csv(figure: Figure, path: str | pathlib.Path, *, replace: bool = True) -> pathlib.Path:
    """Write the plotted numbers of ``figure`` to ``path``: a header row, then one row per point.

    Columns: ``figure, panel, series, source, quantity``, then every parameter any curve has,
    then ``value``, ``se`` (the standard error over seeds) and ``ci95_low``, ``ci95_high`` (the
    ends of the error bar: the 95% t interval, or the 95% interval of an extrapolated limit). A cell
    is empty only where it does not apply: a parameter a series does not have (``seeds`` of a
    theory line), or the statistics of a theory point. Written atomically
    (:func:`symrmt.runtime.files.write_atomically`, which ``replace`` is given to); returns the name written.

    Parameters
    ----------
    figure : Figure
        A built figure (:func:`build`).
    path : str or path
        The CSV file.
    replace : bool, keyword-only
        Replace an existing file (default), or keep it and write ``NAME-1.csv``.

    Returns
    -------
    pathlib.Path
        The name written.

    Raises
    ------
    SymrmtInputError
        A file that cannot be written.

    See Also
    --------
    csv_rows : The rows without a file.

    Examples
    --------
    >>> from symrmt.figures import Curve, Figure, Panel
    >>> line = Curve("tanh", "theory", "E_attn", "gamma", {"gamma": [0.1, 1.0]}, [0.453, 0.743])
    >>> dots = Curve(None, "monte_carlo", "E_attn", "gamma", {"gamma": [0.1, 1.0], "n": 256, "seeds": 4,
    ...              "theory": [0.453, 0.743]}, [0.456, 0.743], se=[0.019, 0.020], series="tanh, Monte Carlo")
    >>> figure = Figure("example", "An example", "Theory and Monte Carlo.", [Panel("a", "E_attn", [line, dots],
    ...                 "gamma", "E_attn", xscale="log")])
    >>> import pathlib, tempfile
    >>> from symrmt.figures import write_csv
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     lines = write_csv(figure, pathlib.Path(folder) / "example.csv").read_text().splitlines()
    >>> len(lines), lines[0].startswith("figure,panel,series,source,quantity,gamma")
    (5, True)
    """
    header, rows = csv_rows(figure)

    def write(handle) -> None:
        writer = csv.writer(handle)
        writer.writerow(header)
        writer.writerows(rows)

    return write_atomically(path, write, replace=replace)


# --------------------------------------------------------------------------- progress

#: ``symrmt figure --quiet`` (or ``run(..., quiet=True)``) turns the progress bars off.
QUIET = False


def progress(items: Iterable, desc: str, total: int | None = None) -> Iterable:
    """``items`` with a progress bar (:func:`symrmt.runtime.progress.progress_bar`), off under ``--quiet``."""
    return progress_bar(items, desc=desc, total=total, enabled=not QUIET)
