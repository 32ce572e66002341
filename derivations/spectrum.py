"""Eigenvalue densities of K^T X^T X K / n and of K against Monte Carlo histograms.

The bulk densities (1/pi) Im m(x + i0) from the Dyson equations at gamma = -z, under histograms
of pooled simulated eigenvalues.

Run:  python derivations/spectrum.py [--quick] [--out DIR]
 or:  symrmt figure spectrum [--quick] [--out DIR]
Writes spectrum.png and spectrum.csv (the plotted numbers) into DIR (default derivations/out/).
The figure is built by symrmt/figures/spectrum.py.
"""
import sys

from symrmt.figures import main

if __name__ == "__main__":
    sys.exit(main("spectrum", sys.argv[1:]))
