"""The paper's ridge-regression figure at the settings its first version's captions give.
======================================================================================

E_RR (linear ridge regression on the tokens, symrmt.linear_error) against the ridge at p = 2048,
n = 512, ``|mu|^2`` = 1; against p at n = 4096, gamma = 1e-5, ``|mu|^2`` = 1; against ``|mu|^2`` at p = 512,
n = 2048. Monte Carlo markers at the paper's n and p (--quick: both divided by 8). The claim and
its region: symrmt.figures.claims.CLAIMS["paper_fig1"].

Run::

    python derivations/paper_fig1.py [--quick] [--seeds S] [--out DIR] [--format png|pdf|svg]
    symrmt figure paper_fig1 [--quick] [--seeds S] [--out DIR] [--format png|pdf|svg]

Writes paper_fig1.png (or .pdf, .svg) and paper_fig1.csv (the plotted numbers) into DIR
(default ./symrmt-figures in the current directory).
The figure is built by symrmt/figures/paper_fig1.py.

.. image:: /figures/paper_fig1.png
   :alt: paper_fig1 (the committed figure, docs/figures/paper_fig1.png)
"""
import sys

# sphinx_gallery_thumbnail_path = "figures/paper_fig1.png"

from symrmt.figures import main

if __name__ == "__main__":
    sys.exit(main("paper_fig1", sys.argv[1:]))
