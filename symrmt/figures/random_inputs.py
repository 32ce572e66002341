r"""Pure-noise inputs (:math:`\mu = 0`, :math:`w_K = w_Q = 0`): nonlinear attention against linear regression.

Panel (a): :math:`E_\mathrm{attn}(\gamma)` for six centred nonlinearities and
:math:`E_\mathrm{lin}(\gamma)` at :math:`c = 1`. Panel (b): the same against
:math:`c = p/n` at a fixed ridge. The paper's claim: on random inputs nonlinear
attention interpolates worse than linear regression (its features :math:`XK` mix the
tokens through a kernel that carries no label information, and the Wigner part
:math:`bW/\sqrt p` of :math:`K` only adds noise).
"""
from __future__ import annotations

import numpy as np

from ._common import LINEAR_STYLE, ZOO, mc_curve, mc_over_gamma, n_label, theory_curve
from ._core import Figure, Panel, progress

C_FIXED = 1.0
GAMMA_FIXED = 0.1


def _sizes(quick: bool) -> dict:
    if quick:
        return dict(n=256, seeds=3, gamma_mc=[1e-2, 1e-1, 1.0, 10.0], c_mc=[0.5, 1.0, 2.0], points=40)
    return dict(n=2048, seeds=8, gamma_mc=list(np.logspace(-2, 1, 7)), c_mc=[0.25, 0.5, 1.0, 1.5, 2.0, 3.0],
                points=150)


def build(quick: bool = False, **overrides) -> Figure:
    from ..theory import attention_error, linear_error

    s = {**_sizes(quick), **overrides}
    gamma = np.logspace(-3, 2, s["points"])
    c = np.linspace(0.1, 3.0, s["points"])
    common = {"n": s["n"], "seeds": s["seeds"]}
    by_gamma, by_c = [], []
    for spec in progress(ZOO.values(), "random_inputs", total=len(ZOO)):
        h = spec.hermite()
        tag = {"f": spec.name, "a1": h.a1, "nu": h.nu, "d": 0.0, "theta": 0.0}
        style = {"color": spec.color}
        by_gamma.append(theory_curve(spec.name, "E_attn", "gamma", {**tag, "c": C_FIXED, "gamma": gamma},
                                     attention_error(h, C_FIXED, gamma), style))
        by_c.append(theory_curve(spec.name, "E_attn", "c", {**tag, "c": c, "gamma": GAMMA_FIXED},
                                 attention_error(h, c, GAMMA_FIXED), style))
        mc = mc_over_gamma(h.f, s["n"], C_FIXED, s["gamma_mc"], seeds=s["seeds"])
        by_gamma.append(mc_curve(None, "E_attn", "gamma", {**tag, **common, "c": C_FIXED, "gamma": mc.gamma},
                                 mc.attention_mean, mc.attention_se, style))
        runs = [mc_over_gamma(h.f, s["n"], ci, [GAMMA_FIXED], seeds=s["seeds"]) for ci in s["c_mc"]]
        by_c.append(mc_curve(None, "E_attn", "c", {**tag, **common, "c": np.array(s["c_mc"]), "gamma": GAMMA_FIXED},
                             [r.attention_mean[0] for r in runs], [r.attention_se[0] for r in runs], style))
    lin = {"f": "linear regression", "theta": 0.0}
    by_gamma.append(theory_curve("linear regression", "E_lin", "gamma", {**lin, "c": C_FIXED, "gamma": gamma},
                                 linear_error(C_FIXED, gamma), LINEAR_STYLE))
    by_c.append(theory_curve("linear regression", "E_lin", "c", {**lin, "c": c, "gamma": GAMMA_FIXED},
                             linear_error(c, GAMMA_FIXED), LINEAR_STYLE))
    # The simulator draws E_lin on the same inputs as E_attn; the last f's runs are as good as any.
    by_gamma.append(mc_curve(None, "E_lin", "gamma", {**lin, **common, "c": C_FIXED, "gamma": mc.gamma},
                             mc.linear_mean, mc.linear_se, LINEAR_STYLE))
    by_c.append(mc_curve(None, "E_lin", "c", {**lin, **common, "c": np.array(s["c_mc"]), "gamma": GAMMA_FIXED},
                         [r.linear_mean[0] for r in runs], [r.linear_se[0] for r in runs], LINEAR_STYLE))
    panels = [
        Panel("a", rf"(a) against the ridge, $c = {C_FIXED:g}$", by_gamma, r"ridge $\gamma$",
              r"interpolation error $E(\gamma)$", xscale="log", ylim=(-0.02, 1.02), dodge=0.03,
              legend_loc="upper left"),
        Panel("b", rf"(b) against $c = p/n$, $\gamma = {GAMMA_FIXED:g}$", by_c, r"$c = p/n$",
              r"interpolation error $E(\gamma)$", ylim=(-0.02, 1.02), dodge=0.008),
    ]
    caption = (f"Pure noise: X = Z, mu = 0, w_K = w_Q = 0, K_ii = d = 0, K_ij = f(S_ij)/sqrt(p). Lines: deterministic "
               f"equivalents; markers: Monte Carlo of the finite model, n = {s['n']}, p = round(c n), {s['seeds']} "
               f"seeds, bars ±2 standard errors (markers offset slightly in x for legibility). f is centred "
               "(a_0 = 0). Every f lies above linear regression (f = x is the closest) except at very small c, "
               "where both errors approach the null-space floor 1 - c and attention is marginally lower.")
    return Figure("random_inputs", "Random inputs: nonlinear attention interpolates worse than linear regression",
                  caption, panels, mc_label=n_label(s["n"], s["seeds"]))
