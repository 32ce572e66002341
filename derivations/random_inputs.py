r"""Pure-noise inputs: attention against linear regression
======================================================

With no signal (:math:`\mu = 0`) and no attention weights, the interpolation error of nonlinear attention
:math:`E_\mathrm{attn}(\gamma)` depends on :math:`f` only through two Hermite numbers, :math:`a_1` and
:math:`\nu`. Below: the deterministic equivalent for four nonlinearities against the ridge
:math:`\gamma`, the ridge-regression error :math:`E_\mathrm{lin}` on the same data, and a Monte Carlo of
the finite model for tanh (mean over seeds with its 95% Student-t interval).

The publication figure (six nonlinearities, a map over :math:`(c, \gamma)`, n = 2048) is
``symrmt figure random_inputs``:

.. image:: /figures/random_inputs.png
   :alt: the publication figure random_inputs
"""
import matplotlib.pyplot as plt
import numpy as np
from scipy import stats

import symrmt

gamma = np.geomspace(1e-3, 1e2, 60)
fig, ax = plt.subplots(figsize=(6, 4))
for f in ["tanh(x)", "erf(x)", "relu(x)", "sin(x)"]:
    h = symrmt.hermite(f, center=True)            # a_0 = E f(xi) is subtracted: the theory needs it to be 0
    ax.plot(gamma, symrmt.attention_error(h, c=1.0, gamma=gamma), label=f"attention, f = {f}")
ax.plot(gamma, symrmt.linear_error(c=1.0, gamma=gamma), "k--", label="linear regression")

mc = symrmt.simulate("tanh(x)", n=256, c=1.0, gamma=[1e-2, 1e-1, 1.0, 10.0], seeds=4, progress=False)
half = stats.t.ppf(0.975, mc.seeds - 1) * mc.attention_se
ax.errorbar(mc.gamma, mc.attention_mean, half, fmt="o", color="C0", label=f"tanh, Monte Carlo n = {mc.n}")
ax.set(xscale="log", xlabel=r"ridge $\gamma$", ylabel="interpolation error", title="c = p/n = 1, no signal")
ax.legend(fontsize=8)
plt.show()
