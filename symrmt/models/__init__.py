"""The models of the package, one :class:`Model` each, registered once; everything else reads the registry.

=========================  ====================================================================
module                     what it holds
=========================  ====================================================================
:mod:`.model`              :class:`Model` and the registry (:func:`register`, :func:`get`, :func:`names`)
:mod:`.binding`            user arguments read into a system's parameter symbols
:mod:`.attention`          nonlinear attention (any rank of weights)
:mod:`.linear`             linear (ridge) regression, the baseline
:mod:`.kernel_ridge`       kernel ridge regression on :math:`K` alone
:mod:`.density`            eigenvalue densities of the attention Gram matrix and of :math:`K`
:mod:`.numeric`            the models with a numeric solver of their own: general M, its elliptic model,
                           softmax, summed heads (and concatenated heads, a Monte Carlo without theory)
=========================  ====================================================================

A new model is one module that builds a :class:`Model` and registers it (``register(Model(...))``), then
``symrmt.theory.solve_model(name, ...)``, ``symrmt.latex(kind=name)`` and ``symrmt latex --kind name``
serve it. Importing this package loads neither SymPy nor the simulator.
"""
from __future__ import annotations

from .model import Model, get, models, names, register, unregister
from .attention import ATTENTION
from .linear import LINEAR
from .density import DENSITIES, GRAM_DENSITY, KERNEL_DENSITY
from .kernel_ridge import KERNEL_RIDGE
from .numeric import ATTENTION_ELLIPTIC, ATTENTION_GENERAL, CONCATENATED_HEADS, SOFTMAX, SUMMED_HEADS
from .model import seal_built_ins

seal_built_ins()                   # the models above are the package's own: none can be unregistered

__all__ = ["Model", "register", "unregister", "get", "names", "models", "ATTENTION", "LINEAR", "KERNEL_RIDGE",
           "GRAM_DENSITY", "KERNEL_DENSITY", "DENSITIES", "ATTENTION_GENERAL", "ATTENTION_ELLIPTIC", "SOFTMAX",
           "SUMMED_HEADS", "CONCATENATED_HEADS"]
