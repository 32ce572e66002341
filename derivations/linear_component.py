"""The linear Hermite component a_1: without it the limit n -> infinity ignores the signal.
========================================================================================

f_s = cos(s) x + sin(s) He_3(x)/sqrt(6) has a_1 = cos(s) and nu = 1 for every s; the error
against ``|mu|^2``, against c, and against a_1; and a_1 = 0 over a ladder of sizes extrapolated to
n = infinity (the finite model does use a strong signal).

Run::

    python derivations/linear_component.py [--quick] [--out DIR] [--format png|pdf|svg]
    symrmt figure linear_component [--quick] [--out DIR] [--format png|pdf|svg]

Writes linear_component.png (or .pdf, .svg) and linear_component.csv (the plotted numbers) into DIR
(default ./symrmt-figures in the current directory).
The figure is built by symrmt/figures/linear_component.py.
"""
import sys

from symrmt.figures import main

if __name__ == "__main__":
    sys.exit(main("linear_component", sys.argv[1:]))
