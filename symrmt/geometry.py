r"""Geometry of the signal and the attention weights: the one owner of Gram matrices.

The model (docs/theory.md section 1) depends on :math:`\mu` and on rank-:math:`r` weights
:math:`W_K^\top W_Q = I + \sum_{k \le r} w_K^{(k)} w_Q^{(k)\top}` only through the Gram
matrix of :math:`(\mu, w_K^{(1)}, \dots, w_K^{(r)}, w_Q^{(1)}, \dots, w_Q^{(r)})`, in that
order, size :math:`1 + 2r`:

.. math::

    G = \begin{pmatrix} \theta & \alpha_K^\top & \alpha_Q^\top \\
        \alpha_K & \Omega_{KK} & \Omega_{KQ} \\ \alpha_Q & \Omega_{KQ}^\top & \Omega_{QQ} \end{pmatrix},
    \qquad \theta = \|\mu\|^2,\ \alpha_K = (\mu^\top w_K^{(k)})_k,\ \dots

This module holds every representation of that matrix and every conversion between them:

* :class:`Geometry`: rank one as three norms and three cosines (what the CLI flags take);
* a Gram array of shape ``(..., 1 + 2r, 1 + 2r)`` (leading dimensions broadcast in the theory);
* for rank one, the six named entries :data:`RANK1_ENTRIES` (``gram=dict(theta=..., ...)``);

and the checks: :func:`check_gram` (finite, symmetric, positive semi-definite, norms below
:data:`MAX_NORM`, with the one tolerance :data:`GRAM_RTOL`) and :func:`symmetric_kernel`
(whether the attention matrix is symmetric). Theory, spectra, simulation and sweeps all
read geometries through :func:`resolve_gram`, so they accept and refuse exactly the same ones.
:func:`realize` builds vectors with a given Gram matrix for the simulator.

NumPy only.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np

from .errors import ParameterError, ParameterTypeError, shown
from .validate import real_scalar

__all__ = ["Geometry", "GRAM_RTOL", "MAX_NORM", "RANK1_ENTRIES", "check_gram", "gram_rank", "resolve_gram",
           "entries_of", "gram_of_entries", "symmetric_kernel", "check_symmetric_kernel", "realize"]

#: Relative tolerance (against ``max(1, max |G|)``) on the asymmetry and on the smallest eigenvalue
#: of a Gram matrix: the round-off of entries computed from norms and cosines.
GRAM_RTOL = 1e-10
#: Largest norm of mu or of a weight vector. The model is for norms of order 1 (the simulator warns above
#: p^(1/4)); up to 100 the theory solves at every gamma of its range but the smallest near c = 1, and
#: beyond the low-rank part dominates the pencil (E of order 1/theta) and the continuation loses the
#: physical branch (aligned weights of norm 300 at gamma <= 1e-7, of norm 1000 at gamma <= 1).
MAX_NORM = 100.0
#: The six entries of a rank-one Gram matrix, as the derivation names them.
RANK1_ENTRIES = ("theta", "alpha_K", "alpha_Q", "omega_KK", "omega_QQ", "omega_KQ")
#: Position of each rank-one entry in the 3 x 3 Gram matrix of (mu, w_K, w_Q).
_RANK1_POSITIONS = {"theta": (0, 0), "alpha_K": (0, 1), "alpha_Q": (0, 2),
                    "omega_KK": (1, 1), "omega_QQ": (2, 2), "omega_KQ": (1, 2)}


@dataclass(frozen=True)
class Geometry:
    r"""Rank one: norms and cosines of :math:`(\mu, w_K, w_Q)`; default: no signal, no weights.

    Parameters
    ----------
    mu_norm, wk_norm, wq_norm : float
        :math:`\|\mu\|, \|w_K\|, \|w_Q\| \ge 0` (all :math:`O(1)`, at most :data:`MAX_NORM`).
    cos_mu_wk, cos_mu_wq, cos_wk_wq : float
        Cosines in :math:`[-1, 1]`; together they must give a positive semi-definite Gram
        matrix (checked by :func:`check_gram`, like every other geometry).

    Examples
    --------
    >>> g = Geometry(mu_norm=1.0, wk_norm=2.0, wq_norm=2.0, cos_mu_wk=1.0, cos_mu_wq=1.0, cos_wk_wq=1.0)
    >>> g.theta, g.alpha_K, g.alpha_Q, g.omega_KQ
    (1.0, 2.0, 2.0, 4.0)
    >>> Geometry.from_gram(g.gram()) == g
    True
    """

    mu_norm: float = 0.0
    wk_norm: float = 0.0
    wq_norm: float = 0.0
    cos_mu_wk: float = 0.0
    cos_mu_wq: float = 0.0
    cos_wk_wq: float = 0.0

    def __post_init__(self) -> None:
        for name in ("mu_norm", "wk_norm", "wq_norm"):
            value = real_scalar(name, getattr(self, name))
            if not 0 <= value <= MAX_NORM:      # also refuses NaN
                raise ParameterError(f"{name} = {shown(value)}: a norm must be a number in [0, {MAX_NORM:g}] "
                                     "(the model is for norms of order 1, and the theory is not solved beyond).")
            object.__setattr__(self, name, value)
        for name in ("cos_mu_wk", "cos_mu_wq", "cos_wk_wq"):
            value = real_scalar(name, getattr(self, name))
            if not abs(value) <= 1 + 1e-12:
                raise ParameterError(f"{name} = {shown(value)}: a cosine must lie in [-1, 1].")
            object.__setattr__(self, name, value)
        try:
            check_gram(self._cosines_of_live())
        except ParameterError:
            raise ParameterError(
                "the cosines (cos_mu_wk, cos_mu_wq, cos_wk_wq) = "
                f"({self.cos_mu_wk}, {self.cos_mu_wq}, {self.cos_wk_wq}) are not realizable: no three vectors "
                "have them. Pick cosines of actual vectors, e.g. cos_wk_wq = cos_mu_wk * cos_mu_wq."
            ) from None

    def _cosines_of_live(self) -> np.ndarray:
        """The 3 x 3 cosine matrix with the rows of zero vectors replaced by unit rows (only nonzero vectors
        constrain the cosines)."""
        cosines = np.array([[1.0, self.cos_mu_wk, self.cos_mu_wq],
                            [self.cos_mu_wk, 1.0, self.cos_wk_wq],
                            [self.cos_mu_wq, self.cos_wk_wq, 1.0]])
        for i, norm in enumerate((self.mu_norm, self.wk_norm, self.wq_norm)):
            if norm == 0:
                cosines[i, :] = cosines[:, i] = 0.0
                cosines[i, i] = 1.0
        return cosines

    @classmethod
    def from_gram(cls, gram: Any) -> Geometry:
        r"""The norms and cosines of a rank-one (3 x 3) Gram matrix; a cosine with a zero norm is 0."""
        G = check_gram(gram)
        if G.shape != (3, 3):
            raise ParameterError(f"gram has shape {G.shape}: a Geometry is rank one, i.e. a 3 x 3 Gram matrix.")
        norms = np.sqrt(np.diag(G))
        outer = np.outer(norms, norms)
        cosines = np.clip(np.divide(G, outer, out=np.zeros_like(G), where=outer > 0), -1.0, 1.0)
        mu, wk, wq = map(float, norms)
        return cls(mu, wk, wq, float(cosines[0, 1]), float(cosines[0, 2]), float(cosines[1, 2]))

    # The Gram entries, named as the derivation's symbols.
    @property
    def theta(self) -> float:
        r""":math:`\theta = \|\mu\|^2`."""
        return self.mu_norm**2

    @property
    def alpha_K(self) -> float:
        r""":math:`\alpha_K = \mu^\top w_K`."""
        return self.mu_norm * self.wk_norm * self.cos_mu_wk

    @property
    def alpha_Q(self) -> float:
        r""":math:`\alpha_Q = \mu^\top w_Q`."""
        return self.mu_norm * self.wq_norm * self.cos_mu_wq

    @property
    def omega_KK(self) -> float:
        r""":math:`\omega_{KK} = \|w_K\|^2`."""
        return self.wk_norm**2

    @property
    def omega_QQ(self) -> float:
        r""":math:`\omega_{QQ} = \|w_Q\|^2`."""
        return self.wq_norm**2

    @property
    def omega_KQ(self) -> float:
        r""":math:`\omega_{KQ} = w_K^\top w_Q`."""
        return self.wk_norm * self.wq_norm * self.cos_wk_wq

    def gram(self) -> np.ndarray:
        r"""The Gram matrix of :math:`(\mu, w_K, w_Q)`, shape (3, 3)."""
        return gram_of_entries({name: getattr(self, name) for name in RANK1_ENTRIES})

    def vectors(self, p: int, rng: np.random.Generator | None = None) -> np.ndarray:
        r"""Rows :math:`\mu, w_K, w_Q \in \mathbb R^p` with this Gram matrix: :func:`realize` of the whole 3 x 3."""
        return realize(self.gram(), p, rng, compress=False)

    def as_dict(self) -> dict[str, float]:
        """The six defining numbers, keyed as the CLI flags (with underscores)."""
        return {"mu_norm": self.mu_norm, "wk_norm": self.wk_norm, "wq_norm": self.wq_norm,
                "cos_mu_wk": self.cos_mu_wk, "cos_mu_wq": self.cos_mu_wq, "cos_wk_wq": self.cos_wk_wq}


def gram_rank(gram: np.ndarray) -> int:
    """The rank :math:`r` of the weights of a Gram matrix of size :math:`1 + 2r`."""
    return (np.shape(gram)[-1] - 1) // 2


def check_gram(gram: Any, name: str = "gram") -> np.ndarray:
    r"""A Gram matrix of :math:`(\mu, w_K^{(1..r)}, w_Q^{(1..r)})`, checked; returned read-only, float64.

    Shape ``(..., 1 + 2r, 1 + 2r)`` with :math:`r \ge 1` (leading dimensions are a stack
    that broadcasts in the theory). Every matrix of the stack must be finite, symmetric and
    positive semi-definite up to :data:`GRAM_RTOL` relative to :math:`\max(1, \max|G|)`, and
    no norm may exceed :data:`MAX_NORM`. The returned matrix is exactly symmetric
    (:math:`(G + G^\top)/2`).

    Examples
    --------
    >>> check_gram([[1.0, 0.5, 0.5], [0.5, 1.0, 1.0], [0.5, 1.0, 1.0]]).shape
    (3, 3)
    >>> check_gram([[1.0, 2.0, 0.0], [2.0, 1.0, 0.0], [0.0, 0.0, 0.0]])
    Traceback (most recent call last):
    ...
    symrmt.errors.ParameterError: gram is not positive semi-definite (smallest eigenvalue -1 at some point): no vectors have this Gram matrix; build it from actual vectors, e.g. V @ V.T.
    """
    if isinstance(gram, (str, bytes)):
        raise ParameterTypeError(f"{name} = {shown(gram)}: must be a real matrix of numbers (a nested list).")
    try:                                        # a ragged list fails in np.asarray, inside iscomplexobj too
        complex_ = np.iscomplexobj(gram)
    except (TypeError, ValueError):
        complex_ = False                        # refused just below
    if complex_:
        raise ParameterTypeError(f"{name}: must be a real matrix, not complex.")
    try:
        kind = np.asarray(gram).dtype.kind
        matrix = np.array(gram, dtype=np.float64)
    except (TypeError, ValueError, OverflowError):
        raise ParameterError(f"{name} = {shown(gram)}: must be a square matrix of numbers (a nested list).") from None
    if kind in "bcUS":                          # booleans, complex numbers or text in a list
        raise ParameterTypeError(f"{name} = {shown(gram)}: must be a real matrix of numbers, not "
                                 f"{dict(b='booleans', c='complex numbers').get(kind, 'text')}.")
    if matrix.ndim < 2 or matrix.shape[-1] != matrix.shape[-2] or matrix.shape[-1] < 3 or matrix.shape[-1] % 2 == 0:
        raise ParameterError(f"{name} has shape {matrix.shape}: give the (1+2r) x (1+2r) Gram matrix of "
                             "(mu, w_K^(1..r), w_Q^(1..r)) in that order, e.g. 3 x 3 for rank 1.")
    if matrix.size == 0:
        raise ParameterError(f"{name} is an empty stack of shape {matrix.shape}: give at least one Gram matrix.")
    if not np.all(np.isfinite(matrix)):
        raise ParameterError(f"{name}: every entry must be finite.")
    diagonal = np.diagonal(matrix, axis1=-2, axis2=-1)
    if np.any(diagonal > MAX_NORM**2):
        raise ParameterError(f"{name}: a squared norm on the diagonal is {diagonal.max():.3g}, above "
                             f"({MAX_NORM:g})^2: the model is for norms of order 1, and the theory is not solved "
                             "beyond.")
    # Scale-free checks: divide by max(1, max |G|) first so that eigvalsh never sees huge entries.
    scale = np.maximum(1.0, np.abs(matrix).max(axis=(-1, -2), keepdims=True))
    scaled = matrix / scale
    if np.any(np.abs(scaled - np.swapaxes(scaled, -1, -2)) > GRAM_RTOL):
        raise ParameterError(f"{name} is not symmetric: give the Gram matrix of actual vectors "
                             "(G[i, j] = v_i . v_j).")
    scaled = 0.5 * (scaled + np.swapaxes(scaled, -1, -2))
    smallest = np.linalg.eigvalsh(scaled)[..., 0]
    if np.any(smallest < -GRAM_RTOL):
        worst = float((smallest * scale[..., 0, 0]).min())
        raise ParameterError(f"{name} is not positive semi-definite (smallest eigenvalue {worst:.3g} at some "
                             "point): no vectors have this Gram matrix; build it from actual vectors, e.g. V @ V.T.")
    matrix = scaled * scale
    matrix.setflags(write=False)
    return matrix


def gram_of_entries(entries: Mapping[str, Any]) -> np.ndarray:
    r"""The 3 x 3 Gram matrix (stack) from the six named rank-one entries; a missing entry is 0.

    Unchecked (see :func:`check_gram`); entries broadcast against each other.
    """
    unknown = sorted(set(entries) - set(RANK1_ENTRIES))
    if unknown:
        raise ParameterError(f"unknown Gram entries {unknown}; the rank-one entries are {', '.join(RANK1_ENTRIES)}.")
    values = np.broadcast_arrays(*(_entry_array(k, entries.get(k, 0.0)) for k in RANK1_ENTRIES))
    out = np.zeros(values[0].shape + (3, 3))
    for (name, (i, j)), value in zip(_RANK1_POSITIONS.items(), values):
        out[..., i, j] = out[..., j, i] = value
    return out


def _entry_array(name: str, value: Any) -> np.ndarray:
    try:
        kind = np.asarray(value).dtype.kind
        if isinstance(value, (str, bytes, bool, np.bool_)) or kind in "bcUS":
            raise ParameterTypeError(f"{name} = {shown(value)}: must be a real number or an array of them.")
        return np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError, OverflowError):
        raise ParameterError(f"{name} = {shown(value)}: must be a real number or an array of them.") from None


def entries_of(gram: np.ndarray) -> dict[str, np.ndarray]:
    """The six named entries of a rank-one Gram matrix (stack), inverse of :func:`gram_of_entries`."""
    if np.shape(gram)[-2:] != (3, 3):
        raise ParameterError(f"gram has shape {np.shape(gram)}: named entries exist for rank one (3 x 3) only.")
    return {name: np.asarray(gram)[..., i, j] for name, (i, j) in _RANK1_POSITIONS.items()}


def resolve_gram(geometry: Geometry | None = None, gram: Any = None) -> np.ndarray:
    r"""The checked Gram matrix of a geometry given in any of its forms; every public function uses this.

    Parameters
    ----------
    geometry : Geometry, optional
        Rank one, norms and cosines.
    gram : array_like or mapping, optional
        Instead of ``geometry``: a Gram array ``(..., 1 + 2r, 1 + 2r)`` or a mapping of the
        named rank-one entries :data:`RANK1_ENTRIES` (arrays that broadcast).

    Returns
    -------
    numpy.ndarray
        :func:`check_gram` of it; neither argument gives the 3 x 3 zero matrix (no signal,
        no weights).
    """
    if geometry is not None and gram is not None:
        raise ParameterError("give the geometry either as geometry=Geometry(...) or as gram=..., not both "
                             "(a Geometry is the rank-one case, whose Gram matrix is Geometry.gram()).")
    if gram is None:
        if geometry is not None and not isinstance(geometry, Geometry):
            raise ParameterTypeError(f"geometry = {shown(geometry)}: must be a symrmt.Geometry (or give gram=...).")
        return check_gram((geometry or Geometry()).gram())
    if isinstance(gram, Mapping):
        return check_gram(gram_of_entries(gram))
    return check_gram(gram)


def _weight_blocks(gram: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The blocks (Omega_KK, Omega_QQ, Omega_KQ) of a Gram matrix, each (..., r, r)."""
    r = gram_rank(gram)
    keys, queries = slice(1, 1 + r), slice(1 + r, 1 + 2 * r)
    return gram[..., keys, keys], gram[..., queries, queries], gram[..., keys, queries]


def symmetric_kernel(gram: Any) -> np.ndarray:
    r"""Whether :math:`B = \sum_k w_K^{(k)} w_Q^{(k)\top}` is symmetric, so that the attention matrix is.

    From the Gram matrix alone: :math:`\|B - B^\top\|_F^2 = 2(\|B\|_F^2 - \operatorname{tr} B^2)` with
    :math:`\|B\|_F^2 = \sum_{kl} (\Omega_{KK})_{kl} (\Omega_{QQ})_{kl}` and
    :math:`\operatorname{tr} B^2 = \sum_{kl} (\Omega_{KQ})_{kl} (\Omega_{KQ})_{lk}`. Symmetric within
    :data:`GRAM_RTOL` of :math:`\max(1, \|B\|_F^2)`. This is the one rule (e.g. :math:`w_Q = 0`,
    :math:`w_Q = -w_K` and swapped pairs :math:`w_K^{(1)} = w_Q^{(2)}, w_K^{(2)} = w_Q^{(1)}` are symmetric).

    Examples
    --------
    >>> bool(symmetric_kernel(np.diag([1.0, 1.0, 0.0])))      # w_Q = 0: B = 0
    True
    >>> bool(symmetric_kernel([[0, 0, 0], [0, 1, 0], [0, 0, 1]]))   # w_K orthogonal to w_Q
    False
    """
    G = np.asarray(gram, dtype=np.float64)
    kk, qq, kq = _weight_blocks(G)
    norm2 = (kk * qq).sum(axis=(-1, -2))
    trace2 = (kq * np.swapaxes(kq, -1, -2)).sum(axis=(-1, -2))
    return 2 * (norm2 - trace2) <= GRAM_RTOL * np.maximum(1.0, norm2)


def check_symmetric_kernel(gram: Any) -> None:
    """Refuse weights whose attention matrix is not symmetric (needed for ``matrix="kernel"``)."""
    if not np.all(symmetric_kernel(gram)):
        raise ParameterError("matrix='kernel' needs a symmetric attention matrix K, i.e. a symmetric "
                             "sum_k w_K^(k) w_Q^(k)^T (e.g. w_K = w_Q); these weights make K asymmetric. "
                             "Use matrix='gram', or symmetric weights.")


def realize(gram: np.ndarray, p: int, rng: np.random.Generator | None = None, compress: bool = True) -> np.ndarray:
    r"""Vectors :math:`(\mu, w_K^{(1..r)}, w_Q^{(1..r)})` in :math:`\mathbb R^p` with Gram matrix ``gram``.

    Returns an array of shape ``(1 + 2r, p)`` whose rows are the vectors, from the
    eigendecomposition :math:`G = F F^\top` of the block of nonzero vectors (``compress=True``;
    zero vectors then change nothing) or of the whole matrix (``compress=False``, the
    rank-one :meth:`Geometry.vectors`). They span the first coordinates, rotated by a
    Haar-random orthogonal frame drawn from ``rng`` when it is given (one
    ``rng.standard_normal((p, k))``, ``k`` the number of vectors used); the law of the model
    does not depend on the frame. :math:`w_Q^{(k)} = w_K^{(k)}` exactly where the Gram
    matrix says they are equal, so that :math:`K` is then exactly symmetric.
    """
    gram = np.asarray(gram, dtype=np.float64)
    live = np.flatnonzero(np.diag(gram) > 0) if compress else np.arange(gram.shape[0])
    if p < live.size or p < 3:
        raise ParameterError(f"p = {p}: need p >= {max(live.size, 3)} to place mu and the weight vectors.")
    vectors = np.zeros((gram.shape[0], p))
    if live.size == 0:
        return vectors
    eigenvalues, eigenvectors = np.linalg.eigh(gram[np.ix_(live, live)])
    factor = eigenvectors * np.sqrt(np.clip(eigenvalues, 0.0, None))   # G = factor @ factor.T
    if rng is None:
        vectors[live, : live.size] = factor
    else:
        vectors[live] = factor @ np.linalg.qr(rng.standard_normal((p, live.size)))[0].T
    _tie_equal_pairs(gram, vectors)
    return vectors


def _tie_equal_pairs(gram: np.ndarray, vectors: np.ndarray) -> None:
    """Set w_Q^(k) = w_K^(k) exactly where the Gram matrix says they are equal."""
    r = gram_rank(gram)
    for k in range(1, r + 1):
        distance2 = gram[k, k] + gram[k + r, k + r] - 2 * gram[k, k + r]   # ||w_K - w_Q||^2
        if distance2 <= 1e-12 * max(gram[k, k], gram[k + r, k + r], 1e-300):
            vectors[k + r] = vectors[k]
