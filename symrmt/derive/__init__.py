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
4. :mod:`.dyson` -- what every system shares: the law of :math:`A`, the noise
   kernel, the Dyson fixed point of a pencil and the continuation start scale;
5. :mod:`.attention` -- these assembled into one
   :class:`~.fixed_point.FixedPointSystem` for attention (any rank of weights)
   and one for linear (ridge) regression; :mod:`.density` -- the same resolvents
   at a complex spectral argument, for eigenvalue densities; :mod:`.kernel_ridge` -- a second
   model from the same parts, ridge regression on :math:`K` alone;
6. :mod:`.registry` -- the substitution of f's Hermite data (the models are registered in :mod:`symrmt.models`);
   :mod:`.latex` -- a system printed as LaTeX (its expressions by :mod:`.latex_printer`, the low-rank part
   of an observable by :mod:`.latex_lowrank`; :mod:`.paper` -- the body of a paper);
7. :mod:`.algebraic` -- any of these systems with its spectral averages in closed form (polynomial
   equations, no quadrature), from the law's Stieltjes equation in :mod:`.stieltjes`.

A system is made of the parts in :mod:`.components`. The numeric solver
(:mod:`symrmt.solve`) solves exactly these objects, compiled by :mod:`symrmt.codegen`.
"""
from ..runtime.lazy import lazy_exports

# Imported on first use: a process whose systems come from the disk cache (symrmt.codegen.system_cache) reads only
# the symbols (.symbols), never the derivation itself.
__getattr__, __dir__ = lazy_exports(__name__, {
    "algebraic_form": "algebraic", "attention_system": "attention", "linear_system": "attention",
    **{name: "components" for name in ("Admissible", "Continuation", "SpectralAverage", "SpectralLaw", "WoodburyForm",
                                       "derivative_of")},
    "density_system": "density", "FixedPointSystem": "fixed_point", "kernel_ridge_system": "kernel_ridge"}, globals())

__all__ = ["FixedPointSystem", "SpectralAverage", "SpectralLaw", "WoodburyForm", "Continuation", "Admissible",
           "derivative_of", "attention_system", "linear_system", "density_system", "kernel_ridge_system",
           "algebraic_form"]
