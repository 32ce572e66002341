"""Results as dicts, CSV, HTML and LaTeX: :mod:`symrmt.display`, re-exported beside the plots.

The functions live in the inputs layer so that the classes of every layer (Hermite data, solved
systems, simulations, convergence ladders) can use them for their Jupyter displays without an
import upwards; this module keeps the name the applications and notebooks use.

>>> from symrmt.presentation import display
>>> display.rows_to_csv(["gamma", "E"], [[0.5, 1.25]]).splitlines()
['gamma,E', '0.5,1.25']
"""
from __future__ import annotations

from ..display import (MAX_ROWS, convergence_csv, convergence_html, hermite_latex, rows_to_csv,
                       simulation_as_dict, simulation_html, solve_as_dict, solve_html, to_csv)

__all__ = ["hermite_latex", "solve_html", "simulation_html", "solve_as_dict", "simulation_as_dict",
           "to_csv", "rows_to_csv", "convergence_html", "convergence_csv", "MAX_ROWS"]
