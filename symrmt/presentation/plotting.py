"""Matplotlib figures: theory curves against Monte Carlo points, in gamma."""
from __future__ import annotations

from typing import Sequence

import numpy as np

from ..analysis.seeds import t_quantile
from ..runtime.files import save_figure
from ..theory.ridge import attention_error, linear_error

__all__ = ["plot_panels", "comparison_panel", "comparison_title", "plot_spectrum", "plot_convergence",
           "convergence_figure", "agg_pyplot"]


def agg_pyplot():
    """matplotlib.pyplot on the non-interactive Agg backend (works without a display)."""
    import matplotlib  # heavy: Matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # heavy: Matplotlib

    return plt


def comparison_panel(title: str, f, c: float, grid: np.ndarray, geometry, d: float, mc, gram=None,
                     agreement=None) -> dict:
    """A panel for :func:`plot_panels`: theory curves on ``grid`` and the Monte Carlo result ``mc``.

    The theory lines have gaps where the solver cannot solve a point of the grid (masked arrays).
    ``agreement`` (:class:`symrmt.analysis.agreement.Agreement`, default ``mc.agreement``) marks each
    point whose verdict is not "agrees".
    """
    agreement = agreement if agreement is not None else getattr(mc, "agreement", None)
    verdicts = {} if agreement is None else {"attention_verdicts": agreement.attention.verdicts,
                                             "linear_verdicts": agreement.linear.verdicts}
    return {"title": title, "gamma_theory": grid, **verdicts,
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
    return t_quantile(seeds) * np.asarray(se)


def plot_panels(panels: Sequence[dict], path: str, title: str = "", *, replace: bool = True) -> str:
    """Write a PNG (or PDF, SVG: by extension) with one panel per setting and return its path.

    Each panel is a dict with ``title``, ``gamma_theory``, ``attention_theory``,
    ``linear_theory`` (arrays; attention may be None) and optionally a Monte Carlo
    part ``gamma_mc``, ``attention_mean``, ``attention_se``, ``linear_mean``, ``linear_se``,
    ``seeds`` (error bars: 95% Student-t intervals with seeds - 1 degrees of freedom), and
    ``attention_verdicts``, ``linear_verdicts`` (:mod:`symrmt.analysis.agreement`): a point marked by a large
    open diamond is a finite-size gap, by an open square undecided, by a cross a disagreement.
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
            _mark_verdicts(ax, panel)
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
    return _save(plt, fig, path, replace)


#: How a point whose verdict is not "agrees" is marked (symrmt.analysis.agreement).
_VERDICT_MARKERS = {"finite-size gap": dict(marker="D", ms=11, mfc="none", mec="C2", mew=1.5, ls="none"),
                    "undecided": dict(marker="s", ms=11, mfc="none", mec="C1", mew=1.5, ls="none"),
                    "disagrees": dict(marker="X", ms=11, color="C3", ls="none")}


def _mark_verdicts(ax, panel: dict) -> None:
    """Large markers around the Monte Carlo points whose verdict is a finite-size gap, undecided or a
    disagreement."""
    gamma = np.asarray(panel["gamma_mc"])
    for verdict, style in _VERDICT_MARKERS.items():
        xs, ys = [], []
        for quantity in ("attention", "linear"):
            marks = panel.get(f"{quantity}_verdicts")
            if marks is None:
                continue
            chosen = np.array([m == verdict for m in marks], dtype=bool)
            xs += list(gamma[chosen])
            ys += list(np.asarray(panel[f"{quantity}_mean"])[chosen])
        if xs:
            ax.plot(xs, ys, label=f"verdict: {verdict} (|z| > t)", **style)


def plot_spectrum(eigenvalues, x, density, path: str, title: str = "", window=None, bins: int = 60) -> str:
    """Write a PNG (or PDF, SVG): the histogram of ``eigenvalues`` (as a density) under the predicted ``density`` on ``x``.

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
    return _save(plt, fig, path)


def plot_convergence(result, path: str) -> str:
    """Write :func:`convergence_figure` of a :class:`~symrmt.Convergence` to ``path`` and return the path."""
    plt = agg_pyplot()
    return _save(plt, convergence_figure(result), path)


def _save(plt, fig, path: str, replace: bool = True) -> str:
    """``fig`` written atomically to ``path`` (:func:`symrmt.runtime.files.save_figure`), then closed; the name written.

    ``replace=False`` (a default name the user never gave) keeps an existing file and writes ``NAME-1.EXT``, ...
    """
    try:
        written = save_figure(fig, path, dpi=120, replace=replace)
    finally:
        plt.close(fig)
    return str(written)


def convergence_figure(result):
    r"""The finite-size figure of a :class:`~symrmt.Convergence` (a matplotlib Figure).

    One row per quantity (attention, linear, gap), one colour per :math:`\gamma`. Left:
    :math:`\bar E(n) - E_{\rm theory}` against n (log axis, ticks at the sizes of the ladder), with 95% Student-t
    bars over seeds, and the fitted :math:`E_\infty + \sum_i b_i n^{-\alpha_i} - E_{\rm theory}` over the sizes it
    was fitted to; the dotted line is its limit :math:`E_\infty - E_{\rm theory}` and 0 is the theory. Right:
    :math:`\bar E(n)` against :math:`x = (n_{\max}/n)^{\alpha}` (:math:`n_{\max}` the largest size, :math:`\alpha` the
    fitted leading exponent of that :math:`\gamma`; :math:`x = 0` is :math:`n = \infty`), the same fitted curve carried
    to 0, the extrapolated limit with its 95% interval (square), and the theory (star). Open markers: sizes the
    chosen fit left out (the fit lines are drawn over the sizes they fit only).
    """
    from matplotlib.ticker import NullFormatter, NullLocator  # heavy: Matplotlib

    plt = agg_pyplot()
    ns, top = np.asarray(result.ns, float), float(result.ns[-1])
    half = t_quantile(result.seeds)                                 # 95% t quantile per size
    fig, axes = plt.subplots(3, 2, figsize=(10.5, 10.5), squeeze=False, layout="constrained")
    for row, quantity in zip(axes, result.quantities):
        for g, fit in enumerate(quantity.fits):
            color, label = f"C{g % 10}", f"γ = {result.gamma[g]:.3g}"
            bar = half * quantity.se[:, g]
            theory = float(quantity.theory[g])
            fitted = ns >= fit.first                                   # open markers: sizes left out of the fit
            for side, face in ((fitted, color), (~fitted, "none")):
                if not np.any(side):
                    continue
                row[0].errorbar(ns[side], quantity.mean[side, g] - theory, yerr=bar[side], fmt="o", color=color,
                                mfc=face, ms=4, capsize=2, label=label if face == color else None)
                row[1].errorbar((top / ns[side]) ** fit.exponent, quantity.mean[side, g], yerr=bar[side], fmt="o",
                                color=color, mfc=face, ms=4, capsize=2, label=label if face == color else None)
            line = np.geomspace(fit.first, top, 60)
            row[0].plot(line, fit.limit + fit.correction(line) - theory, color=color, lw=1,
                        label=f"fit {fit.model}, α = {fit.exponent:.2f}")
            row[0].axhline(fit.limit - theory, color=color, lw=0.8, ls=":")
            grid = np.linspace(0.0, (top / fit.first) ** fit.exponent, 60)[1:]
            curve = fit.limit + fit.correction(top * grid ** (-1.0 / fit.exponent))    # at n = n_max x^(-1/alpha)
            row[1].plot(np.r_[0.0, grid], np.r_[fit.limit, curve], color=color, lw=1)
            row[1].errorbar([0.0], [fit.limit], yerr=[[fit.limit - fit.lo], [fit.hi - fit.limit]], fmt="s",
                            color=color, mfc="none", ms=6, capsize=4)
            row[1].plot([0.0], [theory], marker="*", color="k", ms=10, ls="none",
                        label="theory" if g == 0 else None)
        row[0].axhline(0.0, color="k", lw=0.8)
        row[0].set_xscale("log")
        row[0].xaxis.set_major_locator(plt.FixedLocator(ns))           # one plain label per size, no minor labels
        row[0].set_xticks(ns, [str(int(n)) for n in ns], rotation=45 if len(ns) > 5 else 0)
        row[0].xaxis.set_minor_locator(NullLocator())
        row[0].xaxis.set_minor_formatter(NullFormatter())
        row[0].set(xlabel="n (tokens; p = round(c n))",
                   ylabel=rf"$\bar E(n) - E_{{\rm theory}}$, {quantity.name}")
        row[1].set(xlabel=rf"$x = (n_{{\max}}/n)^{{\alpha}}$, $n_{{\max}} = {int(top)}$, $\alpha$ fitted per $\gamma$"
                          r" ($x = 0$: $n = \infty$)",
                   ylabel=rf"$\bar E(n)$, {quantity.name}")
        for ax in row:
            ax.grid(alpha=0.3)
            ax.legend(fontsize=6)
    ladder = ", ".join(f"{int(n)} ({int(s)})" for n, s in zip(result.ns, result.seeds))
    fig.suptitle(rf"f = {result.f}, c = {result.c:g}, d = {result.d:g}; n (seeds): {ladder}" "\n"
                 r"$\bar E(n)$: mean over seeds at size n (bars: 95% $t$ intervals); lines: the fit "
                 r"$E_\infty + \sum_i b_i n^{-\alpha_i}$; dotted: $E_\infty - E_{\rm theory}$", fontsize=9)
    return fig
