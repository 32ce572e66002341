"""Aligned attention weights: the gap to linear regression shrinks as w_K = w_Q turn towards mu.
=============================================================================================

E_attn against the angle between w and mu (``|mu|`` = 1), the gap E_attn - E_lin for several c,
the aligned / orthogonal curves against the ridge, and the aligned gap at c = 0.25 over a
ladder of sizes extrapolated to n = infinity.

Run::

    python derivations/alignment.py [--quick] [--out DIR] [--format png|pdf|svg]
    symrmt figure alignment [--quick] [--out DIR] [--format png|pdf|svg]

Writes alignment.png (or .pdf, .svg) and alignment.csv (the plotted numbers) into DIR
(default ./symrmt-figures in the current directory).
The figure is built by symrmt/figures/alignment.py.

.. image:: /figures/alignment.png
   :alt: alignment (the committed figure, docs/figures/alignment.png)
"""
import sys

# sphinx_gallery_thumbnail_path = "figures/alignment.png"

from symrmt.figures import main

if __name__ == "__main__":
    sys.exit(main("alignment", sys.argv[1:]))
