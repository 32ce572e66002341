r"""The derivation layer: SymPy only, no NumPy evaluation.

From the Gaussian equivalent of the attention matrix (THEORY.md section 2) the
code builds, step by step,

1. :mod:`.gaussian_equivalent` -- the low-rank part of the scores and of the
   data Gram matrix, by expanding :math:`X^\top M X` word by word;
2. :mod:`.pencil` -- the linear pencil whose inverse holds :math:`Q(\gamma)`,
   the covariance (self-energy) map of its Wigner part, and the Dyson
   fixed-point equations for the normalized block traces;
3. :mod:`.woodbury` -- the low-rank (Woodbury) correction for signal and
   weights, every quadratic form reduced to spectral averages;
4. :mod:`.system` -- these assembled into one :class:`~.system.Derivation`
   for attention and one for linear (ridge) regression;
5. :mod:`.latex` -- the same objects printed as LaTeX.

The numeric solver (:mod:`symrmt.solve`) evaluates exactly these objects via
:mod:`symrmt.codegen`.
"""
from .system import Derivation, derive_attention, derive_linear

__all__ = ["Derivation", "derive_attention", "derive_linear"]
