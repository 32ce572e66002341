r"""The figure of ``symrmt weights --plot``: singular-value spectra per layer with the :math:`sI + \text{rank } r` fits."""
from __future__ import annotations

import os
from typing import TYPE_CHECKING, Sequence

import numpy as np

from ..presentation.plotting import _pyplot
from .fit import low_rank_part

if TYPE_CHECKING:
    from .analysis import MatrixFit, WeightsAnalysis

__all__ = ["plot_spectra", "fitted_singular_values"]


def fitted_singular_values(fit: "MatrixFit", rank: int) -> np.ndarray:
    r"""Singular values of the fitted :math:`sI + L_r` (decreasing), to draw against those of :math:`M`."""
    u, sigma, v = low_rank_part(fit.matrix, fit.fit(rank).s, rank)
    approximation = fit.fit(rank).s * np.eye(fit.matrix.p) + (u.T * sigma) @ v
    return np.linalg.svd(approximation, compute_uv=False)


def plot_spectra(analysis: "WeightsAnalysis", path: str | os.PathLike, ranks: Sequence[int] = (0, 1, 4, 8, 32)) -> str:
    """Write a PNG (or any Matplotlib format, by extension) with one panel per layer and return its path.

    Each panel draws the singular values of the layer's :math:`M` against their index (log
    scale) and those of its best :math:`sI + L_r` for each ``r`` in ``ranks`` that was fitted,
    labelled with :math:`s` and the fraction of :math:`\\|M\\|_F` the fit leaves out.
    """
    plt = _pyplot()
    layers = analysis.layers
    columns = min(3, max(1, len(layers)))
    rows = -(-len(layers) // columns)
    fig, axes = plt.subplots(rows, columns, figsize=(4.4 * columns, 3.4 * rows), squeeze=False)
    for ax, layer in zip(axes.flat, layers):
        whole = layer.matrix
        index = np.arange(1, len(whole.singular_values) + 1)
        ax.semilogy(index, whole.singular_values, color="k", lw=2, label="M")
        for color, rank in enumerate(r for r in ranks if r < len(whole.fits)):
            fit = whole.fit(rank)
            ax.semilogy(index, fitted_singular_values(whole, rank), color=f"C{color}", lw=1,
                        label=f"sI + rank {rank}: s = {fit.s:.3g}, left {fit.residual_fraction:.0%}")
        ax.set_title(f"layer {layer.layer} (antisymmetric {whole.antisymmetric_fraction:.0%})", fontsize=9)
        ax.set_xlabel("index i")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=6)
    for ax in axes.flat[len(layers):]:
        ax.set_visible(False)
    axes[0][0].set_ylabel(r"singular value $\sigma_i$")
    fig.suptitle(f"{os.path.basename(analysis.file)}\nsingular values of $M = W_Q^\\top W_K/\\sqrt{{d}}$ "
                 "and of its best $sI$ + rank $r$", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return str(path)
