r"""The derivation layer: SymPy only, no NumPy evaluation.

From the Gaussian equivalent of the attention matrix (docs/theory.md) the
code builds, step by step,

1. :mod:`.gaussian_equivalent` -- the low-rank part of the scores and of the
   data Gram matrix, by expanding :math:`X^\top M X` word by word;
2. :mod:`.pencil` -- the linear pencil whose inverse holds :math:`Q(\gamma)`,
   the covariance (self-energy) map of its Wigner part, and the Dyson
   equations for the normalized block traces;
3. :mod:`.woodbury` -- the low-rank (Woodbury) correction for signal and
   weights, every quadratic form reduced to spectral averages;
4. :mod:`.attention` -- these assembled into one
   :class:`~.fixed_point.FixedPointSystem` for attention (any rank of weights)
   and one for linear (ridge) regression; :mod:`.spectral` -- the same resolvents
   at a complex spectral argument, for eigenvalue densities;
5. :mod:`.latex` -- the same objects printed as LaTeX.

The numeric solver (:mod:`symrmt.solve`) solves exactly these objects, compiled
by :mod:`symrmt.codegen`.
"""
from .attention import attention_system, linear_system
from .fixed_point import (Admissible, Continuation, FixedPointSystem, SpectralAverage, SpectralLaw, WoodburyForm,
                          derivative_of)

__all__ = ["FixedPointSystem", "SpectralAverage", "SpectralLaw", "WoodburyForm", "Continuation", "Admissible",
           "derivative_of", "attention_system", "linear_system"]
