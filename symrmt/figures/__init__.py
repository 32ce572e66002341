r"""The paper's results as figures: a registry of names, each building one :class:`Figure`.

Every figure is a function ``build(quick: bool) -> Figure`` in a module of this package;
:func:`run` draws it to ``NAME.png`` (or ``.pdf``, ``.svg``) and writes the plotted numbers to
``NAME.csv``. Error bars are 95% Student-t intervals over seeds, differences between attention
and regression are paired over seeds, and every caption ends with how many Monte Carlo points
miss the theory by more than their interval (:func:`finite_size_note`). The claims the titles
and captions make are in :mod:`symrmt.figures.claims`, each with the region where it holds and
a check against the theory; :func:`build` puts a figure's claim into its title and the first
sentence of its caption.

Modules: :mod:`~symrmt.figures.figure` (what a figure is: panels, curves, their CSV and statistics),
:mod:`~symrmt.figures.drawing` (the image), :mod:`~symrmt.figures.series` (theory lines, Monte Carlo
markers and the calls behind them), :mod:`~symrmt.figures.nonlinearities` (the fixed set of f, and the one f of a
figure built around one), :mod:`~symrmt.figures.convergence` (panels of a ladder of sizes extrapolated to
:math:`n = \infty`), :mod:`~symrmt.figures.claims`, and one module per figure.
The command ``symrmt figure NAME`` calls :func:`run`, so the figure code is installed with the package;
the gallery scripts ``derivations/NAME.py`` are short examples of each figure's main result through the
public API.

The figures built around one nonlinearity (:data:`TAKE_F`: alignment, phase_diagram, rank; tanh
by default) take another, with parameters: ``run("rank", f="tanh(s*x)", params={"s": 2.0})``. Their
claims are made for tanh, so such a figure is titled with its f and asserts none.

``quick=True`` uses small n, few seeds and coarse grids (seconds; used by the smoke
tests); ``quick=False`` is the publication version (minutes to an hour on two cores).

>>> sorted(FIGURES)[:3]
['alignment', 'linear_component', 'paper_fig1']
"""
from __future__ import annotations

import argparse
import importlib
import pathlib
import sys
from typing import Mapping, Sequence

from ..errors import SymrmtInputError
from ..runtime.files import check_outputs, fresh_path
from .claims import claims_of
from .drawing import IMAGE_FORMATS, draw
from .figure import Curve, Figure, FigureUnavailable, Panel, csv_rows, finite_size_note, write_csv
from .nonlinearities import TAKE_F, figure_f

__all__ = ["FIGURES", "Curve", "Figure", "FigureUnavailable", "Panel", "build", "run", "main",
           "describe", "DEFAULT_OUT", "TAKE_F", "figure_f", "IMAGE_FORMATS", "csv_rows", "draw", "write_csv",
           "finite_size_note"]

#: name -> one-line description; the module ``symrmt.figures.<name>`` defines ``build(quick)``.
FIGURES: dict[str, str] = {
    "random_inputs": "pure-noise inputs: E_attn and E_lin against gamma and c for six nonlinearities, and the map of "
                     "E_attn - E_lin over (c, gamma) with the region where attention wins",
    "alignment": "signal |mu| = 1: E_attn as w_K = w_Q turns from aligned with mu to orthogonal, the paired gap to E_lin, "
                 "and its convergence in n at c = 0.25",
    "phase_diagram": "sign of E_attn - E_lin over (c, |mu|^2) with aligned weights, and over (|mu|^2, alignment)",
    "linear_component": "f = cos(s) x + sin(s) He_3(x)/sqrt(6): the error against a_1, |mu|^2 and c, and a_1 = 0 "
                        "extrapolated to n = infinity",
    "spectrum": "eigenvalue histograms of K^T X^T X K/n (log-log) and of K against the predicted densities",
    "rank": "rank-1 against rank-r attention weights of the same total strength",
    "validation": "theory against Monte Carlo on a grid of settings, and a strong signal extrapolated to n = infinity",
    "real_weights": "MiniLM-L6's real W_K^T W_Q, a layer and a head, noise and signal: the Monte Carlo against the "
                    "theory of its fitted I + rank 8, the elliptic model and the exact general-M theory",
    "real_weights_fits": "MiniLM-L6's real W_K^T W_Q against the theory and the Monte Carlo of its fitted s I + rank r",
    "paper_fig1": "the paper's ridge-regression figure at its v1 settings: E_RR against gamma (p = 2048, n = 512), "
                  "against p (n = 4096, gamma = 1e-5) and against |mu|^2 (p = 512, n = 2048)",
    "softmax": "softmax attention against the entrywise theory of exp(x/tau) - e^(1/(2 tau^2)) over gamma/a_1^2 and c, "
               "tau = 0.5, 1, 2, with and without signal and aligned weights, and tau = 0.5 extrapolated to n = infinity",
}

#: Where figures go unless ``out`` says otherwise: this folder in the current working directory.
DEFAULT_OUT = pathlib.Path("symrmt-figures")


def describe(name: str) -> str:
    """The one-line description of figure ``name``.

    Parameters
    ----------
    name : str
        A registered figure, one of :data:`FIGURES`.

    Returns
    -------
    str
        Its one-line description, as ``symrmt figure --list`` prints it.

    Raises
    ------
    SymrmtInputError
        An unknown ``name`` (the message lists the figures).

    See Also
    --------
    run : Draw the figure.

    Examples
    --------
    >>> from symrmt.figures import describe
    >>> describe("rank")
    'rank-1 against rank-r attention weights of the same total strength'
    """
    return FIGURES[_checked(name)]


def _checked(name: str) -> str:
    if name not in FIGURES:
        raise SymrmtInputError(f"unknown figure {name!r}; the figures are: {', '.join(FIGURES)}.")
    return name


def build(name: str, quick: bool = False, *, f: str | None = None, params: Mapping[str, float] | None = None,
          center: bool = False, **sizes) -> Figure:
    """Compute figure ``name`` (theory and Monte Carlo) without drawing it.

    ``f`` (a formula) with ``params`` (one value for each of its parameters) and ``center`` replaces
    the nonlinearity of a figure of :data:`TAKE_F`; the others refuse it. ``sizes`` overrides the
    mode's Monte Carlo sizes, e.g. ``n=1024, seeds=4`` for a run between quick and full.

    Parameters
    ----------
    name : str
        A registered figure, one of :data:`FIGURES`.
    quick : bool
        Small n, few seeds and coarse grids (seconds) instead of the publication sizes (minutes to an hour).
    f : str, optional
        Another nonlinearity, for the figures of :data:`TAKE_F` only.
    params : dict, optional
        One value for each parameter of ``f``.
    center : bool
        Subtract :math:`a_0` from ``f`` first.
    **sizes
        Monte Carlo sizes that override the mode's, e.g. ``n=1024, seeds=4``.

    Returns
    -------
    Figure
        The panels, their curves (theory and Monte Carlo), title and caption, not yet drawn.

    Raises
    ------
    SymrmtInputError
        An unknown ``name``, or an ``f`` given to a figure that draws a fixed set of f.
    FigureUnavailable
        When the figure cannot be built here (e.g. the MiniLM weights are not installed).

    See Also
    --------
    run : Build and draw, with the CSV of the plotted numbers.

    Examples
    --------
    The cheapest figure at a tiny n (a fraction of a second; far too small to publish, and its caption says so):

    >>> from symrmt.figures import build
    >>> fig = build("spectrum", quick=True, n=32, seeds=2)
    >>> fig.name, [panel.key for panel in fig.panels], fig.mc_label
    ('spectrum', ['a', 'b', 'c'], ', n = 32, 2 seeds')
    >>> "Monte Carlo points miss the theory by more than their 95% interval" in fig.caption
    True
    """
    module = importlib.import_module(f".{_checked(name)}", __name__)
    override = _f_override(name, f, params, center)
    figure = module.build(quick=quick, **override, **sizes)
    stated = claims_of(name)
    if stated:
        f = override.get("f")
        figure.title = stated[0].title_for(f)
        # Every claim of the figure, each with its region; for another f one sentence says none is asserted.
        sentences = [c.sentence_for(f) for c in stated] if f is None or f.default else [stated[0].sentence_for(f)]
        figure.caption = f"{' '.join(sentences)} {figure.caption}"
    note = finite_size_note(figure)
    if note:
        figure.caption = f"{figure.caption} {note}"
    return figure


def _f_override(name: str, f: str | None, params: Mapping[str, float] | None, center: bool) -> dict:
    """``{"f": FigureF}`` for a figure of :data:`TAKE_F` given an f; nothing without one."""
    if f is None and params is None and not center:
        return {}
    if name not in TAKE_F:
        raise SymrmtInputError(f"figure {name!r} draws a fixed set of f and takes no f; the figures that take one "
                               f"are {', '.join(TAKE_F)}.")
    return {"f": figure_f(f, params, center)}


def run(name: str, quick: bool = False, out: str | pathlib.Path | None = None, fmt: str = "png", *,
        f: str | None = None, params: Mapping[str, float] | None = None, center: bool = False, **sizes) -> dict:
    """Build figure ``name`` and write ``NAME.<fmt>`` and ``NAME.csv`` into ``out`` (default :data:`DEFAULT_OUT`).

    Both files are written atomically. In a folder ``out`` the user names, they replace files of those
    names; in the default folder, which the user did not name, existing files are kept and the figure
    goes to the first free ``NAME-1.<fmt>`` and ``NAME-1.csv``, ... (the names are returned).
    ``fmt`` is one of :data:`IMAGE_FORMATS` (``"png"``, ``"pdf"``, ``"svg"``); ``f``, ``params``,
    ``center`` and ``sizes`` are those of :func:`build`.

    Parameters
    ----------
    name : str
        A registered figure, one of :data:`FIGURES`.
    quick : bool
        Small n, few seeds and coarse grids (seconds) instead of the publication sizes.
    out : str or path, optional
        The folder (default :data:`DEFAULT_OUT` in the current directory).
    fmt : {"png", "pdf", "svg"}
        The image format.
    f, params, center, **sizes
        As in :func:`build`.

    Returns
    -------
    dict
        ``{"image": path, "format": fmt, "csv": path, "figure": Figure}``.

    Raises
    ------
    SymrmtInputError
        An unknown ``name`` or ``fmt``, or an output that cannot be written (checked before anything is computed).
    FigureUnavailable
        When the figure cannot be built here.

    See Also
    --------
    build : The figure without drawing it.
    main : The same from a command line (``symrmt figure NAME``).

    Examples
    --------
    >>> import tempfile
    >>> from symrmt.figures import run
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     written = run("spectrum", quick=True, out=folder, fmt="svg", n=32, seeds=2)
    ...     columns = written["csv"].read_text().splitlines()[0].split(",")
    >>> written["image"].name, written["csv"].name, columns[:5]
    ('spectrum.svg', 'spectrum.csv', ['figure', 'panel', 'series', 'source', 'quantity'])
    """
    if fmt not in IMAGE_FORMATS:
        raise SymrmtInputError(f"format {fmt!r}: use one of {', '.join(IMAGE_FORMATS)}.")
    _checked(name)
    folder, replace = pathlib.Path(DEFAULT_OUT if out is None else out), out is not None
    image, table = folder / f"{name}.{fmt}", folder / f"{name}.csv"
    if not replace:
        image = fresh_path(image, (".csv",))
        table = image.with_suffix(".csv")
    check_outputs([(image, "the image"), (table, "the CSV")])     # e.g. NAME.csv a link to NAME.png
    figure = build(name, quick=quick, f=f, params=params, center=center, **sizes)
    folder.mkdir(parents=True, exist_ok=True)
    image = draw(figure, image, replace=replace)
    table = write_csv(figure, table, replace=replace)
    return {"image": image, "format": fmt, "csv": table, "figure": figure}


def main(name: str, argv: Sequence[str] | None = None) -> int:
    """A command line of one figure, ``main(NAME, ["--quick", "--out", DIR, "--format", F])`` (as ``symrmt figure``).

    Also ``--n`` and ``--seeds`` (the ``sizes`` of :func:`build`). Prints the two files written and returns 0, or
    2 with one line on stderr when the figure cannot be built here (:class:`FigureUnavailable`).

    Parameters
    ----------
    name : str
        A registered figure, one of :data:`FIGURES`.
    argv : sequence of str, optional
        The command-line arguments (default ``sys.argv[1:]``): ``--quick``, ``--out DIR``, ``--format F``, ``--n``,
        ``--seeds``.

    Returns
    -------
    int
        The exit status: 0 done, 2 the figure cannot be built here (one line on stderr).

    Raises
    ------
    SystemExit
        On ``--help`` or arguments argparse refuses.

    See Also
    --------
    run : The same from Python.

    Examples
    --------
    >>> import contextlib, io, pathlib, tempfile
    >>> from symrmt.figures import main
    >>> printed = io.StringIO()
    >>> with tempfile.TemporaryDirectory() as folder, contextlib.redirect_stdout(printed):
    ...     code = main("spectrum", ["--quick", "--n", "32", "--seeds", "2", "--format", "svg", "--out", folder])
    >>> code, [pathlib.Path(line).name for line in printed.getvalue().splitlines()]
    (0, ['spectrum.svg', 'spectrum.csv'])
    """
    parser = argparse.ArgumentParser(prog=f"{name}.py", description=describe(name))
    parser.add_argument("--quick", action="store_true", help="small n, few points (seconds)")
    parser.add_argument("--out", default=None, metavar="DIR",
                        help=f"output folder (default: ./{DEFAULT_OUT}, in the current directory)")
    parser.add_argument("--format", default="png", choices=IMAGE_FORMATS, help="image format (default png)")
    parser.add_argument("--n", type=int, default=None, help="override the mode's Monte Carlo n (tokens)")
    parser.add_argument("--seeds", type=int, default=None, help="override the mode's number of seeds")
    args = parser.parse_args(argv)
    sizes = {k: v for k, v in (("n", args.n), ("seeds", args.seeds)) if v is not None}
    try:
        written = run(name, quick=args.quick, out=args.out, fmt=args.format, **sizes)
    except FigureUnavailable as exc:
        print(f"{name}: {exc}", file=sys.stderr)
        return 2
    print(f"{written['image']}\n{written['csv']}")
    return 0
