"""Aligned attention weights: the gap to linear regression shrinks as w_K = w_Q turn towards mu.

E_attn against the angle between w and mu (|mu| = 1), the gap E_attn - E_lin for several c,
and the aligned / orthogonal curves against the ridge.

Run:  python derivations/alignment.py [--quick] [--out DIR]
 or:  symrmt figure alignment [--quick] [--out DIR]
Writes alignment.png and alignment.csv (the plotted numbers) into DIR (default derivations/out/).
The figure is built by symrmt/figures/alignment.py.
"""
import sys

from symrmt.figures import main

if __name__ == "__main__":
    sys.exit(main("alignment", sys.argv[1:]))
