"""The linear Hermite component a_1: without it attention cannot use the signal.

f_s = cos(s) x + sin(s) He_3(x)/sqrt(6) has a_1 = cos(s) and nu = 1 for every s; the error
against |mu|^2, against c, and against a_1.

Run:  python derivations/linear_component.py [--quick] [--out DIR]
 or:  symrmt figure linear_component [--quick] [--out DIR]
Writes linear_component.png and linear_component.csv (the plotted numbers) into DIR (default derivations/out/).
The figure is built by symrmt/figures/linear_component.py.
"""
import sys

from symrmt.figures import main

if __name__ == "__main__":
    sys.exit(main("linear_component", sys.argv[1:]))
