r"""Eigenvalue densities: Monte Carlo histograms under the predicted bulk densities.

At :math:`\gamma = -z`, :math:`z = x + i\eta`, the top-left block of the pencil's inverse gives the
Stieltjes transform :math:`m(z) = \frac1n \operatorname{tr}(K^\top X^\top X K/n - z)^{-1}`, and
the symmetric kernel matrix :math:`K` has its own one-block Dyson equation; the density is
:math:`\frac1\pi \operatorname{Im} m(x + i0^+)`. The low-rank part of the model moves only
:math:`O(1)` eigenvalues (outliers), not the bulk.

The Gram matrix's density diverges at its hard edge 0 and spans four decades, so panels (a)
and (b) are drawn on log-log axes with logarithmic bins. The bulk is the support of the
predicted density (found on a grid that runs past the largest eigenvalue, so the line reaches
the edges of the support); eigenvalues beyond it are outliers, counted in the caption, not
binned.

This figure reads ``symrmt.spectral_density`` and ``symrmt.simulate_spectrum``
(the engine's eigenvalue densities); without them :func:`build` raises
:class:`~symrmt.figures.FigureUnavailable`.
"""
from __future__ import annotations

import numpy as np

import symrmt  # the facade, read at call time: the engine's public names, whichever it has

from .. import Geometry
from .figure import INTERVAL_TEXT, Figure, FigureUnavailable, Panel, progress
from .nonlinearities import nonlinearity
from .series import mc_curve, n_label, theory_curve

#: (panel key, matrix, f name or formula, c, geometry, title)
PANELS = (
    ("a", "gram", "tanh", 1.0, Geometry(), r"(a) $K^\top X^\top X K/n$, tanh, noise, $c = 1$"),
    ("b", "gram", "tanh", 2.0, Geometry(1.0, 1.0, 1.0, 1.0, 1.0, 1.0), r"(b) $K^\top X^\top X K/n$, tanh, aligned, $c = 2$"),
    ("c", "kernel", "sin", 1.0, Geometry(), r"(c) kernel $K$, sin, noise, $c = 1$"),
)

#: The Gram panels' theory grid starts this far below the largest eigenvalue (the hard edge is at 0).
DECADES = 5
#: Where the predicted density falls below this fraction of its peak, the support has ended.
SUPPORT_FLOOR = 1e-6


def _engine():
    """The engine's density and eigenvalue sampler (public names), or FigureUnavailable naming what is missing."""
    found = {name: getattr(symrmt, name, None) for name in ("spectral_density", "simulate_spectrum")}
    missing = [f"symrmt.{name}" for name, value in found.items() if value is None]
    if missing:
        raise FigureUnavailable(f"needs the engine's eigenvalue densities ({', '.join(missing)} not found)")
    return found["spectral_density"], found["simulate_spectrum"]


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


def _theory_grid(pooled: np.ndarray, matrix: str, points: int) -> np.ndarray:
    """Where the density is drawn: past both ends of the eigenvalues, so that the line reaches the support's edges."""
    if matrix == "gram":
        top = 1.3 * pooled.max()
        return np.geomspace(top * 10.0**-DECADES, top, points)
    span = np.ptp(pooled)
    return np.linspace(pooled.min() - 0.15 * span, pooled.max() + 0.15 * span, points)


def _bulk(x: np.ndarray, rho: np.ndarray) -> tuple[float, float]:
    """The support of the predicted density on the grid ``x``."""
    inside = x[rho > SUPPORT_FLOOR * np.nanmax(rho)]
    return float(inside.min()), float(inside.max())


def _bins(pooled: np.ndarray, matrix: str, bulk: tuple[float, float], count: int) -> np.ndarray:
    if matrix == "gram":      # logarithmic bins from the 0.5% quantile (the few smallest are too sparse)
        return np.geomspace(max(np.quantile(pooled, 0.005), bulk[0]), bulk[1], count + 1)
    return np.linspace(max(pooled.min(), bulk[0]), min(pooled.max(), bulk[1]), count + 1)


def _bin_averages(x: np.ndarray, rho: np.ndarray, edges: np.ndarray) -> np.ndarray:
    r"""The predicted density averaged over each bin, :math:`\int_{e_k}^{e_{k+1}} \rho / (e_{k+1} - e_k)`, from the
    trapezoidal integral on the fine grid ``x`` (what a histogram estimates, also where :math:`\rho` diverges)."""
    mass = np.concatenate([[0.0], np.cumsum(0.5 * (rho[1:] + rho[:-1]) * np.diff(x))])
    return np.diff(np.interp(edges, x, mass)) / np.diff(edges)


def _panel(key, matrix, fname, c, geometry, title, density, sampler, s) -> tuple[Panel, str]:
    spec = nonlinearity(fname)
    h = spec.hermite()
    draws = _per_seed(sampler(h.f, s["n"], c, matrix=matrix, geometry=geometry, d=0.0, seeds=s["seeds"], progress=False),
                      s["seeds"])
    pooled = np.concatenate(draws)
    x = _theory_grid(pooled, matrix, s["points"])
    rho = density(h, c, x, eta=0.0, matrix=matrix, d=0.0, geometry=geometry).density
    bulk = _bulk(x, rho)
    edges = _bins(pooled, matrix, bulk, s["bins"])
    width = np.diff(edges)
    per_seed = np.array([np.histogram(v, edges)[0] / (v.size * width) for v in draws])
    centres = np.sqrt(edges[1:] * edges[:-1]) if matrix == "gram" else 0.5 * (edges[1:] + edges[:-1])
    tag = {"f": spec.name, "a1": h.a1, "nu": h.nu, "d": 0.0, "c": c, "matrix": matrix,
           "theta": geometry.theta, **geometry.as_dict()}
    mean = per_seed.mean(axis=0)
    curves = [theory_curve("predicted density", "density", "x", {**tag, "x": x}, rho, {"color": "C3"}),
              mc_curve("histogram", "density", "x", {**tag, "x": centres, "n": s["n"], "seeds": s["seeds"]},
                       mean, per_seed.std(axis=0, ddof=1) / np.sqrt(len(draws)), {"color": "C0", "marker": "."},
                       theory=_bin_averages(x, rho, edges))]
    outliers = np.mean([np.sum((v < bulk[0] - 0.01 * bulk[1]) | (v > 1.01 * bulk[1])) for v in draws])
    log = matrix == "gram"
    panel = Panel(key, title, curves, "eigenvalue", "density", xscale="log" if log else "linear",
                  yscale="log" if log else "linear",
                  ylim=(0.3 * mean[mean > 0].min(), 3 * max(mean.max(), np.nanmax(rho[x >= edges[0]]))) if log else None)
    return panel, f"({key}) {outliers:g} beyond [{bulk[0]:.3g}, {bulk[1]:.3g}]", _missed_counts(curves[1], width)


def _missed_counts(histogram, width: np.ndarray) -> float:
    """The largest miss of a bin whose interval does not hold its theory, in eigenvalues per draw (0 if none).

    Eigenvalues are rigid: a bin's count hardly varies from draw to draw, so its interval over
    seeds is narrow, while a bin edge can still shift the count by one eigenvalue against the
    density's integral. A miss below about one eigenvalue per draw is that, not a wrong density.
    """
    theory = histogram.column("theory").astype(float)
    low, high = histogram.bounds()
    missed = (theory < low) | (theory > high)
    n = float(histogram.params["n"])
    return float(np.max(np.abs(histogram.value - theory)[missed] * width[missed] * n, initial=0.0))


def build(quick: bool = False, **overrides) -> Figure:
    density, sampler = _engine()
    s = {**_sizes(quick), **overrides}
    drawn = [_panel(*spec, density, sampler, s) for spec in progress(PANELS, "spectrum")]
    panels = [panel for panel, _, _ in drawn]
    largest = max(missed for _, _, missed in drawn)
    caption = ("Lines: (1/pi) Im m(x + i0) from the Dyson equations at gamma = -z (eta = 0), drawn past the largest "
               "eigenvalue to the edges of its support. Markers: histogram of the eigenvalues of "
               f"{s['seeds']} draws at n = {s['n']}, p = round(c n), mean density per bin over seeds with {INTERVAL_TEXT}; "
               "(a), (b) on log-log axes with logarithmic bins (the density diverges at the hard edge 0), the lowest "
               "0.5% of the eigenvalues not binned. The markers' theory (CSV column theory) is the density averaged "
               "over each bin. Eigenvalues per draw beyond the bulk (outliers of the low-rank part, not binned): "
               + "; ".join(note for _, note, _ in drawn) + ". d = 0. Eigenvalues are rigid (a bin's count hardly "
               "varies between draws), so the t intervals are narrow while a bin edge can move a count by one "
               f"eigenvalue: the bins that miss the theory are off by at most {largest:.2f} eigenvalues per draw.")
    return Figure("spectrum", "Eigenvalue densities of the attention Gram matrix and of the kernel", caption, panels,
                  mc_label=n_label(s["n"], s["seeds"]))
