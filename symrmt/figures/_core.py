r"""Shared machinery of the figures: what a figure is, how it is drawn, how its numbers are written.

A figure is data first. Each figure function returns a :class:`Figure`: panels holding
:class:`Curve` objects, each curve a set of points with *all* its parameters attached
(``f``, ``c``, ``gamma``, ``theta``, ``n``, ...). :func:`draw` turns that into a PNG
(theory as lines, Monte Carlo as markers with :math:`\pm 2` standard-error bars, theory
heat maps with their zero contour) and :func:`write_csv` writes exactly the same points,
one row per plotted point and one column per parameter. Because both read the same
objects, the CSV cannot disagree with the picture.
"""
from __future__ import annotations

import csv
import math
import pathlib
import textwrap
from dataclasses import dataclass, field
from typing import Any, Iterable, Iterator, Sequence

import numpy as np

from ..progress import progress_bar

__all__ = ["Curve", "Panel", "Figure", "FigureUnavailable", "draw", "write_csv", "csv_rows",
           "progress", "ERROR_BAR_SE", "FIXED_COLUMNS"]

#: Error bars are this many standard errors (over seeds) wide on each side.
ERROR_BAR_SE = 2.0

#: Columns that come first in every CSV, in this order; parameter columns follow.
FIXED_COLUMNS = ("figure", "panel", "series", "source", "quantity")

#: Preferred order of the parameter columns (others follow alphabetically).
PARAMETER_ORDER = ("f", "a1", "nu", "d", "c", "gamma", "theta", "mu_norm", "w_norm", "cos_mu_w",
                   "angle_deg", "rank", "n", "p", "seeds", "seed", "x", "eta", "matrix")


class FigureUnavailable(RuntimeError):
    """The engine this figure needs is not in this installation (the message says which part)."""


@dataclass
class Curve:
    r"""Points of one series: ``value`` (and ``se``) at the parameters ``params``.

    Parameters
    ----------
    label : str
        Legend text (``None``: not in the legend).
    source : str
        ``"theory"`` (drawn as a line or a heat map) or ``"monte_carlo"`` (markers with error bars).
    quantity : str
        What ``value`` is, e.g. ``"E_attn"``, ``"E_lin"``, ``"E_attn - E_lin"``, ``"density"``.
    x : str
        The parameter on the horizontal axis (a key of ``params``).
    params : dict
        Parameter name -> scalar or array broadcastable to ``value``.
    value, se : numpy.ndarray
        The plotted numbers and, for Monte Carlo, their standard errors over seeds.
    style : dict
        Matplotlib keywords (color, linestyle, marker).
    """

    label: str | None
    source: str
    quantity: str
    x: str
    params: dict[str, Any]
    value: np.ndarray
    se: np.ndarray | None = None
    style: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.value = np.asarray(self.value, dtype=float)
        if self.se is not None:
            self.se = np.broadcast_to(np.asarray(self.se, dtype=float), self.value.shape)
        if self.x not in self.params:
            raise ValueError(f"curve {self.label!r}: x = {self.x!r} is not one of its parameters")

    def column(self, name: str) -> np.ndarray:
        """Parameter ``name`` broadcast to the shape of ``value``."""
        return np.broadcast_to(np.asarray(self.params[name], dtype=object if _is_text(self.params[name]) else float),
                               self.value.shape)


def _is_text(value: Any) -> bool:
    return isinstance(value, str) or (isinstance(value, np.ndarray) and value.dtype.kind in "US")


@dataclass
class Panel:
    """One set of axes. ``heatmap = (x, y)`` draws the theory curve as a map over those two parameters."""

    key: str
    title: str
    curves: list[Curve]
    xlabel: str
    ylabel: str
    xscale: str = "linear"
    yscale: str = "linear"
    ylim: tuple[float, float] | None = None
    heatmap: tuple[str, str] | None = None
    colorbar: str = ""
    #: Horizontal offset between the Monte Carlo series at the same x, so that their bars do not hide
    #: each other: a factor 10**dodge on a log axis, ``dodge`` times the x range on a linear one.
    #: Only the drawing moves; the CSV keeps the true x.
    dodge: float = 0.0
    legend_loc: str = "best"
    #: Extra room above the data, as a fraction of its range (keeps an upper legend off the points).
    headroom: float = 0.0
    #: Labelled ticks on the x axis (plain numbers, also on a log axis).
    xticks: Sequence[float] | None = None
    extra: list[dict[str, Any]] = field(default_factory=list)   # reference lines: {"x": ..., "y": ..., "label": ...}


@dataclass
class Figure:
    """A whole figure: its registry name, a title and a caption with the settings, and the panels."""

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


# --------------------------------------------------------------------------- CSV

def _columns(figure: Figure) -> list[str]:
    names = {k for _, curve in figure.curves() for k in curve.params}
    ordered = [k for k in PARAMETER_ORDER if k in names] + sorted(names - set(PARAMETER_ORDER))
    return [*FIXED_COLUMNS, *ordered, "value", "se"]


def _cell(value: Any) -> str:
    if isinstance(value, str):
        return value
    number = float(value)
    if number.is_integer() and abs(number) < 1e15:
        return str(int(number))
    return repr(number)


def csv_rows(figure: Figure) -> tuple[list[str], list[list[str]]]:
    """The header and the rows of :func:`write_csv` (one row per plotted point, in drawing order)."""
    header = _columns(figure)
    rows = []
    for panel, curve in figure.curves():
        params = {k: curve.column(k).ravel() for k in curve.params}
        values = curve.value.ravel()
        ses = None if curve.se is None else curve.se.ravel()
        for i, value in enumerate(values):
            row = {"figure": figure.name, "panel": panel.key, "series": curve.label or "",
                   "source": curve.source, "quantity": curve.quantity,
                   "value": _cell(value), "se": "" if ses is None else _cell(ses[i])}
            row.update({k: _cell(v[i]) for k, v in params.items()})
            rows.append([row.get(column, "") for column in header])
    return header, rows


def write_csv(figure: Figure, path: str | pathlib.Path) -> pathlib.Path:
    """Write the plotted numbers of ``figure`` to ``path``: a header row, then one row per point.

    Columns: ``figure, panel, series, source, quantity``, then every parameter any curve has
    (empty where a curve does not have it), then ``value`` and ``se`` (the standard error over
    seeds for Monte Carlo points, empty for theory).
    """
    header, rows = csv_rows(figure)
    path = pathlib.Path(path)
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        writer.writerows(rows)
    return path


# --------------------------------------------------------------------------- progress

#: ``symrmt figure --quiet`` (or ``run(..., quiet=True)``) turns the progress bars off.
QUIET = False


def progress(items: Iterable, desc: str, total: int | None = None) -> Iterable:
    """``items`` with a progress bar (:func:`symrmt.progress.progress_bar`), off under ``--quiet``."""
    return progress_bar(items, desc=desc, total=total, enabled=not QUIET)


# --------------------------------------------------------------------------- drawing

def _draw_heatmap(fig, ax, panel: Panel) -> None:
    import matplotlib.ticker
    from matplotlib.colors import TwoSlopeNorm

    xname, yname = panel.heatmap
    theory = next(c for c in panel.curves if c.source == "theory")
    x, y, z = theory.column(xname), theory.column(yname), theory.value
    low, high = float(np.nanmin(z)), float(np.nanmax(z))
    # A diverging map centred at 0: blue where attention wins (E_attn < E_lin), red where it loses.
    # Each side is scaled to its own extreme, so a small region of the other sign stays visible.
    bound = max(abs(low), abs(high)) or 1.0
    norm = TwoSlopeNorm(vmin=low if low < 0 else -bound, vcenter=0.0, vmax=high if high > 0 else bound)
    mesh = ax.pcolormesh(x, y, z, cmap="RdBu_r", norm=norm, shading="gouraud")
    bar = fig.colorbar(mesh, ax=ax, label=panel.colorbar)
    bar.set_ticks(sorted({norm.vmin, norm.vmin / 2, 0.0, norm.vmax / 2, norm.vmax}))
    bar.ax.yaxis.set_major_formatter(matplotlib.ticker.FormatStrFormatter("%.3g"))
    if np.nanmin(z) < 0 < np.nanmax(z):
        contour = ax.contour(x, y, z, levels=[0.0], colors="k", linewidths=1.2)
        ax.clabel(contour, fmt={0.0: "0"}, fontsize=7)
        ax.plot([], [], color="k", lw=1.2, label=r"theory: $E_\mathrm{attn} = E_\mathrm{lin}$")
    for curve in panel.curves:
        if curve.source != "monte_carlo":
            continue
        cx, cy = curve.column(xname).ravel(), curve.column(yname).ravel()
        ax.scatter(cx, cy, c=curve.value.ravel(), cmap="RdBu_r", norm=norm, s=60, marker="o",
                   edgecolors="k", linewidths=1.0, zorder=3, label=curve.label)
        scale = np.log if panel.xscale == "log" else (lambda v: v)
        lo, hi = scale(np.nanmin(x)), scale(np.nanmax(x))
        for xi, yi, v, s in zip(cx, cy, curve.value.ravel(), curve.se.ravel()):
            right = (scale(xi) - lo) > 0.7 * (hi - lo)      # label on the left near the right edge
            ax.annotate(f"{v:+.3f}\n±{ERROR_BAR_SE * s:.3f}", (xi, yi), textcoords="offset points",
                        xytext=(-6, 4) if right else (6, 4), ha="right" if right else "left", fontsize=6,
                        bbox=dict(boxstyle="round,pad=0.15", fc="white", ec="none", alpha=0.7))


def _offsets(panel: Panel) -> dict[int, float]:
    """The drawing offset of each Monte Carlo curve (keyed by ``id``), centred on 0."""
    mc = [c for c in panel.curves if c.source == "monte_carlo"]
    return {id(c): panel.dodge * (k - (len(mc) - 1) / 2) for k, c in enumerate(mc)}


def _draw_lines(ax, panel: Panel) -> None:
    offsets = _offsets(panel)
    span = [np.ptp(c.column(c.x).astype(float)) for c in panel.curves if c.value.size]
    span = max(span) if span else 1.0
    for curve in panel.curves:
        x = curve.column(curve.x).astype(float).ravel()
        shift = offsets.get(id(curve), 0.0)
        if shift:
            x = x * 10.0**shift if panel.xscale == "log" else x + shift * span
        order = np.argsort(x, kind="stable")
        style = dict(curve.style)
        if curve.source == "theory":
            style.pop("marker", None)
            ax.plot(x[order], curve.value.ravel()[order], label=curve.label, **style)
        else:
            style.pop("linestyle", None)
            style.setdefault("marker", "o")
            yerr = None if curve.se is None else ERROR_BAR_SE * curve.se.ravel()[order]
            if yerr is not None and panel.yscale == "log":
                # A bar reaching below 0 cannot be drawn on a log axis: clip it just above 0.
                value = curve.value.ravel()[order]
                yerr = np.vstack([np.minimum(yerr, 0.95 * value), yerr])
            ax.errorbar(x[order], curve.value.ravel()[order], yerr=yerr, linestyle="none", ms=4,
                        capsize=2, label=curve.label, **style)
    for line in panel.extra:
        ax.plot(line["x"], line["y"], color=line.get("color", "0.5"), ls=line.get("ls", ":"), lw=1,
                label=line.get("label"))


def _monte_carlo_proxy(ax, panel: Panel, n_label: str) -> None:
    """One grey legend entry that says what the markers are, instead of one per series."""
    if any(c.source == "monte_carlo" and c.label is None for c in panel.curves):
        ax.errorbar([], [], yerr=[], fmt="o", color="0.35", ms=4, capsize=2,
                    label=f"Monte Carlo{n_label} (mean ± {ERROR_BAR_SE:g} s.e.)")


def draw(figure: Figure, path: str | pathlib.Path) -> pathlib.Path:
    """Draw ``figure`` into a PNG at ``path`` (Agg backend: no display needed) and return the path."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    count = len(figure.panels)
    ncols = figure.ncols or min(count, 3)
    nrows = math.ceil(count / ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(5.0 * ncols, 4.1 * nrows + 0.9), squeeze=False)
    for ax, panel in zip(axes.ravel(), figure.panels):
        if panel.heatmap:
            _draw_heatmap(fig, ax, panel)
        else:
            _draw_lines(ax, panel)
            _monte_carlo_proxy(ax, panel, figure.mc_label)
        ax.set_xscale(panel.xscale)
        ax.set_yscale(panel.yscale)
        if panel.ylim:
            ax.set_ylim(*panel.ylim)
        elif panel.headroom:
            low, high = ax.get_ylim()
            ax.set_ylim(low, high + panel.headroom * (high - low))
        if panel.xticks is not None:
            import matplotlib.ticker

            ax.set_xticks(list(panel.xticks))
            ax.xaxis.set_major_formatter(matplotlib.ticker.FormatStrFormatter("%g"))
            ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
        ax.set_xlabel(panel.xlabel)
        ax.set_ylabel(panel.ylabel)
        ax.set_title(panel.title, fontsize=10)
        if not panel.heatmap:
            ax.grid(alpha=0.3)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=7, loc=panel.legend_loc, framealpha=0.85)
    for ax in axes.ravel()[count:]:
        ax.set_visible(False)
    fig.suptitle(figure.title, fontsize=11)
    caption = "\n".join(textwrap.wrap(figure.caption, width=int(60 * ncols)))
    lines = caption.count("\n") + 1
    fig.text(0.01, 0.005, caption, fontsize=7.5, va="bottom", ha="left")
    fig.tight_layout(rect=(0, 0.035 * lines / nrows, 1, 0.97))
    path = pathlib.Path(path)
    fig.savefig(path, dpi=130)
    plt.close(fig)
    return path


def panel_keys(panels: Sequence[Panel]) -> list[str]:
    return [p.key for p in panels]
