"""One module per command group; :data:`COMMANDS` maps each command name to its handler.

A handler takes the parsed namespace, prints its table unless ``--json``, and returns the
JSON-ready dict that :func:`symrmt.cli.main` prints with ``--json``.
"""
from __future__ import annotations

from . import check, converge, demo, figure, heads, hermite, simulate, sweep, theory, weights

__all__ = ["COMMANDS"]

#: Each command name -> its handler, which takes the parsed namespace and returns the JSON-ready dict.
COMMANDS = {"hermite": hermite.cmd_hermite, "theory": theory.cmd_theory, "simulate": simulate.cmd_simulate,
            "compare": simulate.cmd_compare, "converge": converge.cmd_converge, "latex": theory.cmd_latex,
            "spectrum": theory.cmd_spectrum, "heads": heads.cmd_heads, "demo": demo.cmd_demo,
            "figure": figure.cmd_figure, "sweep": sweep.cmd_sweep, "weights": weights.cmd_weights,
            "check": check.cmd_check}
