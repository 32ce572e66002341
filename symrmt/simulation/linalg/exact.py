r"""The ``exact`` route: all :math:`E(\gamma)` from one eigendecomposition or SVD per matrix."""
from __future__ import annotations

import numpy as np

from .gram import GRAM_RTOL, gram_matrix, rounding_bound

__all__ = ["exact_errors", "errors_svd", "errors_gram"]


def exact_errors(F: np.ndarray, y: np.ndarray, gamma: np.ndarray) -> np.ndarray:
    r"""All :math:`E(\gamma)` from one factorization of ``F`` (m-by-n), the reference route.

    With :math:`F^\top F/n = \sum_i \lambda_i v_i v_i^\top` and :math:`a_i = v_i^\top y`,

    .. math::

        E(\gamma) = \frac1n \Big[\sum_{i} a_i^2
            \Big(\frac{\gamma}{\lambda_i + \gamma}\Big)^2 + \|P_\perp y\|^2\Big],

    :math:`P_\perp` projecting on the null space of :math:`F` (nonzero only when m < n).

    * m < n: thin SVD of ``F``; it handles the (n - m)-dimensional null space
      exactly, where eigh of the n-by-n Gram would return n - m spurious
      eigenvalues of size eps*||F||^2/n.
    * m >= n: eigh of the n-by-n Gram (about 3x faster than the SVD) unless
      :func:`rounding_bound` exceeds ``GRAM_RTOL`` at the smallest :math:`\gamma`;
      then the SVD of ``F``, after a QR when m > n. The SVD gives each
      :math:`\sigma_i` to :math:`\epsilon\|F\|` absolutely, so :math:`\lambda_i = \sigma_i^2/n`
      keeps its accuracy down to the smallest :math:`\gamma`.
    """
    m, n = F.shape
    if m >= n:
        errors, bound = errors_gram(F, y, gamma)
        if bound <= GRAM_RTOL:
            return errors
        if m > n:
            F = np.linalg.qr(F, mode="r")  # n-by-n with the same Gram: a smaller SVD
    return errors_svd(F, y, gamma)


def _shrunk_norm(lam: np.ndarray, a2: np.ndarray, gamma: np.ndarray) -> np.ndarray:
    r""":math:`\sum_i a_i^2 (\gamma/(\lambda_i+\gamma))^2` for every :math:`\gamma` (one matrix product)."""
    shrink = gamma[:, None] / (np.clip(lam, 0.0, None)[None, :] + gamma[:, None])
    return (shrink**2) @ a2


def errors_svd(F: np.ndarray, y: np.ndarray, gamma: np.ndarray) -> np.ndarray:
    """The SVD branch of :func:`exact_errors` (any shape of ``F``)."""
    n = F.shape[1]
    _, sigma, vt = np.linalg.svd(F, full_matrices=False)
    a2 = (vt @ y) ** 2
    errors = _shrunk_norm(sigma**2 / n, a2, gamma)
    if vt.shape[0] < n:  # null space of F: ||P_perp y||^2 = ||y||^2 - ||V^T y||^2
        errors += max(float(y @ y - a2.sum()), 0.0)
    return errors / n


def errors_gram(F: np.ndarray, y: np.ndarray, gamma: np.ndarray) -> tuple[np.ndarray, float]:
    """The eigh branch of :func:`exact_errors` for m >= n, and its :func:`rounding_bound`."""
    n = F.shape[1]
    lam, vectors = np.linalg.eigh(gram_matrix(F))
    errors = _shrunk_norm(lam, (vectors.T @ y) ** 2, gamma) / n
    return errors, rounding_bound(n, lam[-1], gamma.min())

