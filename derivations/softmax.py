"""Softmax attention: the Monte Carlo of the softmax over the keys against the entrywise theory of exp(x/tau).
===========================================================================================================

E_attn against gamma/a_1^2 and against c for tau = 0.5, 1, 2, without signal and with ``|mu|`` = 1 and
w_K = w_Q aligned with mu, and tau = 0.5 over a ladder of sizes extrapolated to n = infinity.

Run::

    python derivations/softmax.py [--quick] [--out DIR] [--format png|pdf|svg] [--n N] [--seeds S]
    symrmt figure softmax [--quick] [--out DIR] [--format png|pdf|svg]

Writes softmax.png (or .pdf, .svg) and softmax.csv (the plotted numbers) into DIR
(default ./symrmt-figures in the current directory).
The figure is built by symrmt/figures/softmax.py.

.. image:: /figures/softmax.png
   :alt: softmax (the committed figure, docs/figures/softmax.png)
"""
import sys

# sphinx_gallery_thumbnail_path = "figures/softmax.png"

from symrmt.figures import main

if __name__ == "__main__":
    sys.exit(main("softmax", sys.argv[1:]))
