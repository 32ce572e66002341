r"""Finite-n Monte Carlo of the exact model of THEORY.md, section 1.

For each seed the simulator draws one instance of the model

.. math::

    y \in \{\pm 1\}^n \text{ (Rademacher)}, \qquad X = Z + \mu y^\top \in \mathbb R^{p\times n},
    \qquad Z_{ij} \sim \mathcal N(0, 1), \qquad p = \operatorname{round}(c n),

    S = X^\top (I_p + w_K w_Q^\top) X / \sqrt p, \qquad
    K_{ij} = f(S_{ij}) / \sqrt p \ (i \ne j), \qquad K_{ii} = d,

and returns, for every ridge parameter :math:`\gamma`, the interpolation errors

.. math::

    E_{\rm attn}(\gamma) = \frac{\gamma^2}{n}\, y^\top
        \Big(\frac{K^\top X^\top X K}{n} + \gamma I_n\Big)^{-2} y, \qquad
    E_{\rm lin}(\gamma) = \frac{\gamma^2}{n}\, y^\top
        \Big(\frac{X^\top X}{n} + \gamma I_n\Big)^{-2} y .

:math:`K` is not symmetric when :math:`w_K \ne w_Q`; the order matters and is the
one written above (:math:`S_{ij} = x_i^\top x_j + (x_i^\top w_K)(w_Q^\top x_j)`,
over :math:`\sqrt p`).

Numerics (NumPy only; SymPy is imported only when ``f`` is a string or an expression):

* All :math:`\gamma` come from one factorization per matrix and seed (an SVD, or
  eigh of the Gram matrix when a pessimistic error estimate allows it), never one
  solve per :math:`\gamma` (see ``_ridge_errors``).
* Float64 throughout; the n-by-n scores are built in place, ``f`` turns them into
  one new array, and at most a few n-by-n arrays are alive at a time (about 1.5 GB
  peak at n = p = 4096).
* :math:`f` is never evaluated on the diagonal :math:`S_{ii} \approx \sqrt p`, which
  is overwritten by :math:`d` anyway (``exp`` or ``x**5`` would overflow there).

Draw order (documented so that an independent implementation can replay a seed):
from the ``numpy.random.Generator`` of one seed, :func:`simulate_once` draws

1. ``y = 2 * rng.integers(0, 2, size=n) - 1`` (as float64),
2. ``Z = rng.standard_normal((p, n))``,
3. only if ``random_frame``: the frame of :meth:`Geometry.vectors`, i.e.
   ``geometry.vectors(p, rng)`` (one ``rng.standard_normal((p, 3))``).

Without ``random_frame`` the vectors are ``geometry.vectors(p)`` (first three
coordinates). Seed ``k`` of :func:`simulate` uses
``np.random.default_rng(np.random.SeedSequence(seed).spawn(seeds)[k])``, so more
seeds extend a run without changing its first draws.
"""
from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from .errors import SymrmtInputError
from .geometry import Geometry

__all__ = ["SimulationResult", "simulate", "simulate_once"]

#: Rows of the score matrix updated per block by the rank-one term (bounds the temporary).
_BLOCK_ROWS = 256

#: Largest a-priori error estimate (relative, on E) accepted from eigh of the Gram matrix;
#: above it (very small gamma) the SVD is used. The estimate is pessimistic: measured
#: realized errors were 1e-4 to 1e-9 times it (n = 512, 2048; c = 1, 2; gamma from 1e-8
#: to 1e-2; tanh with signal and weights), so the Gram route stays within ~1e-9 relative,
#: far below Monte Carlo noise (~1e-3).
_GRAM_RTOL = 1e-5


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
    geometry : Geometry
        Norms and cosines of :math:`(\mu, w_K, w_Q)`.

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
    geometry: Geometry

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready summary (plain lists and numbers).

        Keys: ``gamma``; ``attention`` and ``linear``, each with ``mean``, ``se``
        and ``per_seed``; ``n``, ``p``, ``c``, ``d``, ``seeds``, ``seed`` and
        ``geometry`` (as :meth:`Geometry.as_dict`).
        """
        return {
            "gamma": self.gamma.tolist(),
            "attention": {"mean": self.attention_mean.tolist(), "se": self.attention_se.tolist(),
                          "per_seed": self.attention_per_seed.tolist()},
            "linear": {"mean": self.linear_mean.tolist(), "se": self.linear_se.tolist(),
                       "per_seed": self.linear_per_seed.tolist()},
            "n": self.n, "p": self.p, "c": self.c, "d": self.d,
            "seeds": self.seeds, "seed": self.seed, "geometry": self.geometry.as_dict(),
        }


# ---------------------------------------------------------------------------
# Validation
# ---------------------------------------------------------------------------

def _check_int(value: Any, name: str, minimum: int, hint: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise SymrmtInputError(f"{name} = {value!r}: must be an integer >= {minimum}. {hint}")
    if value < minimum:
        raise SymrmtInputError(f"{name} = {value}: must be >= {minimum}. {hint}")
    return int(value)


def _check_real(value: Any, name: str) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise SymrmtInputError(f"{name} = {value!r}: must be a real number.") from None
    if not np.isfinite(number):
        raise SymrmtInputError(f"{name} = {value!r}: must be finite.")
    return number


def _dimension(n: Any, c: Any) -> tuple[int, float, int]:
    """Validate ``n`` and ``c``; return ``(n, c, p)`` with ``p = round(c n)``."""
    n = _check_int(n, "n", 2, "Use at least two tokens (n >= 2).")
    c = _check_real(c, "c")
    if c <= 0:
        raise SymrmtInputError(f"c = {c}: the ratio p/n must be > 0.")
    p = int(round(c * n))
    if p < 3:
        raise SymrmtInputError(
            f"p = round(c*n) = round({c}*{n}) = {p}: need p >= 3 to place mu, w_K and w_Q; "
            "increase n or c."
        )
    return n, c, p


def _gamma_grid(gamma: Any) -> np.ndarray:
    """Validate the ridge parameters; return a 1-d float64 array (a scalar gives one entry)."""
    try:
        grid = np.atleast_1d(np.asarray(gamma, dtype=np.float64))
    except (TypeError, ValueError):
        raise SymrmtInputError(f"gamma = {gamma!r}: must be a positive number or a 1-d list of them.") from None
    if grid.ndim != 1 or grid.size == 0:
        raise SymrmtInputError(f"gamma has shape {grid.shape}: give a positive number or a non-empty 1-d list.")
    bad = ~np.isfinite(grid) | (grid <= 0)
    if bad.any():
        raise SymrmtInputError(
            f"gamma contains {grid[bad][:5].tolist()}: every ridge parameter must be finite and > 0 "
            "(gamma -> 0 is the interpolation limit; use a small positive value such as 1e-4)."
        )
    return grid


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

def _draw(n: int, p: int, geometry: Geometry, rng: np.random.Generator,
          random_frame: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Draw ``y``, ``X`` and the vectors, in the documented order: y, Z, frame."""
    y = (2 * rng.integers(0, 2, size=n) - 1).astype(np.float64)
    X = rng.standard_normal((p, n))
    vectors = geometry.vectors(p, rng) if random_frame else geometry.vectors(p)
    if geometry.mu_norm > 0:
        _add_outer(X, vectors[0], y)  # X = Z + mu y^T, in place
    return y, X, vectors


def _add_outer(A: np.ndarray, u: np.ndarray, v: np.ndarray) -> None:
    """``A += u v^T`` in place, by blocks of rows (no full-size temporary)."""
    for start in range(0, A.shape[0], _BLOCK_ROWS):
        stop = start + _BLOCK_ROWS
        A[start:stop] += np.outer(u[start:stop], v)


def _scores(X: np.ndarray, w_k: np.ndarray, w_q: np.ndarray) -> np.ndarray:
    r""":math:`S = (X^\top X + (X^\top w_K)(X^\top w_Q)^\top)/\sqrt p`, never forming the p-by-p M."""
    p = X.shape[0]
    S = X.T @ X
    if np.any(w_k) and np.any(w_q):
        _add_outer(S, X.T @ w_k, X.T @ w_q)
    S /= np.sqrt(p)
    return S


def _attention_matrix(S: np.ndarray, p: int, f: Callable, label: str, d: float) -> np.ndarray:
    r""":math:`K_{ij} = f(S_{ij})/\sqrt p` off the diagonal, :math:`K_{ii} = d`.

    ``S`` is consumed: its diagonal is zeroed (f never sees :math:`S_{ii} \approx \sqrt p`,
    which is replaced by ``d``) and an identity ``f`` returns it as ``K``.
    """
    np.fill_diagonal(S, 0.0)
    low, high = float(S.min()), float(S.max())
    K = _apply(f, label, S)
    if not np.all(np.isfinite(K)):
        raise SymrmtInputError(
            f"f = {label}: returned inf or nan on the attention scores (off-diagonal scores lie in "
            f"[{low:.3g}, {high:.3g}]). Use a bounded or slowly growing f (e.g. tanh instead of exp), "
            "a smaller n, or smaller norms of mu, w_K, w_Q."
        )
    K /= np.sqrt(p)
    np.fill_diagonal(K, d)
    return K


def _ridge_errors(F: np.ndarray, y: np.ndarray, gamma: np.ndarray) -> np.ndarray:
    r"""All :math:`E(\gamma) = \frac{\gamma^2}{n} y^\top (F^\top F/n + \gamma I_n)^{-2} y` from one factorization.

    ``F`` is m-by-n (:math:`X` or :math:`XK`). With :math:`F^\top F/n = \sum_i \lambda_i v_i v_i^\top`
    (:math:`r = \min(m, n)` terms) and :math:`a_i = v_i^\top y`,

    .. math::

        E(\gamma) = \frac1n \Big[\sum_{i\le r} a_i^2
            \Big(\frac{\gamma}{\lambda_i + \gamma}\Big)^2 + \|P_\perp y\|^2\Big],

    :math:`P_\perp` projecting on the null space of :math:`F` (nonzero only when m < n).

    Which factorization (the accuracy/speed trade-off):

    * m < n: thin SVD of ``F``. Its cost grows like m^2 n, not n^3, and it handles
      the (n - m)-dimensional null space exactly, where eigh of the n-by-n Gram would
      return n - m spurious eigenvalues of size eps*||F||^2/n.
    * m >= n: eigh of the n-by-n Gram :math:`F^\top F/n` (about 3x faster than the
      SVD) unless a pessimistic error estimate says it may not be accurate enough.
      Forming the Gram squares the condition number: the computed decomposition is
      exact for a Gram perturbed by :math:`\|\Delta\| \lesssim n\,\epsilon\,\lambda_{\max}`
      (a dimension-linear backward-error estimate), which moves :math:`E` by a relative
      :math:`\le 2\|\Delta\|/\gamma` to first order (:math:`\|(G+\gamma)^{-1}\| \le 1/\gamma`).
      If that exceeds ``_GRAM_RTOL`` at the smallest :math:`\gamma` (at n = 2048 this
      happens below gamma ~ 1e-6), the SVD of ``F`` is used instead, after a QR when
      m > n (:math:`F^\top F = R^\top R`, an n-by-n SVD). The SVD gives each
      :math:`\sigma_i` to :math:`\epsilon\|F\|` absolutely, so :math:`\lambda_i = \sigma_i^2/n`
      keeps its accuracy down to the smallest :math:`\gamma`.

    Against a 40-digit reference (n = 60, c in {0.5, 0.95, 1, 2}, tanh, gamma from 1e-8
    to 1e-2) the SVD route agreed to <= 2e-13 relative; the Gram route to <= 3e-8 at
    gamma = 1e-8 and <= 5e-12 at gamma = 1e-4.
    """
    m, n = F.shape
    if m >= n:
        errors, bound = _errors_gram(F, y, gamma)
        if bound <= _GRAM_RTOL:
            return errors
        if m > n:
            F = np.linalg.qr(F, mode="r")  # n-by-n with the same Gram: a smaller SVD
    return _errors_svd(F, y, gamma)


def _shrunk_norm(lam: np.ndarray, a2: np.ndarray, gamma: np.ndarray) -> np.ndarray:
    r""":math:`\sum_i a_i^2 (\gamma/(\lambda_i+\gamma))^2` for every :math:`\gamma` (one matrix product)."""
    shrink = gamma[:, None] / (np.clip(lam, 0.0, None)[None, :] + gamma[:, None])
    return (shrink**2) @ a2


def _errors_svd(F: np.ndarray, y: np.ndarray, gamma: np.ndarray) -> np.ndarray:
    """The SVD route of :func:`_ridge_errors` (any shape of ``F``)."""
    n = F.shape[1]
    _, sigma, vt = np.linalg.svd(F, full_matrices=False)
    a2 = (vt @ y) ** 2
    errors = _shrunk_norm(sigma**2 / n, a2, gamma)
    if vt.shape[0] < n:  # null space of F: ||P_perp y||^2 = ||y||^2 - ||V^T y||^2
        errors += max(float(y @ y - a2.sum()), 0.0)
    return errors / n


def _errors_gram(F: np.ndarray, y: np.ndarray, gamma: np.ndarray) -> tuple[np.ndarray, float]:
    """The eigh route of :func:`_ridge_errors` for m >= n, and its a-priori relative error bound."""
    n = F.shape[1]
    gram = F.T @ F
    gram /= n
    lam, vectors = np.linalg.eigh(gram)
    errors = _shrunk_norm(lam, (vectors.T @ y) ** 2, gamma) / n
    bound = 2.0 * n * np.finfo(np.float64).eps * max(float(lam[-1]), 0.0) / float(gamma.min())
    return errors, bound


def simulate_once(
    f_numeric: Callable[[np.ndarray], np.ndarray] | Any,
    n: int,
    c: float,
    gamma: Any,
    geometry: Geometry,
    d: float,
    rng: np.random.Generator,
    random_frame: bool = False,
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
    geometry : Geometry
        Norms and cosines of :math:`(\mu, w_K, w_Q)`.
    d : float
        Diagonal :math:`K_{ii}`.
    rng : numpy.random.Generator
        Source of the draw, consumed in the order y, Z, frame (module docstring).
    random_frame : bool
        Rotate :math:`(\mu, w_K, w_Q)` by a Haar-random frame drawn from ``rng``.

    Returns
    -------
    attention, linear : numpy.ndarray
        Shape ``(G,)`` each, in the order of ``gamma``.

    Notes
    -----
    Each error curve costs one factorization of :math:`XK` (resp. :math:`X`) for the
    whole grid: an SVD when :math:`p < n`; when :math:`p \ge n`, eigh of the n-by-n
    Gram unless ``min(gamma)`` is so small (below ~1e-6 at n = 2048) that its error
    estimate exceeds ``_GRAM_RTOL``, then an SVD, about 3x slower (see ``_ridge_errors``).

    Examples
    --------
    >>> e_attn, e_lin = simulate_once(np.tanh, 50, 1.0, [0.1, 1.0], Geometry(), 0.0,
    ...                               np.random.default_rng(0))
    >>> e_attn.shape, bool(np.all((0 <= e_lin) & (e_lin <= 1)))
    ((2,), True)
    """
    n, c, p = _dimension(n, c)
    grid = _gamma_grid(gamma)
    d = _check_real(d, "d")
    _check_geometry(geometry)
    if not isinstance(rng, np.random.Generator):
        raise SymrmtInputError(f"rng = {rng!r}: must be a numpy.random.Generator (np.random.default_rng(seed)).")
    f, label = _resolve_nonlinearity(f_numeric)
    return _one_draw(f, label, n, p, grid, geometry, d, rng, random_frame)


def _check_geometry(geometry: Any) -> None:
    if not isinstance(geometry, Geometry):
        raise SymrmtInputError(f"geometry = {geometry!r}: must be a symrmt.geometry.Geometry.")


def _one_draw(f: Callable, label: str, n: int, p: int, grid: np.ndarray, geometry: Geometry,
              d: float, rng: np.random.Generator, random_frame: bool) -> tuple[np.ndarray, np.ndarray]:
    """:func:`simulate_once` after validation."""
    y, X, (_, w_k, w_q) = _draw(n, p, geometry, rng, random_frame)
    K = _attention_matrix(_scores(X, w_k, w_q), p, f, label, d)
    features = X @ K
    del K  # free it before the factorization's workspace is allocated
    attention = _ridge_errors(features, y, grid)
    del features
    linear = _ridge_errors(X, y, grid)
    return attention, linear


def simulate(
    f: Callable[[np.ndarray], np.ndarray] | str | Any,
    n: int,
    c: float,
    gamma: Any,
    geometry: Geometry = Geometry(),
    d: float = 0.0,
    seeds: int = 4,
    seed: int = 0,
    random_frame: bool = False,
) -> SimulationResult:
    r"""Monte Carlo of :math:`E_{\rm attn}(\gamma)` and :math:`E_{\rm lin}(\gamma)` over ``seeds`` draws.

    The model is THEORY.md, section 1:
    :math:`X = Z + \mu y^\top`, :math:`S = X^\top (I + w_K w_Q^\top) X/\sqrt p`,
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
        :math:`p/n > 0`; :math:`p = \operatorname{round}(c n) \ge 3`.
    gamma : float or array_like
        Ridge parameters, finite and :math:`> 0`; all of them come from one
        factorization per seed.
    geometry : Geometry
        Norms and cosines of :math:`(\mu, w_K, w_Q)` (default: no signal, no weights).
    d : float
        The diagonal of :math:`K`.
    seeds : int
        Number of independent draws, :math:`\ge 2` (the standard error needs two).
    seed : int
        Root of ``np.random.SeedSequence(seed).spawn(seeds)``: the first k draws of a
        run with more seeds equal those of a run with k seeds.
    random_frame : bool
        Rotate :math:`(\mu, w_K, w_Q)` by a Haar-random frame in each draw (the law
        does not depend on it; the option exists to check that).

    Returns
    -------
    SimulationResult

    Raises
    ------
    SymrmtInputError
        For invalid sizes, ridge parameters or seeds, and when ``f`` is not real or
        not finite on the scores.

    Examples
    --------
    >>> res = simulate(np.tanh, n=64, c=1.0, gamma=[0.1, 1.0], seeds=2)
    >>> res.attention_mean.shape, res.attention_per_seed.shape
    ((2,), (2, 2))
    >>> bool(np.all(res.attention_mean < res.linear_mean + 1))
    True
    """
    n, c, p = _dimension(n, c)
    grid = _gamma_grid(gamma)
    d = _check_real(d, "d")
    seeds = _check_int(seeds, "seeds", 2, "The standard error needs at least two seeds (std with ddof=1).")
    seed = _check_int(seed, "seed", 0, "Use a non-negative integer seed.")
    _check_geometry(geometry)
    f_numeric, label = _resolve_nonlinearity(f)
    rngs = [np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(seeds)]
    draws = [_one_draw(f_numeric, label, n, p, grid, geometry, d, rng, bool(random_frame)) for rng in rngs]
    attention = np.array([a for a, _ in draws])
    linear = np.array([lin for _, lin in draws])
    return SimulationResult(
        *_frozen(grid, *_mean_se(attention), *_mean_se(linear), attention, linear),
        n=n, p=p, c=c, d=d, seeds=seeds, seed=seed, geometry=geometry,
    )


def _mean_se(per_seed: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean over seeds (axis 0) and its standard error ``std(ddof=1)/sqrt(seeds)``."""
    return per_seed.mean(axis=0), per_seed.std(axis=0, ddof=1) / np.sqrt(per_seed.shape[0])


def _frozen(*arrays: np.ndarray) -> list[np.ndarray]:
    """Read-only float64 copies, so that a frozen result is really immutable."""
    out = []
    for array in arrays:
        array = np.array(array, dtype=np.float64)
        array.setflags(write=False)
        out.append(array)
    return out
