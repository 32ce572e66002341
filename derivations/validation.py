r"""Theory against Monte Carlo on a grid of settings
================================================

The deterministic equivalent against the mean over seeds of the finite model (n = 256, four seeds) for
three nonlinearities, two ratios :math:`c` and three ridges, with and without an aligned signal. Each
point's bar is the 95% Student-t interval of its seeds; on the diagonal the two agree. At this small n the
finite-size deviation is of the order of the bars.

The publication figure (more settings, n = 2048, and a strong signal extrapolated to
:math:`n = \infty`) is ``symrmt figure validation``:

.. image:: /figures/validation.png
   :alt: the publication figure validation
"""
import matplotlib.pyplot as plt
from scipy import stats

import symrmt

gamma = [0.01, 0.1, 1.0]
aligned = symrmt.Geometry(mu_norm=1.0, wk_norm=1.0, wq_norm=1.0, cos_mu_wk=1.0, cos_mu_wq=1.0, cos_wk_wq=1.0)
fig, ax = plt.subplots(figsize=(5, 5))
for f, marker in [("tanh(x)", "o"), ("erf(x)", "s"), ("sin(x)", "^")]:
    for c in [0.5, 2.0]:
        for geometry, colour in [(None, "C0"), (aligned, "C3")]:
            theory = symrmt.attention_error(f, c=c, gamma=gamma, geometry=geometry)
            mc = symrmt.simulate(f, n=256, c=c, gamma=gamma, geometry=geometry, seeds=4, progress=False)
            half = stats.t.ppf(0.975, mc.seeds - 1) * mc.attention_se
            ax.errorbar(theory, mc.attention_mean, half, fmt=marker, color=colour, ms=4)
ax.axline((0.5, 0.5), slope=1, color="k", lw=0.8)
ax.set(xlabel="theory", ylabel="Monte Carlo, n = 256 (95% t)",
       title="tanh o, erf s, sin ^; blue: no signal, red: aligned")
plt.show()
