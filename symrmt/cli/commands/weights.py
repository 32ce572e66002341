"""``symrmt weights FILE``: how far a model's attention weights are from s*I + low rank (:mod:`symrmt.weights`)."""
from __future__ import annotations

import argparse

from ...weights import command
from ...runtime.files import check_not_an_input
from ..paths import PLOT_FORMATS, check_output_file

__all__ = ["add_weights", "cmd_weights"]


def add_weights(sub) -> None:
    p = sub.add_parser("weights", help=command.HELP,
                       description="Read the query and key projections of a BERT or GPT-2 checkpoint (safetensors, "
                                   "data only) and fit M = W_K^T W_Q/sqrt(d) (key first: the score of key x_i and query x_j is "
                                   "x_i^T M x_j) by s*I + rank r, per layer and head.")
    command.add_arguments(p)


def cmd_weights(args: argparse.Namespace) -> dict:
    if args.plot:
        check_output_file(args.plot, "--plot", PLOT_FORMATS)
        check_not_an_input(args.plot, "--plot", [(args.file, "FILE")])
    return command.run(args)
