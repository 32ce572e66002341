"""Validation: theory against Monte Carlo on a grid of settings, and the convergence in n.
=======================================================================================

Monte Carlo means against the deterministic equivalent for f in {tanh, centred ReLU, He_3},
several geometries, c and gamma; and a strong aligned signal over a ladder of sizes,
extrapolated to n = infinity beside the theory.

Run::

    python derivations/validation.py [--quick] [--out DIR] [--format png|pdf|svg]
    symrmt figure validation [--quick] [--out DIR] [--format png|pdf|svg]

Writes validation.png (or .pdf, .svg) and validation.csv (the plotted numbers) into DIR
(default ./symrmt-figures in the current directory).
The figure is built by symrmt/figures/validation.py.

.. image:: /figures/validation.png
   :alt: validation (the committed figure, docs/figures/validation.png)
"""
import sys

# sphinx_gallery_thumbnail_path = "figures/validation.png"

from symrmt.figures import main

if __name__ == "__main__":
    sys.exit(main("validation", sys.argv[1:]))
