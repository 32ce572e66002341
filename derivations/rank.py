"""Rank-1 against rank-r attention weights of the same total strength: more directions never help.
===============================================================================================

W_K^T W_Q = I + sum_k w_K^(k) w_Q^(k)^T with sum_k ``|w^(k)|^2`` fixed: the error against the ridge
for r = 1, 2, 3, and against the rank at gamma = 0.1.

Run::

    python derivations/rank.py [--quick] [--out DIR] [--format png|pdf|svg]
    symrmt figure rank [--quick] [--out DIR] [--format png|pdf|svg]

Writes rank.png (or .pdf, .svg) and rank.csv (the plotted numbers) into DIR
(default ./symrmt-figures in the current directory).
The figure is built by symrmt/figures/rank.py.

.. image:: /figures/rank.png
   :alt: rank (the committed figure, docs/figures/rank.png)
"""
import sys

# sphinx_gallery_thumbnail_path = "figures/rank.png"

from symrmt.figures import main

if __name__ == "__main__":
    sys.exit(main("rank", sys.argv[1:]))
