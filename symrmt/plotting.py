"""Matplotlib figures: theory curves against Monte Carlo points, in gamma."""
from __future__ import annotations

from typing import Sequence

import numpy as np

__all__ = ["plot_panels", "comparison_panel", "plot_spectrum"]


def _pyplot():
    """matplotlib.pyplot on the non-interactive Agg backend (works without a display)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def comparison_panel(title: str, f, c: float, grid: np.ndarray, geometry, d: float, mc, gram=None) -> dict:
    """A panel for :func:`plot_panels`: theory curves on ``grid`` and the Monte Carlo result ``mc``.

    The theory lines have gaps where the solver cannot solve a point of the grid (masked arrays).
    """
    from .theory import attention_error, linear_error

    return {"title": title, "gamma_theory": grid,
            "attention_theory": attention_error(f, c, grid, geometry, d, gram=gram, partial=True),
            "linear_theory": linear_error(c, grid, geometry, gram=gram, partial=True), "gamma_mc": mc.gamma,
            "attention_mean": mc.attention_mean, "attention_se": mc.attention_se,
            "linear_mean": mc.linear_mean, "linear_se": mc.linear_se}


def plot_panels(panels: Sequence[dict], path: str, title: str = "") -> str:
    """Write a PNG with one panel per setting and return its path.

    Each panel is a dict with ``title``, ``gamma_theory``, ``attention_theory``,
    ``linear_theory`` (arrays; attention may be None) and optionally a Monte Carlo
    part ``gamma_mc``, ``attention_mean``, ``attention_se``, ``linear_mean``, ``linear_se``.
    Uses the non-interactive Agg backend (works without a display).
    """
    plt = _pyplot()
    fig, axes = plt.subplots(1, len(panels), figsize=(4.2 * len(panels), 3.6), squeeze=False, sharey=True)
    for ax, panel in zip(axes[0], panels):
        g = np.asarray(panel["gamma_theory"])
        if panel.get("attention_theory") is not None:
            ax.plot(g, panel["attention_theory"], color="C0", label="attention, theory")
        ax.plot(g, panel["linear_theory"], color="C1", ls="--", label="linear, theory")
        if "gamma_mc" in panel:
            ax.errorbar(panel["gamma_mc"], panel["attention_mean"], yerr=2 * np.asarray(panel["attention_se"]),
                        fmt="o", color="C0", ms=4, capsize=2, label="attention, Monte Carlo (±2 se)")
            ax.errorbar(panel["gamma_mc"], panel["linear_mean"], yerr=2 * np.asarray(panel["linear_se"]),
                        fmt="s", color="C1", ms=4, capsize=2, mfc="none", label="linear, Monte Carlo (±2 se)")
        ax.set_xscale("log")
        ax.set_xlabel(r"ridge $\gamma$")
        ax.set_title(panel["title"], fontsize=10)
        ax.set_ylim(-0.02, 1.02)
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel("interpolation error E(γ)")
    axes[0][0].legend(fontsize=7, loc="upper left")
    if title:
        fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def plot_spectrum(eigenvalues, x, density, path: str, title: str = "", window=None, bins: int = 60) -> str:
    """Write a PNG: the histogram of ``eigenvalues`` (as a density) under the predicted ``density`` on ``x``.

    ``window = (lo, hi)`` limits the histogram (the few outliers of the low-rank part are left out);
    the bars are normalized by all the eigenvalues, so that they compare with the density itself.
    """
    plt = _pyplot()
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
