r"""Validation: the deterministic equivalent against Monte Carlo of the finite model.

Panel (a) plots, for a grid of settings (nonlinearity :math:`f`, geometry of
:math:`(\mu, w_K, w_Q)`, :math:`c`, :math:`\gamma`), the Monte Carlo mean of
:math:`E_\mathrm{attn}` (with :math:`\pm 2` standard errors over seeds) against the theory;
the diagonal is exact agreement. Panel (b) shows :math:`|\text{Monte Carlo} - \text{theory}|`
against :math:`n` on log axes for a smooth :math:`f` and for :math:`a_1 = 0`: the
equivalent is asymptotic, so this gap should fall with :math:`n` (the :math:`n^{-1/2}` and
:math:`n^{-1}` guides are for reading slopes) until it reaches the Monte Carlo noise.
"""
from __future__ import annotations

import numpy as np

from ..geometry import Geometry
from ._common import mc_curve, mc_over_gamma, n_label, theory_curve
from ._core import Figure, Panel, progress

#: name -> (formula, colour); He_3 has a_1 = 0.
FUNCTIONS = {"tanh": ("tanh(x)", "C0"), "ReLU (centred)": ("relu(x) - 1/sqrt(2*pi)", "C1"),
             "He_3 = x^3 - 3x": ("x**3 - 3*x", "C3")}
#: name -> (geometry, marker)
GEOMETRIES = {
    "noise": (Geometry(), "o"),
    "signal |mu| = 1": (Geometry(mu_norm=1.0), "s"),
    "aligned w = mu, |mu| = 1": (Geometry(1.0, 1.0, 1.0, 1.0, 1.0, 1.0), "^"),
    "asymmetric w_K != w_Q": (Geometry(1.0, 1.0, 0.5, 0.8, 0.3, 0.2), "D"),
}
GAP_GAMMA = 0.1
GAP_C = 1.0
#: A strong low-rank part (mu^T M mu = 11.25), where the finite-n corrections are largest and their decay visible.
GAP_SETTING = ("strong aligned: w = 2 mu/|mu|, |mu| = 1.5", Geometry(1.5, 2.0, 2.0, 1.0, 1.0, 1.0))


def _sizes(quick: bool) -> dict:
    if quick:
        return dict(n=256, seeds=3, functions=["tanh", "He_3 = x^3 - 3x"], geometries=["noise", "aligned w = mu, |mu| = 1"],
                    cs=[1.0], gammas=[0.01, 0.1, 1.0], ns=[128, 256, 512], gap_seeds=8)
    return dict(n=2048, seeds=8, functions=list(FUNCTIONS), geometries=list(GEOMETRIES), cs=[0.5, 1.0, 2.0],
                gammas=[0.01, 0.1, 1.0], ns=[256, 512, 1024, 2048, 4096], gap_seeds=8)


def _seeds_at(n: int, s: dict) -> int:
    """More seeds at small n (they are cheap), so that the noise floor sits below the gap longer."""
    return int(min(64, s["gap_seeds"] * max(1, max(s["ns"]) // n)))


def _grid_panel(s: dict) -> Panel:
    from ..nonlinearity import hermite
    from ..theory import attention_error

    curves = []
    settings = [(f, g, c) for f in s["functions"] for g in s["geometries"] for c in s["cs"]]
    for fname, gname, c in progress(settings, "validation grid"):
        formula, color = FUNCTIONS[fname]
        geometry, marker = GEOMETRIES[gname]
        h = hermite(formula, center=True)
        theory = attention_error(h, c, s["gammas"], geometry)
        mc = mc_over_gamma(h.f, s["n"], c, s["gammas"], geometry, seeds=s["seeds"])
        params = {"f": fname, "a1": h.a1, "nu": h.nu, "d": 0.0, "c": c, "gamma": mc.gamma, "geometry": gname,
                  **{k: v for k, v in geometry.as_dict().items()}, "n": s["n"], "seeds": s["seeds"],
                  "theory": theory}
        label = f"{fname}, {gname}" if c == s["cs"][0] else None
        curves.append(mc_curve(label, "E_attn", "theory", params, mc.attention_mean, mc.attention_se,
                               {"color": color, "marker": marker, "mfc": "none"}))
    # The theory itself: every setting's value on the diagonal (one line, the points sorted by value).
    points = {k: np.concatenate([np.broadcast_to(np.asarray(c.params[k]), c.value.shape) for c in curves])
              for k in ("f", "geometry", "c", "gamma", "theory")}
    curves.insert(0, theory_curve("theory (exact agreement)", "E_attn", "theory", {**points, "d": 0.0},
                                  points["theory"], {"color": "k", "linewidth": 1.0}))
    return Panel("a", rf"(a) Monte Carlo against theory, $c \in \{{{', '.join(f'{c:g}' for c in s['cs'])}\}}$, "
                 rf"$\gamma \in \{{{', '.join(f'{g:g}' for g in s['gammas'])}\}}$", curves,
                 r"theory $E_\mathrm{attn}$", r"Monte Carlo $E_\mathrm{attn}$ (mean ± 2 s.e.)",
                 legend_loc="lower right")      # the points lie on the diagonal: that corner is empty


def _gap_panel(s: dict) -> Panel:
    from ..nonlinearity import hermite
    from ..theory import attention_error

    gap_name, geometry = GAP_SETTING
    ns = np.array(s["ns"])
    curves = []
    for fname in ("tanh", "He_3 = x^3 - 3x"):
        formula, color = FUNCTIONS[fname]
        h = hermite(formula, center=True)
        theory = float(attention_error(h, GAP_C, GAP_GAMMA, geometry))
        runs = [mc_over_gamma(h.f, int(n), GAP_C, [GAP_GAMMA], geometry, seeds=_seeds_at(int(n), s))
                for n in progress(ns, f"gap against n, {fname}")]
        mean = np.array([r.attention_mean[0] for r in runs])
        params = {"f": fname, "a1": h.a1, "nu": h.nu, "d": 0.0, "c": GAP_C, "gamma": GAP_GAMMA, "geometry": gap_name,
                  "n": ns, "seeds": np.array([r.seeds for r in runs]), "theory": theory, "mc_mean": mean}
        curves.append(mc_curve(rf"{fname} ($a_1 = {h.a1:.3g}$)", "|E_attn MC - theory|", "n", params,
                               np.abs(mean - theory), [r.attention_se[0] for r in runs], {"color": color}))
    top = max(float(np.max(c.value)) for c in curves) or 1e-2
    floors = [{"x": ns, "y": 2 * c.se, "color": c.style["color"], "ls": "-.",
               "label": f"2 s.e. ({c.params['f']}): Monte Carlo noise"} for c in curves]
    guides = floors + [{"x": ns, "y": top * (ns / ns[0]) ** -0.5, "color": "0.5", "ls": ":", "label": r"$\propto n^{-1/2}$"},
              {"x": ns, "y": top * (ns / ns[0]) ** -1.0, "color": "0.5", "ls": "--", "label": r"$\propto n^{-1}$"}]
    return Panel("b", rf"(b) the gap against $n$, $c = {GAP_C:g}$, $\gamma = {GAP_GAMMA:g}$", curves,
                 r"tokens $n$ ($p = cn$)", r"$|E_\mathrm{attn}^\mathrm{MC} - E_\mathrm{attn}^\mathrm{theory}|$",
                 xscale="log", yscale="log", extra=guides, xticks=tuple(int(n) for n in ns), legend_loc="center left")


def build(quick: bool = False, **overrides) -> Figure:
    s = {**_sizes(quick), **overrides}
    panels = [_grid_panel(s), _gap_panel(s)]
    seeds_b = ", ".join(f"{n}: {_seeds_at(n, s)}" for n in s["ns"])
    caption = (f"(a) n = {s['n']}, p = round(c n), {s['seeds']} seeds; colour: f, marker: geometry (legend at the "
               f"first c), d = 0. (b) " + GAP_SETTING[0] + "; below its dash-dotted line a gap is Monte Carlo noise; "
               f"seeds per n: {seeds_b}; bars ±2 s.e. (clipped at the axis). The deterministic "
               "equivalent is exact as n, p -> infinity: the gap falls with n for smooth f; with a_1 = 0 it falls "
               "more slowly (corrections of the Gaussian equivalent are larger there).")
    return Figure("validation", "Theory against simulation of the finite model", caption, panels,
                  mc_label=n_label(s["n"], s["seeds"]), ncols=2)


def _cell(text: str) -> str:
    """Markdown-safe table cell: a literal ``|`` would end the cell."""
    return str(text).replace("|", "\\|")


def markdown_table(figure: Figure) -> str:
    """The grid of panel (a) as a Markdown table: setting, theory, Monte Carlo mean ± s.e., and the gap in s.e."""
    lines = ["| f | geometry | c | gamma | theory | Monte Carlo (± s.e.) | gap / s.e. |",
             "|---|---|---|---|---|---|---|"]
    for curve in figure.panels[0].curves:
        if curve.source != "monte_carlo":
            continue
        p = curve.params
        for g, t, m, e in zip(curve.column("gamma"), curve.column("theory"), curve.value, curve.se):
            lines.append(f"| {_cell(p['f'])} | {_cell(p['geometry'])} | {float(p['c']):g} | {float(g):g} | {float(t):.4f} | "
                         f"{m:.4f} ± {e:.4f} | {(m - float(t)) / e:+.1f} |")
    return "\n".join(lines)
