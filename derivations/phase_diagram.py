r"""Phase diagram: where attention interpolates better than regression
===================================================================

The sign of :math:`E_\mathrm{attn} - E_\mathrm{lin}` over the ratio :math:`c = p/n` and the signal
strength :math:`\|\mu\|^2`, with weights :math:`w_K = w_Q = 2\mu/\|\mu\|` at the ridge
:math:`\gamma = 0.1`. Every argument of the theory broadcasts, so the whole map is one call: the Gram
entries of :math:`(\mu, w_K, w_Q)` are given as arrays. Blue: attention wins; the colour scale is
symmetric about 0, and the black line is where the two errors are equal.

The publication figure (a second map over the alignment, Monte Carlo checks and a cut with error bars)
is ``symrmt figure phase_diagram``.
"""
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.colors import CenteredNorm

import symrmt

h = symrmt.hermite("tanh(x)")
c = np.geomspace(0.05, 3.0, 60)[None, :]
theta = np.linspace(0.0, 4.0, 50)[:, None]             # |mu|^2
w = 2.0
gram = dict(theta=theta, alpha_K=w * np.sqrt(theta), alpha_Q=w * np.sqrt(theta),
            omega_KK=w**2, omega_QQ=w**2, omega_KQ=w**2)
gap = symrmt.attention_error(h, c, 0.1, gram=gram) - symrmt.linear_error(c, 0.1, gram=gram)

fig, ax = plt.subplots(figsize=(6, 4))
cc, tt = np.broadcast_to(c, gap.shape), np.broadcast_to(theta, gap.shape)
mesh = ax.pcolormesh(cc, tt, gap, cmap="RdBu_r", norm=CenteredNorm(0.0, np.abs(gap).max()), shading="gouraud")
ax.contour(cc, tt, gap, levels=[0.0], colors="k")
fig.colorbar(mesh, label=r"$E_\mathrm{attn} - E_\mathrm{lin}$")
ax.set(xscale="log", xlabel="c = p/n", ylabel=r"$\|\mu\|^2$", title=r"tanh, aligned weights, $\gamma = 0.1$")
plt.show()
