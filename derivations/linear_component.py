r"""The linear component of f
===========================

:math:`f_s(x) = \cos(s)\, x + \sin(s)\, \mathrm{He}_3(x)/\sqrt 6` has :math:`\nu = 1` for every :math:`s`
and a linear component :math:`a_1 = \cos s`, from 1 (linear) to 0 (no linear part). A formula with a
parameter is given once and its parameter as an array: the theory is evaluated for every :math:`s` in one
call. With a signal aligned with the weights, the error against :math:`a_1` for three ratios :math:`c`.

The publication figure (also against :math:`\|\mu\|^2`, and :math:`a_1 = 0` extrapolated to
:math:`n = \infty`) is ``symrmt figure linear_component``.
"""
import matplotlib.pyplot as plt
import numpy as np

import symrmt

f = "cos(s)*x + sin(s)*(x**3 - 3*x)/sqrt(6)"
s = np.linspace(0.0, np.pi / 2, 40)
geometry = symrmt.Geometry(mu_norm=1.0, wk_norm=1.0, wq_norm=1.0, cos_mu_wk=1.0, cos_mu_wq=1.0, cos_wk_wq=1.0)
fig, ax = plt.subplots(figsize=(6, 4))
for c in [0.25, 1.0, 4.0]:
    error = symrmt.attention_error(f, c=c, gamma=0.1, geometry=geometry, params={"s": s})
    ax.plot(np.cos(s), error, label=f"c = {c}")
ax.set(xlabel=r"linear component $a_1 = \cos s$", ylabel=r"$E_\mathrm{attn}$",
       title=r"$\gamma = 0.1$, $\|\mu\| = \|w\| = 1$ aligned")
ax.legend()
plt.show()
