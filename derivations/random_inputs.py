"""Random inputs: nonlinear attention interpolates worse than linear regression when p >= n, not at small p/n.
===========================================================================================================

E_attn(gamma) and E_lin(gamma) on pure noise (mu = 0, no weights) for tanh, centred ReLU,
erf, sin, centred GELU and f = x: against the ridge at c = 1, against c = p/n at gamma = 0.1,
and the map of E_attn - E_lin over (c, gamma) with the region where attention wins (small c,
large gamma). The claim and its region: symrmt.figures.claims.CLAIMS["random_inputs"].

Run::

    python derivations/random_inputs.py [--quick] [--out DIR] [--format png|pdf|svg]
    symrmt figure random_inputs [--quick] [--out DIR] [--format png|pdf|svg]

Writes random_inputs.png (or .pdf, .svg) and random_inputs.csv (the plotted numbers) into DIR
(default ./symrmt-figures in the current directory).
The figure is built by symrmt/figures/random_inputs.py.

.. image:: /figures/random_inputs.png
   :alt: random_inputs (the committed figure, docs/figures/random_inputs.png)
"""
import sys

# sphinx_gallery_thumbnail_path = "figures/random_inputs.png"

from symrmt.figures import main

if __name__ == "__main__":
    sys.exit(main("random_inputs", sys.argv[1:]))
