r"""The spectrum of the attention kernel
=====================================

The eigenvalues of the attention kernel matrix :math:`K` of the finite model (n = 400, two draws),
against the limiting density the theory predicts for them (:func:`symrmt.spectral_density`, evaluated at
any points :math:`x`). The same two functions with ``matrix="gram"`` give the spectrum of
:math:`K^\top X^\top X K/n`, whose resolvent the interpolation error is made of.

The publication figure (both matrices, log-log, n = 2048) is ``symrmt figure spectrum``:

.. image:: /figures/spectrum.png
   :alt: the publication figure spectrum
"""
import matplotlib.pyplot as plt
import numpy as np

import symrmt

eigenvalues = symrmt.simulate_spectrum("tanh(x)", n=400, c=1.0, matrix="kernel", seeds=2, progress=False)
x = np.linspace(eigenvalues.min() - 0.2, eigenvalues.max() + 0.2, 300)
rho = symrmt.spectral_density("tanh(x)", c=1.0, x=x, matrix="kernel")

fig, ax = plt.subplots(figsize=(6, 4))
ax.hist(eigenvalues, bins=50, density=True, color="0.8", label="eigenvalues of K, n = 400")
ax.plot(x, rho.density, "C3", label="limiting density (theory)")
ax.set(xlabel="eigenvalue", ylabel="density", title="tanh, c = p/n = 1, no signal")
ax.legend()
plt.show()
