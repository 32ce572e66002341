r"""Geometry of the signal and the attention weights.

The model (docs/theory.md section 1) depends on :math:`\mu, w_K, w_Q \in \mathbb R^p`
only through their Gram matrix

.. math::

    G = \begin{pmatrix} \|\mu\|^2 & \mu^\top w_K & \mu^\top w_Q \\
        \cdot & \|w_K\|^2 & w_K^\top w_Q \\ \cdot & \cdot & \|w_Q\|^2 \end{pmatrix},

given here by three norms and three cosines. The theory reads the Gram entries
(:math:`\theta = \|\mu\|^2`, :math:`\alpha_K = \mu^\top w_K`, ...); the simulator
realizes vectors with that Gram matrix.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .errors import ParameterError

__all__ = ["Geometry"]

#: Relative tolerance on the smallest eigenvalue of the Gram matrix (round-off of cosines).
_PSD_RTOL = 1e-10
#: Norms above this are refused: their Gram entries would overflow long before the model means anything.
_MAX_NORM = 1e100


def _number(name: str, value) -> float:
    if isinstance(value, (bool, complex)) or isinstance(value, np.complexfloating):
        raise ParameterError(f"{name} = {value!r}: must be a real number.")
    try:
        return float(value)
    except (TypeError, ValueError):
        raise ParameterError(f"{name} = {value!r}: must be a real number.") from None


@dataclass(frozen=True)
class Geometry:
    r"""Norms and cosines of :math:`(\mu, w_K, w_Q)`; default: no signal, no weights.

    Parameters
    ----------
    mu_norm, wk_norm, wq_norm : float
        :math:`\|\mu\|, \|w_K\|, \|w_Q\| \ge 0` (all :math:`O(1)`).
    cos_mu_wk, cos_mu_wq, cos_wk_wq : float
        Cosines in :math:`[-1, 1]`; together they must give a positive
        semi-definite Gram matrix.

    Examples
    --------
    >>> g = Geometry(mu_norm=1.0, wk_norm=2.0, wq_norm=2.0, cos_mu_wk=1.0, cos_mu_wq=1.0, cos_wk_wq=1.0)
    >>> g.theta, g.alpha_k, g.alpha_q
    (1.0, 2.0, 2.0)
    """

    mu_norm: float = 0.0
    wk_norm: float = 0.0
    wq_norm: float = 0.0
    cos_mu_wk: float = 0.0
    cos_mu_wq: float = 0.0
    cos_wk_wq: float = 0.0

    def __post_init__(self) -> None:
        for name in ("mu_norm", "wk_norm", "wq_norm"):
            value = _number(name, getattr(self, name))
            if not np.isfinite(value) or value < 0:
                raise ParameterError(f"{name} = {value!r}: a norm must be a finite number >= 0.")
            if value > _MAX_NORM:
                raise ParameterError(f"{name} = {value!r}: the theory is for norms of order 1 (asymptotically, "
                                     f"against p); give a norm below {_MAX_NORM:g}.")
            object.__setattr__(self, name, value)
        for name in ("cos_mu_wk", "cos_mu_wq", "cos_wk_wq"):
            value = _number(name, getattr(self, name))
            if not np.isfinite(value) or abs(value) > 1 + 1e-12:
                raise ParameterError(f"{name} = {value!r}: a cosine must lie in [-1, 1].")
            object.__setattr__(self, name, value)
        self._check_psd()

    def _check_psd(self) -> None:
        cosines = np.array(
            [[1.0, self.cos_mu_wk, self.cos_mu_wq],
             [self.cos_mu_wk, 1.0, self.cos_wk_wq],
             [self.cos_mu_wq, self.cos_wk_wq, 1.0]]
        )
        # Only vectors with nonzero norm constrain the cosines.
        live = [i for i, v in enumerate((self.mu_norm, self.wk_norm, self.wq_norm)) if v > 0]
        if len(live) < 2:
            return
        smallest = np.linalg.eigvalsh(cosines[np.ix_(live, live)])[0]
        if smallest < -_PSD_RTOL:
            raise ParameterError(
                "the cosines (cos_mu_wk, cos_mu_wq, cos_wk_wq) = "
                f"({self.cos_mu_wk}, {self.cos_mu_wq}, {self.cos_wk_wq}) are not realizable: "
                f"their Gram matrix has a negative eigenvalue ({smallest:.3g}). "
                "Pick cosines of three actual vectors, e.g. cos_wk_wq = cos_mu_wk * cos_mu_wq."
            )

    # Gram entries, the only way the geometry enters the theory.
    @property
    def theta(self) -> float:
        r""":math:`\theta = \|\mu\|^2`."""
        return self.mu_norm**2

    @property
    def alpha_k(self) -> float:
        r""":math:`\alpha_K = \mu^\top w_K`."""
        return self.mu_norm * self.wk_norm * self.cos_mu_wk

    @property
    def alpha_q(self) -> float:
        r""":math:`\alpha_Q = \mu^\top w_Q`."""
        return self.mu_norm * self.wq_norm * self.cos_mu_wq

    @property
    def wk_wq(self) -> float:
        r""":math:`w_K^\top w_Q`."""
        return self.wk_norm * self.wq_norm * self.cos_wk_wq

    def gram(self) -> np.ndarray:
        r"""The Gram matrix of :math:`(\mu, w_K, w_Q)`, shape (3, 3)."""
        norms = np.array([self.mu_norm, self.wk_norm, self.wq_norm])
        cosines = np.array(
            [[1.0, self.cos_mu_wk, self.cos_mu_wq],
             [self.cos_mu_wk, 1.0, self.cos_wk_wq],
             [self.cos_mu_wq, self.cos_wk_wq, 1.0]]
        )
        return cosines * np.outer(norms, norms)

    def vectors(self, p: int, rng: np.random.Generator | None = None) -> np.ndarray:
        r"""Realize :math:`(\mu, w_K, w_Q)` in :math:`\mathbb R^p` with this Gram matrix.

        Returns an array of shape (3, p) whose rows are :math:`\mu, w_K, w_Q`.
        They span the first three coordinates, rotated by a Haar-random
        orthogonal frame when ``rng`` is given (the law of the model does not
        depend on the frame; the option exists to check that).
        """
        if p < 3:
            raise ParameterError(f"p = {p}: need p >= 3 to place mu, w_K and w_Q.")
        eigenvalues, eigenvectors = np.linalg.eigh(self.gram())
        factor = eigenvectors * np.sqrt(np.clip(eigenvalues, 0.0, None))  # G = factor @ factor.T
        if rng is None:
            frame = np.eye(p)[:3]
        else:
            frame = np.linalg.qr(rng.standard_normal((p, 3)))[0].T
        return factor @ frame

    def as_dict(self) -> dict[str, float]:
        """The six defining numbers, keyed as the CLI flags (with underscores)."""
        return {
            "mu_norm": self.mu_norm, "wk_norm": self.wk_norm, "wq_norm": self.wq_norm,
            "cos_mu_wk": self.cos_mu_wk, "cos_mu_wq": self.cos_mu_wq, "cos_wk_wq": self.cos_wk_wq,
        }
