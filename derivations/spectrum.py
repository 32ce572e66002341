"""Eigenvalue densities of K^T X^T X K / n and of K against Monte Carlo histograms.
================================================================================

The bulk densities (1/pi) Im m(x + i0) from the Dyson equations at gamma = -z, under histograms
of the simulated eigenvalues (log-log axes for the Gram matrix).

Run::

    python derivations/spectrum.py [--quick] [--out DIR] [--format png|pdf|svg]
    symrmt figure spectrum [--quick] [--out DIR] [--format png|pdf|svg]

Writes spectrum.png (or .pdf, .svg) and spectrum.csv (the plotted numbers) into DIR
(default ./symrmt-figures in the current directory).
The figure is built by symrmt/figures/spectrum.py.

.. image:: /figures/spectrum.png
   :alt: spectrum (the committed figure, docs/figures/spectrum.png)
"""
import sys

# sphinx_gallery_thumbnail_path = "figures/spectrum.png"

from symrmt.figures import main

if __name__ == "__main__":
    sys.exit(main("spectrum", sys.argv[1:]))
