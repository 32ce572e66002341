"""Validation: theory against Monte Carlo on a grid of settings, and the gap against n.

Monte Carlo means against the deterministic equivalent for f in {tanh, centred ReLU, He_3},
several geometries, c and gamma; and |Monte Carlo - theory| against n on log axes.

Run:  python derivations/validation.py [--quick] [--out DIR]
 or:  symrmt figure validation [--quick] [--out DIR]
Writes validation.png and validation.csv (the plotted numbers) into DIR (default derivations/out/).
The figure is built by symrmt/figures/validation.py.
"""
import sys

from symrmt.figures import main

if __name__ == "__main__":
    sys.exit(main("validation", sys.argv[1:]))
