r"""Finite-n Monte Carlo of the exact model of docs/theory.md, section 1 (rank-r weights: section 5).

For each seed the simulator draws one instance of the model

.. math::

    y \in \{\pm 1\}^n \text{ (Rademacher)}, \qquad X = Z + \mu y^\top \in \mathbb R^{p\times n},
    \qquad Z_{ij} \sim \mathcal N(0, 1), \qquad p = \operatorname{round}(c n),

    S = X^\top \Big(I_p + \sum_{k=1}^r w_K^{(k)} w_Q^{(k)\top}\Big) X / \sqrt p, \qquad
    K_{ij} = f(S_{ij}) / \sqrt p \ (i \ne j), \qquad K_{ii} = d,

and returns, for every ridge parameter :math:`\gamma`, the interpolation errors

.. math::

    E_{\rm attn}(\gamma) = \frac{\gamma^2}{n}\, y^\top
        \Big(\frac{K^\top X^\top X K}{n} + \gamma I_n\Big)^{-2} y, \qquad
    E_{\rm lin}(\gamma) = \frac{\gamma^2}{n}\, y^\top
        \Big(\frac{X^\top X}{n} + \gamma I_n\Big)^{-2} y .

:math:`K` is not symmetric when :math:`w_K \ne w_Q`; the order matters and is the
one written above (:math:`S_{ij} = x_i^\top x_j + \sum_k (x_i^\top w_K^{(k)})(w_Q^{(k)\top} x_j)`,
over :math:`\sqrt p`).

The geometry is either a :class:`~symrmt.geometry.Geometry` (rank one) or the Gram
matrix of :math:`(\mu, w_K^{(1)}, \dots, w_K^{(r)}, w_Q^{(1)}, \dots, w_Q^{(r)})`, size
:math:`1 + 2r`, in exactly that order. ``weights=M`` replaces the bracket by any real p-by-p
:math:`M` (or :math:`sI + \sum_k w_K^{(k)} w_Q^{(k)\top}` given by its factors); the geometry then
holds :math:`\mu` alone (:mod:`~symrmt.simulation.weights`).

Numerics (NumPy and SciPy only; SymPy is imported only when ``f`` is a string or an
expression):

* Only :math:`y^\top g(G) y` is needed for the two Gram matrices, never their
  eigenvectors. :mod:`~symrmt.simulation.linalg` has three exact routes for all :math:`\gamma` at
  once (``method``): ``"exact"`` (eigh or SVD), ``"tridiagonal"`` (one reflector
  and LAPACK ``sytrd``, the cost of eigvalsh) and ``"lanczos"`` (Lanczos
  quadrature with certified Gauss / Gauss--Radau bounds). ``"auto"`` tries Lanczos
  while the cost model of :mod:`~symrmt.simulation.routes` says it is cheaper than the tridiagonal route, and falls back
  to it otherwise; every route falls back to ``"exact"`` where its rounding
  estimate is too large. So every method agrees with ``"exact"`` to 1e-6 relative
  (the Lanczos bracket is ``LANCZOS_RTOL`` = 1e-6 wide, its midpoint within 5e-7; the
  tridiagonal route to rounding), by construction or by a certified bound, never as a
  silent approximation.
* :math:`X^\top X` is computed once (a SYRK) and serves both the scores and the
  linear baseline :math:`X^\top X/n`; the scores are built in place and ``f`` is
  applied to them by blocks of rows, so at most three n-by-n (or p-by-n) arrays
  are alive at a time (:func:`memory_estimate`; about 6 GiB at n = p = 16384).
  A run that would not fit in the available memory is refused before anything
  is allocated.
* :math:`f` is never evaluated on the diagonal :math:`S_{ii} \approx \sqrt p`, which
  is overwritten by :math:`d` anyway (``exp`` or ``x**5`` would overflow there).
* Errors are clipped into [0, 1] only where the excursion is round-off (below
  1e-12); a larger one raises :class:`~symrmt.errors.ConvergenceError`.

Draw order (documented so that an independent implementation can replay a seed):
from the ``numpy.random.Generator`` of one seed, :func:`simulate_once` draws

1. ``y = 2 * rng.integers(0, 2, size=n) - 1`` (as float64),
2. ``Z = rng.standard_normal((p, n))``,
3. only if ``random_frame``: the frame. With a ``Geometry`` it is that of
   :meth:`Geometry.vectors`, i.e. ``geometry.vectors(p, rng)`` (one
   ``rng.standard_normal((p, 3))``); with a Gram matrix it is
   ``rng.standard_normal((p, k))``, k the number of nonzero vectors; with ``weights=`` it is
   ``rng.standard_normal((p, 1))`` for :math:`\mu \ne 0` and nothing for :math:`\mu = 0`.

Without ``random_frame`` a ``Geometry`` gives ``geometry.vectors(p)`` (first three
coordinates), except with ``weights=``, where :math:`\mu = \|\mu\| e_1` however it was
given. A Gram matrix is realized from the eigendecomposition of its block of nonzero
vectors, in the first k coordinates (so zero vectors, e.g. a second pair of weights set
to 0, change nothing), and :math:`w_Q^{(k)} = w_K^{(k)}`
exactly where the Gram matrix says they are equal (then :math:`K` is symmetric).
Seed ``k`` of :func:`simulate` uses
``np.random.default_rng(np.random.SeedSequence(seed).spawn(seeds)[k])``, so more
seeds extend a run without changing its first draws, and every method sees the
same draws.

Modules, one job each: :mod:`~symrmt.simulation.model` (the draw, the scores, :math:`K`),
:mod:`~symrmt.simulation.weights` (general weight matrices: checks, forms, the signal's frame),
:mod:`~symrmt.simulation.linalg` (the routes' kernels: :mod:`~symrmt.simulation.linalg.exact`,
:mod:`~symrmt.simulation.linalg.tridiagonal`, :mod:`~symrmt.simulation.linalg.lanczos`, sharing
:mod:`~symrmt.simulation.linalg.gram`),
:mod:`~symrmt.simulation.two_stage` (LAPACK's two-stage tridiagonal reduction, which SciPy does not wrap),
:mod:`~symrmt.simulation.threads` (BLAS threads per kernel, measured once per process),
:mod:`~symrmt.simulation.routes` (which route serves each curve, by its cost model),
:mod:`~symrmt.simulation.memory` (the peak estimate and the refusal),
:mod:`~symrmt.simulation.setup` (a call's validated arguments and its loop over seeds,
:class:`~symrmt.simulation.setup.Setup`),
:mod:`~symrmt.simulation.api` (the public functions, re-exported here),
:mod:`~symrmt.simulation.new_tokens` (the in-context test error of the same probe on fresh tokens,
``simulate(..., test_tokens=N)``; drawn after step 3 above),
:mod:`~symrmt.simulation.kernel_ridge` (the same draws, then the ridge on :math:`K` alone) and
:mod:`~symrmt.simulation.heads` (several heads, summed or concatenated).
"""
from __future__ import annotations

from ..runtime.lazy import lazy_exports

# Imported on first use: the CLI's argument parser reads symrmt.simulation.softmax, and a theory call must not pay
# for the simulator's imports (scipy.linalg and its dependencies).
_EXPORTS = {"SimulationResult": "api", "simulate": "api", "simulate_once": "api", "simulate_spectrum": "api",
            "HeadsResult": "heads", "simulate_heads": "heads", "KernelRidgeResult": "kernel_ridge",
            "simulate_kernel_ridge": "kernel_ridge", "memory_estimate": "memory", "FiniteSizeWarning": "model",
            "METHODS": "routes", "WeightMatrix": "weights", "align_signal": "weights"}
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())

__all__ = ["SimulationResult", "FiniteSizeWarning", "simulate", "simulate_once", "simulate_spectrum",
           "memory_estimate", "METHODS", "KernelRidgeResult", "simulate_kernel_ridge", "HeadsResult", "simulate_heads",
           "WeightMatrix", "align_signal"]
