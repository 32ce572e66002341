r"""The paper's results as figures: a registry of names, each building one :class:`Figure`.

Every figure is a function ``build(quick: bool) -> Figure`` in a module of this package;
:func:`run` draws it to ``NAME.png`` and writes the plotted numbers to ``NAME.csv``.
The gallery scripts ``derivations/NAME.py`` and the command ``symrmt figure NAME`` both
call :func:`run`, so the figure code is installed with the package.

``quick=True`` uses small n, few seeds and coarse grids (seconds; used by the smoke
tests); ``quick=False`` is the publication version (minutes to an hour on two cores).

>>> sorted(FIGURES)[:3]
['alignment', 'linear_component', 'phase_diagram']
"""
from __future__ import annotations

import argparse
import importlib
import pathlib
import sys
from typing import Sequence

from ._core import Curve, Figure, FigureUnavailable, Panel, csv_rows, draw, write_csv

__all__ = ["FIGURES", "Curve", "Figure", "FigureUnavailable", "Panel", "build", "run", "main",
           "describe", "DEFAULT_OUT", "csv_rows", "draw", "write_csv"]

#: name -> one-line description; the module ``symrmt.figures.<name>`` defines ``build(quick)``.
FIGURES: dict[str, str] = {
    "random_inputs": "pure-noise inputs: E_attn and E_lin against gamma and against c = p/n, six nonlinearities",
    "alignment": "signal |mu| = 1: E_attn as w_K = w_Q turns from aligned with mu to orthogonal, E_lin for reference",
    "phase_diagram": "sign of E_attn - E_lin over (c, |mu|^2) with aligned weights, and over (|mu|^2, alignment)",
    "linear_component": "f = cos(s) x + sin(s) He_3(x)/sqrt(6): the error against a_1, |mu|^2 and c",
    "spectrum": "eigenvalue histograms of K^T X^T X K/n and of K against the predicted densities",
    "rank": "rank-1 against rank-r attention weights of the same total strength",
    "validation": "theory against Monte Carlo on a grid of settings, and the gap against n (smooth f and a_1 = 0)",
    "real_weights": "MiniLM-L6's real W_K^T W_Q against the theory and the Monte Carlo of its fitted s I + rank r",
}

#: Where figures go unless ``out`` says otherwise (relative to the working directory).
DEFAULT_OUT = pathlib.Path("derivations") / "out"


def describe(name: str) -> str:
    """The one-line description of figure ``name``."""
    return FIGURES[_checked(name)]


def _checked(name: str) -> str:
    if name not in FIGURES:
        from ..errors import SymrmtInputError

        raise SymrmtInputError(f"unknown figure {name!r}; the figures are: {', '.join(FIGURES)}.")
    return name


def build(name: str, quick: bool = False, **sizes) -> Figure:
    """Compute figure ``name`` (theory and Monte Carlo) without drawing it.

    ``sizes`` overrides the mode's Monte Carlo sizes, e.g. ``n=1024, seeds=4`` for a run between
    quick and full.
    """
    module = importlib.import_module(f".{_checked(name)}", __name__)
    return module.build(quick=quick, **sizes)


def run(name: str, quick: bool = False, out: str | pathlib.Path | None = None, **sizes) -> dict[str, pathlib.Path]:
    """Build figure ``name`` and write ``NAME.png`` and ``NAME.csv`` into ``out``.

    Returns
    -------
    dict
        ``{"png": path, "csv": path, "figure": Figure}``.
    """
    figure = build(name, quick=quick, **sizes)
    folder = pathlib.Path(DEFAULT_OUT if out is None else out)
    folder.mkdir(parents=True, exist_ok=True)
    png = draw(figure, folder / f"{name}.png")
    table = write_csv(figure, folder / f"{name}.csv")
    return {"png": png, "csv": table, "figure": figure}


def main(name: str, argv: Sequence[str] | None = None) -> int:
    """Command line of one gallery script: ``python derivations/NAME.py [--quick] [--out DIR]``."""
    parser = argparse.ArgumentParser(prog=f"{name}.py", description=describe(name))
    parser.add_argument("--quick", action="store_true", help="small n, few points (seconds)")
    parser.add_argument("--out", default=None, metavar="DIR", help=f"output folder (default {DEFAULT_OUT})")
    parser.add_argument("--n", type=int, default=None, help="override the mode's Monte Carlo n (tokens)")
    parser.add_argument("--seeds", type=int, default=None, help="override the mode's number of seeds")
    args = parser.parse_args(argv)
    sizes = {k: v for k, v in (("n", args.n), ("seeds", args.seeds)) if v is not None}
    try:
        written = run(name, quick=args.quick, out=args.out, **sizes)
    except FigureUnavailable as exc:
        print(f"{name}: {exc}", file=sys.stderr)
        return 2
    print(f"{written['png']}\n{written['csv']}")
    return 0
