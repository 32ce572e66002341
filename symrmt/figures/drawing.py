r"""Drawing a :class:`~symrmt.figures.Figure`: theory as lines or heat maps, Monte Carlo as markers.

Layout: one grid cell per panel, a legend cell under each panel (so that no legend covers
data), and the caption in a cell of its own at the bottom; matplotlib's constrained layout
sizes the margins. Error bars are the 95% Student-t intervals of
:meth:`~symrmt.figures.Curve.bounds`. Heat maps use a diverging colour map with limits
symmetric about 0 (equal colours mean equal magnitudes on both sides), a labelled colour bar,
the zero contour, and hatching where the value is negative, so that a region of small
negative values stays visible without exaggerating it.
"""
from __future__ import annotations

import math
import pathlib
import re
import textwrap

import numpy as np

from ..runtime.files import save_figure
from .figure import Curve, Figure, Panel

__all__ = ["draw", "IMAGE_FORMATS"]

#: The image formats :func:`draw` writes (matplotlib picks the format from the extension).
IMAGE_FORMATS = ("png", "pdf", "svg")

_PANEL_WIDTH, _PANEL_HEIGHT = 5.0, 3.7     # inches per panel
_LEGEND_LINE, _CAPTION_LINE = 0.16, 0.15   # inches per line of legend (7 pt) and caption (7.5 pt)
_LEGEND_CHARS = 34          # the longest label (in characters) that fits in one of two legend columns


def _draw_heatmap(fig, ax, panel: Panel) -> None:
    from matplotlib.colors import Normalize  # heavy: Matplotlib

    xname, yname = panel.heatmap
    theory, *others = [c for c in panel.curves if c.source == "theory"]
    x, y, z = theory.column(xname).astype(float), theory.column(yname).astype(float), theory.value
    bound = float(np.nanmax(np.abs(z))) or 1.0
    norm = Normalize(vmin=-bound, vmax=bound)          # centred at 0, the same scale on both sides
    mesh = ax.pcolormesh(x, y, z, cmap="RdBu_r", norm=norm, shading="gouraud")
    fig.colorbar(mesh, ax=ax, label=panel.colorbar)
    if np.nanmin(z) < 0 < np.nanmax(z):
        ax.contourf(x, y, z, levels=[-np.inf, 0.0], colors="none", hatches=["////"])
        ax.contour(x, y, z, levels=[0.0], colors="k", linewidths=1.4)
        ax.plot([], [], color="k", lw=1.4, label=r"theory: $E_\mathrm{attn} = E_\mathrm{lin}$")
        ax.fill([], [], facecolor="none", hatch="////", edgecolor="k", label=r"theory: attention wins ($< 0$)")
    for other in others:        # further theory maps: only their zero lines
        oz = other.value
        if np.nanmin(oz) < 0 < np.nanmax(oz):
            color = other.style.get("color", "0.3")
            ax.contour(other.column(xname).astype(float), other.column(yname).astype(float), oz, levels=[0.0],
                       colors=[color], linewidths=1.0, linestyles="--")
            ax.plot([], [], color=color, lw=1.0, ls="--", label=other.label)
    for curve in panel.curves:
        if curve.source == "monte_carlo":
            _heatmap_checks(ax, panel, curve, norm)
    _draw_extra(ax, panel)


def _heatmap_checks(ax, panel: Panel, curve: Curve, norm) -> None:
    """Monte Carlo checks on a map: circles coloured like the map, labelled with mean ± interval."""
    xname, yname = panel.heatmap
    cx, cy = curve.column(xname).astype(float).ravel(), curve.column(yname).astype(float).ravel()
    ax.scatter(cx, cy, c=curve.value.ravel(), cmap="RdBu_r", norm=norm, s=60, marker="o",
               edgecolors="k", linewidths=1.0, zorder=3, label=curve.label)
    scale = np.log if panel.xscale == "log" else (lambda v: v)
    lo, hi = ax.get_xlim()
    lo, hi = scale(lo), scale(hi)
    low, high = curve.bounds()
    for xi, yi, v, half in zip(cx, cy, curve.value.ravel(), 0.5 * (high - low).ravel()):
        right = (scale(xi) - lo) > 0.6 * (hi - lo)      # label on the left near the right edge
        ax.annotate(f"{v:+.3f}\n±{half:.3f}", (xi, yi), textcoords="offset points",
                    xytext=(-7, 4) if right else (7, 4), ha="right" if right else "left", fontsize=6,
                    bbox=dict(boxstyle="round,pad=0.15", fc="white", ec="none", alpha=0.8), zorder=4)


def _offsets(panel: Panel) -> dict[int, float]:
    """The drawing offset of each Monte Carlo curve (keyed by ``id``), centred on 0."""
    mc = [c for c in panel.curves if c.source == "monte_carlo"]
    return {id(c): panel.dodge * (k - (len(mc) - 1) / 2) for k, c in enumerate(mc)}


def _draw_curve(ax, panel: Panel, curve: Curve, shift: float, span: float) -> None:
    x = curve.column(curve.x).astype(float).ravel()
    if shift:
        x = x * 10.0**shift if panel.xscale == "log" else x + shift * span
    order = np.argsort(x, kind="stable")
    value = curve.value.ravel()[order]
    style = dict(curve.style)
    bounds = curve.bounds()
    if bounds is None:      # theory or a fit: a line, unless the style asks for markers only
        if style.get("linestyle") != "none":
            style.pop("marker", None)
        ax.plot(x[order], value, label=curve.label, **style)
        return
    style.pop("linestyle", None)
    style.setdefault("marker", "o")
    yerr = None
    if bounds is not None:
        below, above = value - bounds[0].ravel()[order], bounds[1].ravel()[order] - value
        if panel.yscale == "log":
            below = np.minimum(below, 0.95 * value)   # a bar reaching below 0 cannot be drawn on a log axis
        yerr = np.vstack([below, above])
    ax.errorbar(x[order], value, yerr=yerr, linestyle="none", ms=style.pop("ms", 4), capsize=2,
                label=curve.label, **style)


def _draw_lines(ax, panel: Panel) -> None:
    offsets = _offsets(panel)
    spans = [np.ptp(c.column(c.x).astype(float)) for c in panel.curves if c.value.size]
    span = max(spans) if spans else 1.0
    for curve in panel.curves:
        _draw_curve(ax, panel, curve, offsets.get(id(curve), 0.0), span)
    _draw_extra(ax, panel)


def _draw_extra(ax, panel: Panel) -> None:
    """The panel's reference lines (a ``y`` of None: a vertical line)."""
    for line in panel.extra:
        style = dict(color=line.get("color", "0.5"), ls=line.get("ls", ":"), lw=1.2, label=line.get("label"))
        if line["y"] is None:
            ax.axvline(line["x"][0], **style)
        else:
            ax.plot(line["x"], line["y"], **style)


def _monte_carlo_proxy(ax, panel: Panel, n_label: str) -> None:
    """One grey legend entry that says what the markers are, instead of one per series."""
    if any(c.source == "monte_carlo" and c.label is None for c in panel.curves):
        ax.errorbar([], [], yerr=[], fmt="o", color="0.35", ms=4, capsize=2,
                    label=f"Monte Carlo{n_label}:\nmean, 95% t interval")


def _style_axes(ax, panel: Panel) -> None:
    import matplotlib.ticker  # heavy: Matplotlib

    ax.set_xscale(panel.xscale)
    ax.set_yscale(panel.yscale)
    if panel.ylim:
        ax.set_ylim(*panel.ylim)
    if panel.xlim:
        ax.set_xlim(*panel.xlim)
    if panel.xticks is not None:
        ax.set_xticks(list(panel.xticks))
        if panel.xticklabels is not None:
            ax.set_xticklabels(list(panel.xticklabels))
        else:
            ax.xaxis.set_major_formatter(matplotlib.ticker.FormatStrFormatter("%g"))
        ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    ax.set_xlabel(panel.xlabel)
    ax.set_ylabel(panel.ylabel)
    ax.set_title(panel.title, fontsize=10)
    if not panel.heatmap:
        ax.grid(alpha=0.3)


def _draw_panel(fig, ax, panel: Panel, mc_label: str) -> tuple[list, list[str]]:
    """Draw one panel; return its legend entries (drawn in the cell below it)."""
    if panel.heatmap:
        _draw_heatmap(fig, ax, panel)
    else:
        _draw_lines(ax, panel)
        _monte_carlo_proxy(ax, panel, mc_label)
    _style_axes(ax, panel)
    return ax.get_legend_handles_labels()


def _legend_columns(labels: list[str]) -> int:
    """Two legend columns when the labels are short enough to fit side by side under a panel, else one."""
    longest = max((len(re.sub(r"[$\\{}^_]|mathrm", "", line)) for label in labels for line in label.split("\n")),
                  default=0)
    return 2 if longest <= _LEGEND_CHARS else 1


def _caption_lines(caption: str, width_in: float) -> list[str]:
    return textwrap.wrap(caption, width=int(15.5 * width_in)) if caption else []


def _place_panels(fig, grid, figure: Figure, ncols: int) -> list[int]:
    """Draw every panel in its cell and its legend in the cell below; return the legend lines per row."""
    lines_per_row: dict[int, int] = {}
    for k, panel in enumerate(figure.panels):
        row, col = divmod(k, ncols)
        handles, labels = _draw_panel(fig, fig.add_subplot(grid[2 * row, col]), panel, figure.mc_label)
        slot = fig.add_subplot(grid[2 * row + 1, col])
        slot.axis("off")
        columns = _legend_columns(labels)
        if handles:
            slot.legend(handles, labels, loc="upper center", fontsize=7, ncol=columns, frameon=False,
                        borderaxespad=0.0)
        lines = math.ceil(sum(1 + label.count("\n") for label in labels) / columns)
        lines_per_row[row] = max(lines_per_row.get(row, 0), lines)
    return [lines_per_row.get(row, 0) for row in range(max(lines_per_row) + 1)]


def draw(figure: Figure, path: str | pathlib.Path, *, replace: bool = True) -> pathlib.Path:
    """Draw ``figure`` into ``path`` (.png, .pdf or .svg; Agg backend, no display needed) and return the path.

    Written atomically (:func:`symrmt.runtime.files.save_figure`); ``replace=False`` keeps an existing file and
    writes ``NAME-1.EXT``, ... instead (the name written is returned).

    Parameters
    ----------
    figure : Figure
        A built figure (:func:`build`).
    path : str or path
        The image file; its extension (.png, .pdf, .svg) is the format.
    replace : bool, keyword-only
        Replace an existing file (default), or keep it and write ``NAME-1.EXT``.

    Returns
    -------
    pathlib.Path
        The name written.

    Raises
    ------
    SymrmtInputError
        An extension other than .png, .pdf and .svg, or a file that cannot be written.

    See Also
    --------
    run : Build, draw and write the CSV in one call.

    Examples
    --------
    >>> from symrmt.figures import Curve, Figure, Panel
    >>> line = Curve("tanh", "theory", "E_attn", "gamma", {"gamma": [0.1, 1.0]}, [0.453, 0.743])
    >>> dots = Curve(None, "monte_carlo", "E_attn", "gamma", {"gamma": [0.1, 1.0], "n": 256, "seeds": 4,
    ...              "theory": [0.453, 0.743]}, [0.456, 0.743], se=[0.019, 0.020], series="tanh, Monte Carlo")
    >>> figure = Figure("example", "An example", "Theory and Monte Carlo.", [Panel("a", "E_attn", [line, dots],
    ...                 "gamma", "E_attn", xscale="log")])
    >>> import pathlib, tempfile
    >>> from symrmt.figures import draw
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     image = draw(figure, pathlib.Path(folder) / "example.svg")
    ...     image.read_text().lstrip().startswith("<?xml")
    True
    """
    import matplotlib  # heavy: Matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # heavy: Matplotlib

    ncols = figure.ncols or min(len(figure.panels), 3)
    nrows = math.ceil(len(figure.panels) / ncols)
    width = _PANEL_WIDTH * ncols
    caption = _caption_lines(figure.caption, width)
    fig = plt.figure(figsize=(width, 1.0), layout="constrained")
    grid = fig.add_gridspec(2 * nrows + 1, ncols)
    heights = []
    for lines in _place_panels(fig, grid, figure, ncols):
        heights += [_PANEL_HEIGHT, max(lines, 1) * _LEGEND_LINE]
    heights.append(max(len(caption), 1) * _CAPTION_LINE)
    grid.set_height_ratios(heights)
    text = fig.add_subplot(grid[-1, :])
    text.axis("off")
    text.text(0.0, 1.0, "\n".join(caption), fontsize=7.5, va="top", ha="left", transform=text.transAxes)
    fig.set_size_inches(width, sum(heights) + 0.5 + 0.35 * (nrows - 1))
    fig.suptitle(figure.title, fontsize=11)
    try:
        return save_figure(fig, path, dpi=130, replace=replace)
    finally:
        plt.close(fig)
