r"""Eigenvalue densities: Monte Carlo histograms under the predicted bulk densities.

At :math:`\gamma = -z`, :math:`z = x + i\eta`, the top-left block of the pencil's inverse gives the
Stieltjes transform :math:`m(z) = \frac1n \operatorname{tr}(K^\top X^\top X K/n - z)^{-1}`, and
the symmetric kernel matrix :math:`K` has its own one-block Dyson equation; the density is
:math:`\frac1\pi \operatorname{Im} m(x + i0^+)`. The low-rank part of the model moves only
:math:`O(1)` eigenvalues (outliers), not the bulk.

This figure reads ``symrmt.spectral_density`` and ``symrmt.simulation.simulate_spectrum``
(the engine's eigenvalue densities); without them :func:`build` raises
:class:`~symrmt.figures.FigureUnavailable`.
"""
from __future__ import annotations

import numpy as np

from ..geometry import Geometry
from ._common import n_label, nonlinearity, theory_curve, mc_curve
from ._core import Figure, FigureUnavailable, Panel, progress

#: (panel key, matrix, f name or formula, c, geometry, title)
PANELS = (
    ("a", "gram", "tanh", 1.0, Geometry(), r"(a) $K^\top X^\top X K/n$, tanh, noise, $c = 1$"),
    ("b", "gram", "tanh", 2.0, Geometry(1.0, 1.0, 1.0, 1.0, 1.0, 1.0), r"(b) $K^\top X^\top X K/n$, tanh, aligned, $c = 2$"),
    ("c", "kernel", "sin", 1.0, Geometry(), r"(c) kernel $K$, sin, noise, $c = 1$"),
)


def _engine():
    """The engine's density and eigenvalue sampler, or FigureUnavailable naming what is missing."""
    import symrmt
    from .. import simulation

    try:
        density = symrmt.spectral_density
    except AttributeError:
        density = None
    sampler = getattr(simulation, "simulate_spectrum", None)
    if density is None or sampler is None:
        missing = [n for n, v in (("symrmt.spectral_density", density),
                                  ("symrmt.simulation.simulate_spectrum", sampler)) if v is None]
        raise FigureUnavailable(f"needs the engine's spectral_density/gram ({', '.join(missing)} not found)")
    return density, sampler


def _sizes(quick: bool) -> dict:
    if quick:
        return dict(n=300, seeds=3, bins=30, points=200)
    return dict(n=2048, seeds=8, bins=80, points=800)


def _per_seed(eigenvalues, seeds: int) -> list[np.ndarray]:
    """Eigenvalues per seed from whatever the sampler returns (an array (seeds, n), a list, or an object)."""
    values = getattr(eigenvalues, "eigenvalues", eigenvalues)
    if isinstance(values, np.ndarray) and values.ndim == 2:
        return [np.real(row) for row in values]
    if isinstance(values, (list, tuple)):
        return [np.real(np.asarray(v)).ravel() for v in values]
    flat = np.real(np.asarray(values)).ravel()
    return list(np.array_split(flat, seeds))


def _panel(key, matrix, fname, c, geometry, title, density, sampler, s) -> Panel:
    spec = nonlinearity(fname)
    h = spec.hermite()
    draws = _per_seed(sampler(h.f, s["n"], c, matrix=matrix, geometry=geometry, d=0.0, seeds=s["seeds"], progress=False),
                      s["seeds"])
    pooled = np.concatenate(draws)
    # The bulk: leave out the few outliers the low-rank part pushes away (beyond 99.5% of the mass).
    lo, hi = np.quantile(pooled, [0.0, 0.995]) if matrix == "gram" else np.quantile(pooled, [0.0025, 0.9975])
    edges = np.linspace(lo, hi, s["bins"] + 1)
    width = np.diff(edges)
    per_seed = np.array([np.histogram(v, edges)[0] / (v.size * width) for v in draws])
    centres = 0.5 * (edges[1:] + edges[:-1])
    # The Gram matrix at c = 1 has a hard edge at 0 (density ~ x^(-1/2)) that no quadrature resolves at
    # eta = 0 right at the edge: the curve starts a hair above it.
    x = np.linspace(max(lo, 1e-3 * hi) if matrix == "gram" else lo, hi, s["points"])
    rho = density(h, c, x, eta=0.0, matrix=matrix, d=0.0, geometry=geometry).density
    tag = {"f": spec.name, "a1": h.a1, "nu": h.nu, "d": 0.0, "c": c, "matrix": matrix,
           "theta": geometry.theta, **geometry.as_dict()}
    curves = [theory_curve("predicted density", "density", "x", {**tag, "x": x}, rho, {"color": "C3"}),
              mc_curve(None, "density", "x", {**tag, "x": centres, "n": s["n"], "seeds": s["seeds"]},
                       per_seed.mean(axis=0), per_seed.std(axis=0, ddof=1) / np.sqrt(len(draws)),
                       {"color": "C0", "marker": "."})]
    return Panel(key, title, curves, "eigenvalue", "density", legend_loc="upper right")


def build(quick: bool = False, **overrides) -> Figure:
    density, sampler = _engine()
    s = {**_sizes(quick), **overrides}
    panels = [_panel(*spec, density, sampler, s) for spec in progress(PANELS, "spectrum")]
    caption = (f"Lines: (1/pi) Im m(x + i0) from the Dyson equations at gamma = -z (eta = 0). Markers: histogram of the "
               f"eigenvalues of {s['seeds']} draws at n = {s['n']}, p = round(c n), mean density per bin ± 2 s.e. over "
               "seeds; the top 0.5% (outliers of the low-rank part) are left out of the bins. d = 0.")
    return Figure("spectrum", "Eigenvalue densities of the attention Gram matrix and of the kernel", caption, panels,
                  mc_label=n_label(s["n"], s["seeds"]))
