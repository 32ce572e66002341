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
:math:`1 + 2r`, in exactly that order.

Numerics (NumPy and SciPy only; SymPy is imported only when ``f`` is a string or an
expression):

* Only :math:`y^\top g(G) y` is needed for the two Gram matrices, never their
  eigenvectors. :mod:`symrmt.ridge` has three exact routes for all :math:`\gamma` at
  once (``method``): ``"exact"`` (eigh or SVD), ``"tridiagonal"`` (one reflector
  and LAPACK ``sytrd``, the cost of eigvalsh) and ``"lanczos"`` (Lanczos
  quadrature with certified Gauss / Gauss--Radau bounds). ``"auto"`` tries Lanczos
  while a cost model says it is cheaper than the tridiagonal route, and falls back
  to it otherwise; every route falls back to ``"exact"`` where its rounding
  estimate is too large. So every method agrees with ``"exact"`` to about 1e-8
  relative (the Lanczos bracket is 1e-8 wide), by construction or by a certified
  bound, never as a silent approximation.
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
   ``rng.standard_normal((p, k))``, k the number of nonzero vectors.

Without ``random_frame`` a ``Geometry`` gives ``geometry.vectors(p)`` (first three
coordinates). A Gram matrix is realized from the eigendecomposition of its block
of nonzero vectors, in the first k coordinates (so zero vectors, e.g. a second
pair of weights set to 0, change nothing), and :math:`w_Q^{(k)} = w_K^{(k)}`
exactly where the Gram matrix says they are equal (then :math:`K` is symmetric).
Seed ``k`` of :func:`simulate` uses
``np.random.default_rng(np.random.SeedSequence(seed).spawn(seeds)[k])``, so more
seeds extend a run without changing its first draws, and every method sees the
same draws.
"""
from __future__ import annotations

import dataclasses
import os
import sys
import warnings
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from . import ridge
from .errors import ConvergenceError, ParameterError, SymrmtInputError
from .progress import progress_bar
from .stats import mean_se
from .geometry import Geometry, check_symmetric_kernel, realize, resolve_gram

__all__ = ["SimulationResult", "FiniteSizeWarning", "simulate", "simulate_once", "simulate_spectrum",
           "memory_estimate", "METHODS"]

#: The ``method`` values of :func:`simulate`.
METHODS = ("auto", "exact", "tridiagonal", "lanczos")

#: Rows of an n-by-n array processed per block (bounds the temporaries of f and of the low-rank term).
_BLOCK_ROWS = 256

#: Excursions of an error outside [0, 1] up to this size are round-off and are clipped.
_CLIP_ATOL = 1e-12

# Cost model of ``method="auto"``, in flop-equivalents of a GEMM (2 m k n for an m-by-k
# times k-by-n product). Ratios measured on the development machine, see
# docs/performance.md; only their order of magnitude matters for the choice, never
# for the result (every route is exact).
_PASS = 14.0            # one matrix element streamed by a (single-threaded) matrix-vector product
_SYRK = 1.4             # X^T X, per m*m*k (numpy uses SYRK, about 0.7 of a GEMM)
_SYTRD = 3.0            # blocked sytrd, per m^3 (about 1.5 GEMMs of size m)
_STEP_OVERHEAD = 3e6    # Python overhead of one Lanczos step
# Lanczos steps to close the bracket, about _STEPS * sqrt(kappa) with kappa the condition
# number of the Marchenko-Pastur bulk shifted by gamma_min (times _STEPS_ATTENTION for
# the attention Gram); measured with tanh at c = 1 (docs/performance.md).
_STEPS = 5.6
_STEPS_ATTENTION = 1.35

_GIB = 2.0**30


class FiniteSizeWarning(UserWarning):
    """The simulated model is exact, but its norms are too large for the asymptotic theory to apply."""


@dataclass(frozen=True, eq=False)
class SimulationResult:
    r"""Monte Carlo interpolation errors over ``seeds`` independent draws.

    Attributes
    ----------
    gamma : numpy.ndarray
        Ridge parameters, shape ``(G,)``, in the order given.
    attention_mean, attention_se : numpy.ndarray
        Mean of :math:`E_{\rm attn}(\gamma)` over seeds and its standard error
        ``std(ddof=1) / sqrt(seeds)``, shape ``(G,)``.
    linear_mean, linear_se : numpy.ndarray
        The same for the linear baseline :math:`E_{\rm lin}(\gamma)`.
    attention_per_seed, linear_per_seed : numpy.ndarray
        The individual draws, shape ``(seeds, G)``.
    n, p : int
        Number of tokens and dimension, :math:`p = \operatorname{round}(c n)`.
    c, d : float
        Requested ratio and the diagonal of :math:`K`.
    seeds, seed : int
        Number of draws and the root seed of their ``SeedSequence``.
    geometry : Geometry or None
        Norms and cosines of :math:`(\mu, w_K, w_Q)` when the weights have rank one
        (given directly, or read from a 3-by-3 Gram matrix); ``None`` for r > 1.
    gram : numpy.ndarray
        The Gram matrix of :math:`(\mu, w_K^{(1..r)}, w_Q^{(1..r)})`, shape ``(1+2r, 1+2r)``.
    method : str
        The ``method`` asked for.
    routes : dict
        For ``"attention"`` and ``"linear"``: how many seeds each route of
        :mod:`symrmt.ridge` served (``"lanczos"``, ``"tridiagonal"``, ``"exact"``).

    The arrays are read-only.
    """

    gamma: np.ndarray
    attention_mean: np.ndarray
    attention_se: np.ndarray
    linear_mean: np.ndarray
    linear_se: np.ndarray
    attention_per_seed: np.ndarray
    linear_per_seed: np.ndarray
    n: int
    p: int
    c: float
    d: float
    seeds: int
    seed: int
    geometry: Geometry | None
    gram: np.ndarray | None = None
    method: str = "exact"
    routes: dict = field(default_factory=dict)

    def _repr_html_(self) -> str:
        """Jupyter: a small table, gamma and both errors as mean ± standard error."""
        from .display import simulation_html

        return simulation_html(self)

    def to_csv(self, path=None) -> str:
        """CSV, one row per gamma (means and standard errors, then the settings); written to ``path`` if given."""
        from .display import to_csv

        return to_csv(self, path)

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready summary (plain lists and numbers).

        Keys: ``gamma``; ``attention`` and ``linear``, each with ``mean``, ``se``
        and ``per_seed``; ``n``, ``p``, ``c``, ``d``, ``seeds``, ``seed``,
        ``geometry`` (as :meth:`Geometry.as_dict`, or ``null`` for r > 1),
        ``gram`` (a nested list), ``method`` and ``routes``.
        """
        return {
            "gamma": self.gamma.tolist(),
            "attention": {"mean": self.attention_mean.tolist(), "se": self.attention_se.tolist(),
                          "per_seed": self.attention_per_seed.tolist()},
            "linear": {"mean": self.linear_mean.tolist(), "se": self.linear_se.tolist(),
                       "per_seed": self.linear_per_seed.tolist()},
            "n": self.n, "p": self.p, "c": self.c, "d": self.d,
            "seeds": self.seeds, "seed": self.seed,
            "geometry": None if self.geometry is None else self.geometry.as_dict(),
            "gram": None if self.gram is None else self.gram.tolist(),
            "method": self.method, "routes": {k: dict(v) for k, v in self.routes.items()},
        }


# ---------------------------------------------------------------------------
# Validation
# ---------------------------------------------------------------------------

def _check_int(value: Any, name: str, minimum: int, hint: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ParameterError(f"{name} = {value!r}: must be an integer >= {minimum}. {hint}")
    if value < minimum:
        raise ParameterError(f"{name} = {value}: must be >= {minimum}. {hint}")
    return int(value)


def _check_real(value: Any, name: str) -> float:
    if isinstance(value, (complex, np.complexfloating)):
        raise ParameterError(f"{name} = {value!r}: must be a real number, not complex.")
    try:
        number = float(value)
    except (TypeError, ValueError, OverflowError):
        raise ParameterError(f"{name} = {value!r}: must be a real number.") from None
    if not np.isfinite(number):
        raise ParameterError(f"{name} = {value!r}: must be finite.")
    return number


def _dimension(n: Any, c: Any, vectors: int = 3) -> tuple[int, float, int]:
    """Validate ``n`` and ``c``; return ``(n, c, p)`` with ``p = round(c n) >= vectors``."""
    n = _check_int(n, "n", 2, "Use at least two tokens (n >= 2).")
    c = _check_real(c, "c")
    if c <= 0:
        raise ParameterError(f"c = {c}: the ratio p/n must be > 0.")
    if c * n > 2.0**62:
        raise ParameterError(f"c*n = {c}*{n}: p = round(c*n) is far too large to simulate; use a smaller c or n.")
    p = int(round(c * n))
    if p < max(vectors, 3):
        raise ParameterError(
            f"p = round(c*n) = round({c}*{n}) = {p}: need p >= {max(vectors, 3)} to place mu, w_K and w_Q; "
            "increase n or c."
        )
    return n, c, p


def _gamma_grid(gamma: Any) -> np.ndarray:
    """Validate the ridge parameters; return a 1-d float64 array (a scalar gives one entry)."""
    if np.iscomplexobj(gamma):
        raise ParameterError(f"gamma = {gamma!r}: must be real, not complex.")
    try:
        grid = np.atleast_1d(np.asarray(gamma, dtype=np.float64))
    except (TypeError, ValueError, OverflowError):
        raise ParameterError(f"gamma = {gamma!r}: must be a positive number or a 1-d list of them.") from None
    if grid.ndim != 1 or grid.size == 0:
        raise ParameterError(f"gamma has shape {grid.shape}: give a positive number or a non-empty 1-d list.")
    bad = ~np.isfinite(grid) | (grid <= 0)
    if bad.any():
        raise ParameterError(
            f"gamma contains {grid[bad][:5].tolist()}: every ridge parameter must be finite and > 0 "
            "(gamma -> 0 is the interpolation limit; use a small positive value such as 1e-4)."
        )
    return grid


def _check_method(method: Any) -> str:
    if method not in METHODS:
        raise ParameterError(f"method = {method!r}: must be one of {', '.join(map(repr, METHODS))}.")
    return method


def _resolve_geometry(geometry: Any, gram: Any) -> tuple[Geometry | None, np.ndarray]:
    """``(geometry or None, gram)`` from exactly one of the two (neither: no signal, no weights).

    The Gram matrix is checked by :func:`symrmt.geometry.resolve_gram`, as in the theory; a
    rank-one geometry also comes back as a :class:`Geometry` (reported in the result).
    """
    matrix = resolve_gram(geometry, gram)
    if gram is not None:
        return (Geometry.from_gram(matrix) if matrix.shape == (3, 3) else None), matrix
    return geometry or Geometry(), matrix


def _warn_large_norms(gram: np.ndarray, p: int) -> None:
    norm = float(np.sqrt(np.max(np.diag(gram))))
    if norm > p**0.25:
        warnings.warn(
            f"the largest norm of mu, w_K, w_Q is {norm:.3g} > p^(1/4) = {p**0.25:.3g}: the low-rank part "
            "of the scores is not small against their noise at this p, so the finite model is simulated "
            "exactly but the asymptotic theory is not to be trusted here (increase n or reduce the norms).",
            FiniteSizeWarning, stacklevel=3,
        )


# ---------------------------------------------------------------------------
# Memory
# ---------------------------------------------------------------------------

def memory_estimate(n: int, p: int, seeds: int, gammas: int, method: str = "auto",
                    spectrum: str | None = None) -> int:
    r"""Peak bytes of :func:`simulate` (or of :func:`simulate_spectrum` with ``spectrum``), before allocating.

    Counts the arrays alive at the worst moment of one draw (``X`` is p-by-n, the
    scores, ``K`` and the Gram matrices n-by-n or min(p, n)-squared, plus the
    workspace of the factorization), the per-seed results, and a fixed allowance
    for the interpreter and row-block temporaries. Float64 throughout.
    """
    pn, n2, m2 = 8.0 * p * n, 8.0 * n * n, 8.0 * min(p, n) ** 2
    if spectrum == "kernel":
        peak = pn + 2 * n2
    elif spectrum == "gram":
        peak = max(2 * pn + n2, pn + 2 * m2)
    elif method == "exact":
        factor = 6 * n2 if p >= n else 4 * pn + 4 * m2   # eigh of the Gram / SVD (gesdd) workspace
        shrink = 2 * 8.0 * gammas * n                     # the gamma-by-eigenvalue weights
        peak = max(2 * pn + n2, 2 * pn + factor + shrink)
    else:
        keeps_gram = p >= n / 2 and method != "exact"
        peak = max(pn + (2 if keeps_gram else 1) * n2, 2 * pn + n2, pn + n2 + m2)
        if _concurrent(n, p):   # X, C, F and the attention Gram while both reductions run
            peak = max(peak, 2 * pn + n2 + m2)
        if method in ("auto", "lanczos"):   # two Lanczos bases, one per thread
            peak += 2 * 8.0 * n * (min(n, _lanczos_cap(n, p, method)) + 1)
    if max(n, p) > ridge.SYRK_COLUMNS:      # one block of the blocked Gram product
        peak += 8.0 * ridge.SYRK_COLUMNS**2
    results = 8.0 * seeds * (2 * gammas + (n if spectrum else 0))
    blocks = 4 * 8.0 * _BLOCK_ROWS * n
    return int(1.05 * (peak + results + blocks) + 64 * 2**20)


def _available_memory() -> int | None:
    """MemAvailable of /proc/meminfo (bytes), else the free physical pages; None if unknown."""
    try:
        with open("/proc/meminfo") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return int(os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
    except (AttributeError, ValueError, OSError):  # pragma: no cover - platforms without sysconf
        return None


def _check_memory(n: int, p: int, seeds: int, gammas: int, method: str, spectrum: str | None = None) -> None:
    need = memory_estimate(n, p, seeds, gammas, method, spectrum)
    available = _available_memory()
    if available is not None and need > available:
        what = f"simulate_spectrum(matrix={spectrum!r})" if spectrum else f"simulate(method={method!r})"
        raise ParameterError(
            f"n = {n}, p = {p}, seeds = {seeds}: {what} needs about {need / _GIB:.3g} GiB "
            f"(X alone, p-by-n float64, is {8.0 * p * n / _GIB:.3g} GiB) but only {available / _GIB:.3g} GiB "
            "of memory are available. Use a smaller n or c."
        )


# ---------------------------------------------------------------------------
# The nonlinearity
# ---------------------------------------------------------------------------

def _is_sympy(obj: Any) -> bool:
    # SymPy objects can only exist if SymPy was imported: keeps this module NumPy-only.
    sympy = sys.modules.get("sympy")
    return sympy is not None and isinstance(obj, (sympy.Basic, sympy.FunctionClass))


def _expression_callable(expr: Any) -> Callable[[np.ndarray], np.ndarray]:
    """NumPy function of a formula or SymPy expression in x, by the nonlinearity package's one adapter."""
    from .nonlinearity import numpy_callable  # lazy: only formulas and expressions need SymPy

    return numpy_callable(expr)


def _resolve_nonlinearity(f: Any) -> tuple[Callable[[np.ndarray], np.ndarray], str]:
    """Turn ``f`` (str, SymPy expression or NumPy callable) into ``(callable, label)``."""
    if isinstance(f, str):
        return _expression_callable(f), f
    if _is_sympy(f):
        return _expression_callable(f), str(f)
    if callable(f):
        return f, getattr(f, "__name__", repr(f))
    raise SymrmtInputError(
        f"f = {f!r}: must be a string such as 'tanh(x)', a SymPy expression in x, "
        "or a vectorized NumPy function such as np.tanh."
    )


def _apply(f: Callable, label: str, scores: np.ndarray) -> np.ndarray:
    """``f(scores)`` as a real float64 array of the same shape, or a clear refusal."""
    try:
        with np.errstate(all="ignore"):  # overflow / nan are checked below, with a better message
            values = np.asarray(f(scores))
    except (TypeError, ValueError, AttributeError, NameError) as exc:
        raise SymrmtInputError(
            f"f = {label}: calling it on the array of scores failed ({exc}). f must act entrywise on a "
            "NumPy array (use np.tanh, not math.tanh)."
        ) from exc
    if values.dtype.kind == "c":
        if np.any(values.imag != 0):
            raise SymrmtInputError(
                f"f = {label}: returned complex values on the real scores; f must be real-valued on the "
                "real line."
            )
        values = values.real
    if values.shape != scores.shape:
        if values.ndim != 0:
            raise SymrmtInputError(
                f"f = {label}: returned shape {values.shape} for input shape {scores.shape}; "
                "f must act entrywise."
            )
        values = np.full(scores.shape, values)  # a constant f
    try:
        return values.astype(np.float64, copy=False)
    except (TypeError, ValueError) as exc:
        raise SymrmtInputError(f"f = {label}: returned non-numeric values ({values.dtype}).") from exc


# ---------------------------------------------------------------------------
# One draw
# ---------------------------------------------------------------------------

@dataclass(frozen=True, eq=False)
class _Model:
    """Validated parameters of one simulation (everything but the seeds)."""

    n: int
    p: int
    d: float
    geometry: Geometry | None   # the rank-one path replays Geometry.vectors exactly
    gram: np.ndarray
    random_frame: bool
    f: Callable | None = None
    label: str = ""

    @property
    def rank(self) -> int:
        return (self.gram.shape[0] - 1) // 2


def _vectors(model: _Model, rng: np.random.Generator) -> np.ndarray:
    """Rows mu, w_K^(1..r), w_Q^(1..r) in R^p with the model's Gram matrix (module docstring)."""
    frame_rng = rng if model.random_frame else None
    # The rank-one path replays Geometry.vectors exactly (eigh of the whole 3 x 3).
    return realize(model.gram, model.p, frame_rng, compress=model.geometry is None)


def _draw(model: _Model, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Draw ``y``, ``X`` and the vectors, in the documented order: y, Z, frame."""
    y = (2 * rng.integers(0, 2, size=model.n) - 1).astype(np.float64)
    X = rng.standard_normal((model.p, model.n))
    vectors = _vectors(model, rng)
    if np.any(vectors[0]):
        _add_outer(X, vectors[0], y)  # X = Z + mu y^T, in place
    return y, X, vectors


def _add_outer(A: np.ndarray, u: np.ndarray, v: np.ndarray) -> None:
    """``A += u v^T`` in place, by blocks of rows (no full-size temporary)."""
    for start in range(0, A.shape[0], _BLOCK_ROWS):
        stop = start + _BLOCK_ROWS
        A[start:stop] += np.outer(u[start:stop], v)


def _weight_projections(X: np.ndarray, vectors: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    r""":math:`U = X^\top W_K`, :math:`V = X^\top W_Q` (n-by-r'), keeping only pairs with both vectors nonzero."""
    r = (vectors.shape[0] - 1) // 2
    pairs = [k for k in range(1, r + 1) if np.any(vectors[k]) and np.any(vectors[k + r])]
    keys = vectors[pairs].T if pairs else np.zeros((X.shape[0], 0))
    queries = vectors[[k + r for k in pairs]].T if pairs else np.zeros((X.shape[0], 0))
    return X.T @ keys, X.T @ queries


def _scores(X: np.ndarray, vectors: np.ndarray, keep_gram: bool) -> tuple[np.ndarray, np.ndarray | None]:
    r"""The scores :math:`S = (X^\top X + U V^\top)/\sqrt p` and, if ``keep_gram``, :math:`C = X^\top X/n`.

    :math:`X^\top X` is one SYRK (:func:`symrmt.ridge.symmetric_product`); it becomes ``C`` in
    place, so the linear baseline costs no second product.
    """
    p, n = X.shape
    gram = ridge.symmetric_product(X)
    keys, queries = _weight_projections(X, vectors)
    scores = gram.copy() if keep_gram else gram
    if keys.shape[1]:
        for start in range(0, n, _BLOCK_ROWS):
            scores[start:start + _BLOCK_ROWS] += keys[start:start + _BLOCK_ROWS] @ queries.T
    scores /= np.sqrt(p)
    if not keep_gram:
        return scores, None
    gram /= n
    return scores, gram


def _attention_matrix(S: np.ndarray, p: int, f: Callable, label: str, d: float) -> np.ndarray:
    r""":math:`K_{ij} = f(S_{ij})/\sqrt p` off the diagonal, :math:`K_{ii} = d`, computed in place in ``S``.

    f never sees :math:`S_{ii} \approx \sqrt p` (the diagonal is zeroed first and
    replaced by ``d``); it is applied by blocks of rows, so no second n-by-n array
    is made.
    """
    np.fill_diagonal(S, 0.0)
    low, high = float(S.min()), float(S.max())
    finite = True
    for start in range(0, S.shape[0], _BLOCK_ROWS):
        block = S[start:start + _BLOCK_ROWS]
        block[...] = _apply(f, label, block)
        finite = finite and bool(np.all(np.isfinite(block)))
    if not finite:
        raise SymrmtInputError(
            f"f = {label}: returned inf or nan on the attention scores (off-diagonal scores lie in "
            f"[{low:.3g}, {high:.3g}]). Use a bounded or slowly growing f (e.g. tanh instead of exp), "
            "a smaller n, or smaller norms of mu, w_K, w_Q."
        )
    S /= np.sqrt(p)
    np.fill_diagonal(S, d)
    return S


# ---------------------------------------------------------------------------
# Routes: which of symrmt.ridge computes each error curve
# ---------------------------------------------------------------------------

def _keeps_gram(method: str, n: int, p: int) -> bool:
    r"""Whether the draw keeps :math:`C = X^\top X/n` (n-by-n) for the fast routes.

    With it a Lanczos step on the attention Gram streams three n-by-n arrays
    (:math:`K, C, K^\top`) instead of :math:`2n^2 + 2pn` elements through ``X``; that
    pays when p >= n/2. The tridiagonal linear baseline needs it when p >= n.
    """
    if method == "exact":
        return False
    if method == "tridiagonal":
        return p >= n
    return 2 * p >= n


def _streamed(n: int, p: int, attention: bool, keeps_gram: bool) -> float:
    """Matrix elements one Lanczos matrix-vector product streams."""
    if attention:
        return 3.0 * n * n if keeps_gram else 2.0 * n * n + 2.0 * p * n
    return 1.0 * n * n if keeps_gram else 2.0 * p * n


def _tridiagonal_cost(n: int, p: int, attention: bool) -> float:
    """Flop-equivalents of the tridiagonal route (features XK and their Gram for the attention)."""
    m = min(n, p)
    if attention:
        return 2.0 * p * n * n + _SYRK * m * m * max(n, p) + _SYTRD * m**3
    return (0.0 if p >= n else _SYRK * p * p * n) + _SYTRD * m**3


def _lanczos_cost(steps: float, n: int, p: int, attention: bool, keeps_gram: bool) -> float:
    """Flop-equivalents of ``steps`` Lanczos steps, reorthogonalization (4 k n per step) included."""
    per_step = _PASS * _streamed(n, p, attention, keeps_gram) + _STEP_OVERHEAD
    return steps * per_step + 2.0 * _PASS * n * steps * steps


def _prior_steps(n: int, p: int, gamma_min: float, attention: bool) -> float:
    r"""Expected Lanczos steps, from the Marchenko--Pastur edges :math:`(\sqrt c \pm 1)^2` of :math:`X^\top X/n`."""
    c = p / n
    kappa = ((np.sqrt(c) + 1) ** 2 + gamma_min) / ((np.sqrt(c) - 1) ** 2 + gamma_min)
    return _STEPS * np.sqrt(kappa) * (_STEPS_ATTENTION if attention else 1.0)


def _budget(n: int, p: int, attention: bool, keeps_gram: bool) -> int:
    """The most Lanczos steps that cost no more than the tridiagonal route."""
    a = 2.0 * _PASS * n
    b = _PASS * _streamed(n, p, attention, keeps_gram) + _STEP_OVERHEAD
    cost = _tridiagonal_cost(n, p, attention)
    return int((-b + np.sqrt(b * b + 4 * a * cost)) / (2 * a))


#: Steps allowed to ``method="lanczos"`` before it falls back to the tridiagonal route.
_LANCZOS_MAX_STEPS = 4000


def _lanczos_cap(n: int, p: int, method: str) -> int:
    if method == "lanczos":
        return min(n + 1, _LANCZOS_MAX_STEPS)
    keeps = _keeps_gram(method, n, p)
    return max(_budget(n, p, True, keeps), _budget(n, p, False, keeps))


class _Instance:
    """The arrays of one draw; each route releases what it no longer needs (peak memory)."""

    def __init__(self, y: np.ndarray, X: np.ndarray, K: np.ndarray, C: np.ndarray | None) -> None:
        self.y, self.X, self.K, self.C = y, X, K, C
        self.features: np.ndarray | None = None
        self.n, self.p = X.shape[1], X.shape[0]

    def linear_operator(self) -> Callable[[np.ndarray], np.ndarray]:
        C, X, n = self.C, self.X, self.n
        if C is not None:
            return lambda v: C @ v
        return lambda v: (X.T @ (X @ v)) / n

    def attention_operator(self) -> Callable[[np.ndarray], np.ndarray]:
        C, X, K, n = self.C, self.X, self.K, self.n
        if C is not None:
            return lambda v: K.T @ (C @ (K @ v))
        return lambda v: K.T @ (X.T @ (X @ (K @ v))) / n

    def linear_problem(self) -> tuple:
        r"""Arguments of :func:`symrmt.ridge.tridiagonal_errors` for the linear baseline (takes ``C``).

        p >= n: :math:`C = X^\top X/n` itself (reduced in place); p < n: the p-by-p
        :math:`X X^\top/n` and :math:`z = X y/\sqrt n`.
        """
        y, X, n, p = self.y, self.X, self.n, self.p
        gram, self.C = self.C, None
        if p >= n:
            return (gram if gram is not None else _gram(X)), y, n, None
        return _cogram(X), X @ y / np.sqrt(n), n, float(y @ y)

    def attention_problem(self) -> tuple:
        """The same for the attention: forms :math:`F = XK` (kept for the exact fallback), releases K."""
        y, n, p = self.y, self.n, self.p
        self.features = self.X @ self.K
        self.K = None
        if p >= n:
            return _gram(self.features), y, n, None
        return _cogram(self.features), self.features @ y / np.sqrt(n), n, float(y @ y)

    def finish(self, errors: np.ndarray | None, grid: np.ndarray, attention: bool) -> tuple[np.ndarray, str]:
        """``(errors, "tridiagonal")``, or the exact route where the rounding bound refused them."""
        if errors is not None:
            return errors, "tridiagonal"
        return ridge.exact_errors(self.features if attention else self.X, self.y, grid), "exact"


def _tridiagonal(instance: _Instance, grid: np.ndarray, linear: bool, attention: bool,
                 concurrent: bool) -> dict[str, tuple[np.ndarray, str]]:
    """The tridiagonal route for the curves asked for; both reductions in two threads if ``concurrent``.

    The Gram products before the reductions stay multi-threaded (level 3); the two
    ``sytrd`` (memory-bound, one BLAS thread each) then share the two cores. That
    keeps C alive while the features are formed (four n-by-n arrays), so it is only
    done when they are small (``_concurrent``).
    """
    out = {}
    if linear and attention and concurrent:
        linear_args, attention_args = instance.linear_problem(), instance.attention_problem()
        with ridge.serial_blas(), ThreadPoolExecutor(max_workers=1) as pool:
            pending = pool.submit(ridge.tridiagonal_errors, *linear_args[:2], grid, *linear_args[2:])
            del linear_args
            out["attention"] = instance.finish(
                ridge.tridiagonal_errors(*attention_args[:2], grid, *attention_args[2:]), grid, True)
            out["linear"] = instance.finish(pending.result(), grid, False)
        return out
    if linear:
        args = instance.linear_problem()
        out["linear"] = instance.finish(ridge.tridiagonal_errors(*args[:2], grid, *args[2:]), grid, False)
        del args
    if attention:
        instance.C = None
        args = instance.attention_problem()
        instance.X = None
        out["attention"] = instance.finish(ridge.tridiagonal_errors(*args[:2], grid, *args[2:]), grid, True)
    return out


def _concurrent(n: int, p: int) -> bool:
    """Whether four arrays of the draw's size may be alive at once (then the reductions run concurrently)."""
    return 8.0 * max(n, p) * n <= 2.0**30


def _gram(F: np.ndarray) -> np.ndarray:
    gram = ridge.symmetric_product(F)
    gram /= F.shape[1]
    return gram


def _cogram(F: np.ndarray) -> np.ndarray:
    gram = ridge.symmetric_product(F.T)
    gram /= F.shape[1]
    return gram


def _errors(model: _Model, instance: _Instance, grid: np.ndarray,
            method: str) -> tuple[np.ndarray, np.ndarray, tuple[str, str]]:
    """``(attention, linear, (attention route, linear route))`` for one draw."""
    if method == "exact":
        features = instance.X @ instance.K
        instance.K = None  # free it before the factorization's workspace is allocated
        attention = ridge.exact_errors(features, instance.y, grid)
        del features
        return attention, ridge.exact_errors(instance.X, instance.y, grid), ("exact", "exact")
    linear = attention = None
    if method != "tridiagonal":
        # Two single-threaded, memory-bound Lanczos runs, one per core; both only read the arrays.
        with ridge.serial_blas(), ThreadPoolExecutor(max_workers=1) as pool:
            pending = pool.submit(_lanczos, model, instance, grid, method, False)
            attention = _lanczos(model, instance, grid, method, attention=True)
            linear = pending.result()
    routes = ["lanczos", "lanczos"]
    if linear is None or attention is None:
        done = _tridiagonal(instance, grid, linear is None, attention is None, _concurrent(model.n, model.p))
        linear, routes[1] = done.get("linear", (linear, routes[1]))
        attention, routes[0] = done.get("attention", (attention, routes[0]))
    return attention, linear, (routes[0], routes[1])


def _lanczos(model: _Model, instance: _Instance, grid: np.ndarray, method: str,
             attention: bool) -> np.ndarray | None:
    """Lanczos quadrature within the step budget of ``method``, or None (then the tridiagonal route)."""
    n, p = model.n, model.p
    keeps = instance.C is not None
    if method == "lanczos":
        steps, budget = min(n + 1, _LANCZOS_MAX_STEPS), None
    else:
        steps = _budget(n, p, attention, keeps)
        limit = _tridiagonal_cost(n, p, attention)

        def budget(predicted_steps: float) -> bool:
            return _lanczos_cost(predicted_steps, n, p, attention, keeps) <= limit

        if steps < max(2 * ridge.CHECK_EVERY, _prior_steps(n, p, float(grid.min()), attention)):
            return None  # the tridiagonal route is expected to be cheaper
    operator = instance.attention_operator() if attention else instance.linear_operator()
    errors, _ = ridge.lanczos_errors(operator, instance.y, grid, steps, budget)
    return errors


def _unit_interval(errors: np.ndarray, what: str, grid: np.ndarray) -> np.ndarray:
    """Clip round-off excursions (< 1e-12) into [0, 1]; anything larger is a ConvergenceError."""
    excess = np.maximum(-errors, errors - 1.0)
    if not np.all(np.isfinite(errors)) or np.max(excess) > _CLIP_ATOL:
        worst = int(np.argmax(np.where(np.isfinite(errors), excess, np.inf)))
        raise ConvergenceError(
            f"{what} error {errors[worst]!r} at gamma = {grid[worst]:.6g} lies outside [0, 1] by more than "
            f"round-off ({_CLIP_ATOL:g}); the linear algebra lost accuracy (try method='exact')."
        )
    return np.clip(errors, 0.0, 1.0)


def _one_draw(model: _Model, grid: np.ndarray, rng: np.random.Generator,
              method: str) -> tuple[np.ndarray, np.ndarray, tuple[str, str]]:
    """:func:`simulate_once` after validation; also returns the routes used."""
    y, X, vectors = _draw(model, rng)
    S, C = _scores(X, vectors, _keeps_gram(method, model.n, model.p))
    K = _attention_matrix(S, model.p, model.f, model.label, model.d)
    del S
    instance = _Instance(y, X, K, C)
    del X, K, C  # the instance owns them now and releases them route by route
    attention, linear, routes = _errors(model, instance, grid, method)
    return (_unit_interval(attention, "attention", grid), _unit_interval(linear, "linear", grid), routes)


# ---------------------------------------------------------------------------
# Public functions
# ---------------------------------------------------------------------------

def _model(n: Any, c: Any, geometry: Any, gram: Any, d: Any, random_frame: Any) -> tuple[_Model, float]:
    """Validate sizes, geometry and d (f is resolved later: it may import SymPy, and sizes are refused first)."""
    geometry, matrix = _resolve_geometry(geometry, gram)
    n, c, p = _dimension(n, c, matrix.shape[0])
    d = _check_real(d, "d")
    return _Model(n, p, d, geometry, matrix, bool(random_frame)), c


def _with_f(model: _Model, f: Any) -> _Model:
    f_numeric, label = _resolve_nonlinearity(f)
    return dataclasses.replace(model, f=f_numeric, label=label)


def simulate_once(
    f_numeric: Callable[[np.ndarray], np.ndarray] | Any,
    n: int,
    c: float,
    gamma: Any,
    geometry: Geometry | None,
    d: float,
    rng: np.random.Generator,
    random_frame: bool = False,
    *,
    gram: Any = None,
    method: str = "auto",
) -> tuple[np.ndarray, np.ndarray]:
    r"""One draw of the model: :math:`(E_{\rm attn}(\gamma), E_{\rm lin}(\gamma))` on the whole grid.

    Parameters
    ----------
    f_numeric : callable, str or sympy.Expr
        The nonlinearity; normally a vectorized NumPy function (``np.tanh``). Strings
        and SymPy expressions in ``x`` are converted as in :func:`simulate`.
    n, c : int, float
        Tokens and ratio; :math:`p = \operatorname{round}(c n)`.
    gamma : float or array_like
        Ridge parameters, all finite and :math:`> 0`.
    geometry : Geometry or None
        Norms and cosines of :math:`(\mu, w_K, w_Q)`; ``None`` with ``gram``, or for
        no signal and no weights.
    d : float
        Diagonal :math:`K_{ii}`.
    rng : numpy.random.Generator
        Source of the draw, consumed in the order y, Z, frame (module docstring).
    random_frame : bool
        Rotate the vectors by a Haar-random frame drawn from ``rng``.
    gram : array_like, optional
        Gram matrix of :math:`(\mu, w_K^{(1..r)}, w_Q^{(1..r)})`, instead of ``geometry``.
    method : {"auto", "exact", "tridiagonal", "lanczos"}
        How the two quadratic forms are computed (module docstring); all agree to
        about 1e-8 relative.

    Returns
    -------
    attention, linear : numpy.ndarray
        Shape ``(G,)`` each, in the order of ``gamma``.

    Examples
    --------
    >>> e_attn, e_lin = simulate_once(np.tanh, 50, 1.0, [0.1, 1.0], Geometry(), 0.0,
    ...                               np.random.default_rng(0))
    >>> e_attn.shape, bool(np.all((0 <= e_lin) & (e_lin <= 1)))
    ((2,), True)
    """
    model, _ = _model(n, c, geometry, gram, d, random_frame)
    grid = _gamma_grid(gamma)
    method = _check_method(method)
    if not isinstance(rng, np.random.Generator):
        raise ParameterError(f"rng = {rng!r}: must be a numpy.random.Generator (np.random.default_rng(seed)).")
    _check_memory(model.n, model.p, 1, grid.size, method)
    _warn_large_norms(model.gram, model.p)
    attention, linear, _ = _one_draw(_with_f(model, f_numeric), grid, rng, method)
    return attention, linear


def simulate(
    f: Callable[[np.ndarray], np.ndarray] | str | Any,
    n: int,
    c: float,
    gamma: Any,
    geometry: Geometry | None = None,
    d: float = 0.0,
    seeds: int = 4,
    seed: int = 0,
    random_frame: bool = False,
    *,
    gram: Any = None,
    method: str = "auto",
    progress: bool = True,
) -> SimulationResult:
    r"""Monte Carlo of :math:`E_{\rm attn}(\gamma)` and :math:`E_{\rm lin}(\gamma)` over ``seeds`` draws.

    The model is docs/theory.md, section 1, with rank-r weights (section 5):
    :math:`X = Z + \mu y^\top`,
    :math:`S = X^\top (I + \sum_k w_K^{(k)} w_Q^{(k)\top}) X/\sqrt p`,
    :math:`K_{ij} = f(S_{ij})/\sqrt p` (:math:`i \ne j`), :math:`K_{ii} = d`, and

    .. math::

        E_{\rm attn}(\gamma) = \frac{\gamma^2}{n} y^\top
        \Big(\frac{K^\top X^\top X K}{n} + \gamma I_n\Big)^{-2} y
        = \frac1n \big\| y - K^\top X^\top w \big\|^2, \quad
        w = (X K K^\top X^\top + n\gamma I_p)^{-1} X K y .

    Parameters
    ----------
    f : str, sympy.Expr or callable
        The nonlinearity: a string parsed by
        :func:`symrmt.nonlinearity.parse_nonlinearity` (e.g. ``"tanh(x)"``), a SymPy
        expression in a symbol named ``x``, or a vectorized NumPy function.
    n : int
        Number of tokens, :math:`n \ge 2`.
    c : float
        :math:`p/n > 0`; :math:`p = \operatorname{round}(c n) \ge 1 + 2r`.
    gamma : float or array_like
        Ridge parameters, finite and :math:`> 0`; all of them come from one
        factorization or one Lanczos run per matrix and seed.
    geometry : Geometry, optional
        Norms and cosines of :math:`(\mu, w_K, w_Q)` (rank one). Default, and with
        neither ``geometry`` nor ``gram``: no signal, no weights.
    d : float
        The diagonal of :math:`K`.
    seeds : int
        Number of independent draws, :math:`\ge 2` (the standard error needs two).
    seed : int
        Root of ``np.random.SeedSequence(seed).spawn(seeds)``: the first k draws of a
        run with more seeds equal those of a run with k seeds.
    random_frame : bool
        Rotate the vectors by a Haar-random frame in each draw (the law does not
        depend on it; the option exists to check that).
    gram : array_like, optional
        The Gram matrix of :math:`(\mu, w_K^{(1)}, \dots, w_K^{(r)}, w_Q^{(1)}, \dots, w_Q^{(r)})`,
        shape ``(1+2r, 1+2r)``, positive semi-definite. ``Geometry.gram()`` is the
        r = 1 case. Give ``geometry`` or ``gram``, not both.
    method : {"auto", "exact", "tridiagonal", "lanczos"}
        How the quadratic forms are computed: ``"exact"`` is one eigh or SVD per
        matrix; ``"tridiagonal"`` one Householder tridiagonalization started from y;
        ``"lanczos"`` Lanczos quadrature with certified Gauss / Gauss--Radau bounds
        (up to 4000 steps, then tridiagonal); ``"auto"`` (default) Lanczos while a
        cost model says it beats the tridiagonal route, else tridiagonal. Every
        route falls back to ``"exact"`` where its rounding estimate exceeds 1e-5
        (very small gamma), so all agree with ``"exact"`` to about 1e-8 relative.
    progress : bool
        Show a progress bar over seeds on stderr when stderr is a terminal and the
        run takes more than 2 s (tqdm).

    Returns
    -------
    SimulationResult

    Raises
    ------
    ParameterError
        For invalid sizes, ridge parameters, seeds, geometry or method, for both
        ``geometry`` and ``gram``, and when the run would not fit in the available
        memory (checked before anything is allocated).
    SymrmtInputError
        When ``f`` is not real or not finite on the scores.
    ConvergenceError
        When an error leaves [0, 1] by more than round-off.

    Warns
    -----
    FiniteSizeWarning
        When a norm exceeds :math:`p^{1/4}`.

    Examples
    --------
    >>> res = simulate(np.tanh, n=64, c=1.0, gamma=[0.1, 1.0], seeds=2)
    >>> res.attention_mean.shape, res.attention_per_seed.shape
    ((2,), (2, 2))
    >>> gram = np.diag([1.0, 0.5, 0.25, 0.5, 0.25])   # rank 2: (mu, w_K1, w_K2, w_Q1, w_Q2)
    >>> simulate(np.tanh, n=64, c=1.0, gamma=0.1, gram=gram, seeds=2).gram.shape
    (5, 5)
    """
    model, c = _model(n, c, geometry, gram, d, random_frame)
    grid = _gamma_grid(gamma)
    seeds = _check_int(seeds, "seeds", 2, "The standard error needs at least two seeds (std with ddof=1).")
    seed = _check_int(seed, "seed", 0, "Use a non-negative integer seed.")
    method = _check_method(method)
    _check_memory(model.n, model.p, seeds, grid.size, method)
    _warn_large_norms(model.gram, model.p)
    model = _with_f(model, f)
    draws = [_one_draw(model, grid, rng, method) for rng in progress_bar(_generators(seed, seeds), desc="simulate", unit="seed",
                                                                       enabled=progress)]
    attention = np.array([a for a, _, _ in draws])
    linear = np.array([lin for _, lin, _ in draws])
    return SimulationResult(
        *_frozen(grid, *mean_se(attention), *mean_se(linear), attention, linear),
        n=model.n, p=model.p, c=c, d=model.d, seeds=seeds, seed=seed, geometry=model.geometry,
        gram=model.gram, method=method, routes=_route_counts([routes for _, _, routes in draws]),
    )


def simulate_spectrum(
    f: Callable[[np.ndarray], np.ndarray] | str | Any,
    n: int,
    c: float,
    matrix: str = "gram",
    geometry: Geometry | None = None,
    d: float = 0.0,
    seeds: int = 1,
    seed: int = 0,
    random_frame: bool = False,
    *,
    gram: Any = None,
    progress: bool = True,
) -> np.ndarray:
    r"""All eigenvalues of the attention Gram matrix or of the kernel matrix, pooled over seeds.

    ``matrix="gram"``: the n eigenvalues of :math:`K^\top X^\top X K/n` (the matrix
    whose resolvent gives :math:`E_{\rm attn}`; when p < n, n - p of them are exactly
    0). ``matrix="kernel"``: the n eigenvalues of :math:`K` itself, which must be
    symmetric: no weights, or :math:`w_K^{(k)} = w_Q^{(k)}` for every k. Both are
    exact (LAPACK eigvalsh of the smaller Gram, resp. of K), for comparison with
    the spectral density of docs/theory.md, section 5.

    The draws are those of :func:`simulate` with the same ``seed``, ``geometry`` /
    ``gram``, ``d`` and ``random_frame`` (same ``SeedSequence`` children, same draw
    order), so seed k here is seed k there.

    Parameters
    ----------
    f, n, c, geometry, d, seed, random_frame, gram, progress
        As in :func:`simulate`.
    matrix : {"gram", "kernel"}
        Which matrix.
    seeds : int
        Number of independent draws, :math:`\ge 1`.

    Returns
    -------
    numpy.ndarray
        Shape ``(seeds * n,)``: the ascending eigenvalues of seed 0, then of seed 1, ...

    Raises
    ------
    ParameterError
        For invalid parameters, ``matrix="kernel"`` with :math:`w_K \ne w_Q`, or a run
        that would not fit in memory.

    Examples
    --------
    >>> eigenvalues = simulate_spectrum(np.tanh, n=40, c=0.5, seeds=2)
    >>> eigenvalues.shape, int(np.sum(eigenvalues[:40] == 0.0))
    ((80,), 20)
    >>> bool(np.all(simulate_spectrum(np.tanh, n=40, c=1.0, matrix="kernel") > -1))
    True
    """
    if matrix not in ("gram", "kernel"):
        raise ParameterError(f"matrix = {matrix!r}: must be 'gram' (K^T X^T X K/n) or 'kernel' (K).")
    model, _ = _model(n, c, geometry, gram, d, random_frame)
    seeds = _check_int(seeds, "seeds", 1, "Use at least one seed.")
    seed = _check_int(seed, "seed", 0, "Use a non-negative integer seed.")
    if matrix == "kernel":
        check_symmetric_kernel(model.gram)
    _check_memory(model.n, model.p, seeds, 0, "exact", spectrum=matrix)
    _warn_large_norms(model.gram, model.p)
    model = _with_f(model, f)
    spectra = [_spectrum_once(model, rng, matrix) for rng in progress_bar(_generators(seed, seeds), desc="simulate", unit="seed",
                                                                       enabled=progress)]
    return np.concatenate(spectra)


def _spectrum_once(model: _Model, rng: np.random.Generator, matrix: str) -> np.ndarray:
    from scipy.linalg import eigvalsh

    y, X, vectors = _draw(model, rng)
    S, _ = _scores(X, vectors, keep_gram=False)
    K = _attention_matrix(S, model.p, model.f, model.label, model.d)
    del S
    if matrix == "kernel":
        del X
        # eigvalsh reads one triangle: K is symmetric up to rounding whenever sum_k w_K w_Q^T is
        # (geometry.symmetric_kernel), also when the vectors of a pair differ (w_Q = -w_K, swapped pairs).
        return eigvalsh(K, overwrite_a=True, check_finite=False)
    features = X @ K
    del K, X
    n, p = model.n, model.p
    small = _gram(features) if p >= n else _cogram(features)
    del features
    eigenvalues = eigvalsh(small, overwrite_a=True, check_finite=False)
    return np.sort(np.concatenate([np.zeros(max(n - p, 0)), eigenvalues]))


def _generators(seed: int, seeds: int) -> list[np.random.Generator]:
    return [np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(seeds)]


def _route_counts(routes: list[tuple[str, str]]) -> dict[str, dict[str, int]]:
    counts: dict[str, dict[str, int]] = {"attention": {}, "linear": {}}
    for attention, linear in routes:
        counts["attention"][attention] = counts["attention"].get(attention, 0) + 1
        counts["linear"][linear] = counts["linear"].get(linear, 0) + 1
    return counts


def _frozen(*arrays: np.ndarray) -> list[np.ndarray]:
    """Read-only float64 copies, so that a frozen result is really immutable."""
    out = []
    for array in arrays:
        array = np.array(array, dtype=np.float64)
        array.setflags(write=False)
        out.append(array)
    return out
