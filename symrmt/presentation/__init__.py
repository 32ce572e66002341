"""What a person sees: plots (matplotlib), tables and JSON/CSV/HTML displays, and the demo.

=========================  ====================================================================
module                     what it holds
=========================  ====================================================================
:mod:`.plotting`           comparison panels, convergence ladders and spectra (matplotlib)
:mod:`.display`            results as dicts, CSV, HTML and LaTeX for notebooks and the CLI
:mod:`.demo`               ``symrmt demo``: derive, solve, compare, simulate, plot
=========================  ====================================================================

The figures of the paper are :mod:`symrmt.figures`.
"""
