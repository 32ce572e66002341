"""Matplotlib figures: theory curves against Monte Carlo points, in gamma."""
from __future__ import annotations

from typing import Sequence

import numpy as np

__all__ = ["plot_panels", "comparison_panel", "comparison_title", "plot_spectrum", "plot_convergence", "agg_pyplot"]


def agg_pyplot():
    """matplotlib.pyplot on the non-interactive Agg backend (works without a display)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def comparison_panel(title: str, f, c: float, grid: np.ndarray, geometry, d: float, mc, gram=None) -> dict:
    """A panel for :func:`plot_panels`: theory curves on ``grid`` and the Monte Carlo result ``mc``.

    The theory lines have gaps where the solver cannot solve a point of the grid (masked arrays).
    """
    from ..theory.ridge import attention_error, linear_error

    return {"title": title, "gamma_theory": grid,
            "attention_theory": attention_error(f, c, grid, geometry, d, gram=gram, partial=True),
            "linear_theory": linear_error(c, grid, geometry, gram=gram, partial=True), "gamma_mc": mc.gamma,
            "attention_mean": mc.attention_mean, "attention_se": mc.attention_se,
            "linear_mean": mc.linear_mean, "linear_se": mc.linear_se, "seeds": mc.seeds}


def _geometry_tex(geometry, gram) -> str:
    r"""The geometry of :math:`(\mu, w_K, w_Q)` in mathematics: norms and cosines, or the rank of the weights."""
    if geometry is None:
        rank = (np.shape(gram)[0] - 1) // 2
        return rf"rank-{rank} weights, $\|\mu\|^2 = {float(np.asarray(gram)[0, 0]):.3g}$"
    parts = [r"$\mu = 0$" if geometry.mu_norm == 0 else rf"$\|\mu\| = {geometry.mu_norm:g}$"]
    if geometry.wk_norm == 0 and geometry.wq_norm == 0:
        parts.append(r"$w_K = w_Q = 0$")
    else:
        parts.append(rf"$\|w_K\| = {geometry.wk_norm:g}$, $\|w_Q\| = {geometry.wq_norm:g}$")
        parts.append(rf"$\cos(\mu, w_K) = {geometry.cos_mu_wk:g}$, $\cos(\mu, w_Q) = {geometry.cos_mu_wq:g}$, "
                     rf"$\cos(w_K, w_Q) = {geometry.cos_wk_wq:g}$")
    return ", ".join(parts)


def comparison_title(f_tex: str, mc) -> str:
    """Three lines for ``compare --plot``: f, c and d; the geometry; the Monte Carlo's n, p and seeds.

    ``f_tex`` is f in LaTeX (e.g. ``sympy.latex(h.f)``); ``mc`` the :class:`~symrmt.SimulationResult`.
    """
    model = rf"$f(x) = {f_tex}$, $c = p/n = {mc.c:g}$, $K_{{ii}} = d = {mc.d:g}$"
    return (f"{model}\n{_geometry_tex(mc.geometry, mc.gram)}\nMonte Carlo: $n = {mc.n}$, $p = {mc.p}$, "
            f"{mc.seeds} seeds (markers: mean and 95% $t$ interval over seeds)")


def _interval(se, seeds) -> np.ndarray:
    """Half-width of the 95% Student interval over ``seeds`` (seeds - 1 degrees of freedom)."""
    from ..analysis.seeds import t_quantile

    return t_quantile(seeds) * np.asarray(se)


def plot_panels(panels: Sequence[dict], path: str, title: str = "") -> str:
    """Write a PNG with one panel per setting and return its path.

    Each panel is a dict with ``title``, ``gamma_theory``, ``attention_theory``,
    ``linear_theory`` (arrays; attention may be None) and optionally a Monte Carlo
    part ``gamma_mc``, ``attention_mean``, ``attention_se``, ``linear_mean``, ``linear_se``,
    ``seeds`` (error bars: 95% Student-t intervals with seeds - 1 degrees of freedom).
    Uses the non-interactive Agg backend (works without a display).
    """
    plt = agg_pyplot()
    lines = title.count("\n") + 1 if title else 0
    fig, axes = plt.subplots(1, len(panels), figsize=(max(4.2 * len(panels), 6.4), 4.0 + 0.2 * lines),
                             squeeze=False, sharey=True, layout="constrained")
    for ax, panel in zip(axes[0], panels):
        g = np.asarray(panel["gamma_theory"])
        if panel.get("attention_theory") is not None:
            ax.plot(g, panel["attention_theory"], color="C0", label="attention, theory")
        ax.plot(g, panel["linear_theory"], color="C1", ls="--", label="linear, theory")
        if "gamma_mc" in panel:
            ax.errorbar(panel["gamma_mc"], panel["attention_mean"], yerr=_interval(panel["attention_se"], panel["seeds"]),
                        fmt="o", color="C0", ms=4, capsize=2, label="attention, Monte Carlo (95% t interval)")
            ax.errorbar(panel["gamma_mc"], panel["linear_mean"], yerr=_interval(panel["linear_se"], panel["seeds"]),
                        fmt="s", color="C1", ms=4, capsize=2, mfc="none", label="linear, Monte Carlo (95% t interval)")
        ax.set_xscale("log")
        ax.set_xlabel(r"ridge $\gamma$")
        ax.set_title(panel["title"], fontsize=10)
        ax.set_ylim(-0.02, 1.02)
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel(r"interpolation error $E(\gamma)$")
    # Below the axes, off the data (the curves fill the panel from corner to corner).
    fig.legend(*axes[0][0].get_legend_handles_labels(), loc="outside lower center", ncol=2, fontsize=7, frameon=False)
    if title:
        fig.suptitle(title, fontsize=9)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def plot_spectrum(eigenvalues, x, density, path: str, title: str = "", window=None, bins: int = 60) -> str:
    """Write a PNG: the histogram of ``eigenvalues`` (as a density) under the predicted ``density`` on ``x``.

    ``window = (lo, hi)`` limits the histogram (the few outliers of the low-rank part are left out);
    the bars are normalized by all the eigenvalues, so that they compare with the density itself.
    """
    plt = agg_pyplot()
    eigenvalues = np.asarray(eigenvalues, float)
    lo, hi = window if window is not None else (eigenvalues.min(), eigenvalues.max())
    counts, edges = np.histogram(eigenvalues, bins=bins, range=(lo, hi))
    heights = counts / (eigenvalues.size * np.diff(edges))
    fig, ax = plt.subplots(figsize=(5.5, 3.6))
    ax.bar(edges[:-1], heights, width=np.diff(edges), align="edge", color="C0", alpha=0.45,
           label=f"simulated eigenvalues ({eigenvalues.size})")
    ax.plot(x, density, color="C3", label="predicted density")
    ax.set_xlabel("eigenvalue")
    ax.set_ylabel("density")
    ax.set_ylim(0, 1.15 * max(float(np.max(heights, initial=0)), float(np.quantile(density, 0.98))))
    ax.legend(fontsize=8)
    if title:
        ax.set_title(title, fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def plot_convergence(result, path: str) -> str:
    r"""Write the finite-size figure of a :class:`~symrmt.Convergence` and return its path.

    One row per quantity (attention, linear, gap). Left: :math:`|\bar E(n) - E_{\rm theory}|` against n
    on log axes, with 95% Student-t bars over seeds and the fitted correction :math:`|\sum_i b_i n^{-\alpha_i}|`
    (slope :math:`-\alpha` for one term). Right: :math:`\bar E(n)` against :math:`(n_K/n)^{\alpha}` (:math:`n_K` the
    largest size, so that the ladder ends at 1 and :math:`n = \infty` is 0), the fitted line carried to 0,
    the extrapolated limit with its 95% interval, and the theory (star). Open markers: sizes the chosen fit
    left out; a bar that reaches 0 on the log axis ends at the bottom of the panel.
    """
    from ..analysis.seeds import t_quantile

    plt = agg_pyplot()
    ns, top = np.asarray(result.ns, float), float(result.ns[-1])
    half = t_quantile(result.seeds)[:, None]                       # 95% t quantile per size, as a column
    fig, axes = plt.subplots(3, 2, figsize=(9.5, 9.6), squeeze=False)
    for row, quantity in zip(axes, result.quantities):
        distances = np.abs(quantity.mean - quantity.theory[None, :])
        floor = 0.3 * float(np.min(distances[distances > 0], initial=1.0))   # where a bar that reaches 0 ends
        for g, fit in enumerate(quantity.fits):
            color, label = f"C{g % 10}", f"γ = {result.gamma[g]:.3g}"
            bar = half[:, 0] * quantity.se[:, g]
            fitted = ns >= fit.first                                   # open markers: sizes left out of the fit
            for side, face in ((fitted, color), (~fitted, "none")):
                distance = np.maximum(distances[side, g], floor)
                row[0].errorbar(ns[side], distance, yerr=[np.clip(np.minimum(bar[side], distance - floor), 0, None),
                                                          bar[side]],
                                fmt="o", color=color, mfc=face, ms=4, capsize=2, label=label if face == color else None)
                row[1].errorbar((top / ns[side]) ** fit.exponent, quantity.mean[side, g], yerr=bar[side], fmt="o",
                                color=color, mfc=face, ms=4, capsize=2, label=label if face == color else None)
            line = np.geomspace(fit.first, top, 50)
            row[0].plot(line, np.abs(fit.correction(line)), color=color, lw=1,
                        label=f"fit {fit.model}, α = {fit.exponent:.2f}")
            grid = np.linspace(0.0, (top / fit.first) ** fit.exponent, 60)[1:]
            curve = fit.limit + fit.correction(top * grid ** (-1.0 / fit.exponent))    # at n = n_K x^(-1/alpha)
            row[1].plot(np.r_[0.0, grid], np.r_[fit.limit, curve], color=color, lw=1)
            row[1].errorbar([0.0], [fit.limit], yerr=[[fit.limit - fit.lo], [fit.hi - fit.limit]], fmt="s",
                            color=color, mfc="none", ms=6, capsize=4)
            row[1].plot([0.0], [quantity.theory[g]], marker="*", color="k", ms=10, ls="none",
                        label="theory" if g == 0 else None)
        row[0].set_ylim(bottom=floor)
        row[0].set(xscale="log", yscale="log", xlabel="n", ylabel=f"|MC − theory|, {quantity.name}")
        row[1].set(xlabel=r"$(n_K/n)^{\alpha}$  (0 is $n = \infty$)", ylabel=f"E, {quantity.name}")
        for ax in row:
            ax.grid(alpha=0.3)
            ax.legend(fontsize=6)
    ladder = ", ".join(f"{int(n)} ({int(s)})" for n, s in zip(result.ns, result.seeds))
    fig.suptitle(f"f = {result.f}, c = {result.c:g}, d = {result.d:g}; n (seeds): {ladder}; bars: 95% t intervals",
                 fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path
