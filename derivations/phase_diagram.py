"""Phase diagram: where nonlinear attention beats linear regression (only at c <~ 0.2, by <= 0.003).
=================================================================================================

Heat maps of E_attn - E_lin at a fixed ridge over (c, ``|mu|^2``) with aligned weights and over
(``|mu|^2``, alignment) at a fixed small c, with the zero contour and Monte Carlo checks.

Run::

    python derivations/phase_diagram.py [--quick] [--out DIR] [--format png|pdf|svg]
    symrmt figure phase_diagram [--quick] [--out DIR] [--format png|pdf|svg]

Writes phase_diagram.png (or .pdf, .svg) and phase_diagram.csv (the plotted numbers) into DIR
(default ./symrmt-figures in the current directory).
The figure is built by symrmt/figures/phase_diagram.py.
"""
import sys

from symrmt.figures import main

if __name__ == "__main__":
    sys.exit(main("phase_diagram", sys.argv[1:]))
