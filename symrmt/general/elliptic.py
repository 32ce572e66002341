r"""The cheaper comparison model: M replaced by :math:`sI + E`, E elliptic, closed by free probability.

The exact kernel (:mod:`symrmt.general.kernel`) needs, per evaluation, the normalized traces
:math:`\tau_{bb'} = \operatorname{tr}(D_b\mathcal X_{bb'})/p` of

.. math::

    \mathcal X = \big(I_{2p} + (F' \otimes I_p)\operatorname{diag}(M, M^\top)\big)^{-1}, \qquad D = (M, M^\top),

one :math:`O(p^3)` factorization. Replace M by :math:`sI + E` with E elliptic Gaussian:
:math:`\mathbb E E_{ij}^2 = v^2/p`, :math:`\mathbb E E_{ij}E_{ji} = \tau v^2/p`, matched to M by

.. math::

    s = \frac{\operatorname{tr}M}{p}, \qquad v^2 = \frac{\|M - sI\|_F^2}{p}, \qquad
    \tau = \frac{\operatorname{tr}(M - sI)^2}{\|M - sI\|_F^2} .

Then :math:`\mathcal X^{-1} = (I + sF')\otimes I + \sum_{b,k}F'_{bk}\,e_be_k^\top \otimes E_k` (:math:`E_1 = E`,
:math:`E_2 = E^\top`) is a pencil linear in one Gaussian matrix, and its Dyson equation is a :math:`2 \times 2`
fixed point in :math:`x_{bb'} = \operatorname{tr}\mathcal X_{bb'}/p`:

.. math::

    x = \big(I + sF' - \mathcal S(x)\big)^{-1}, \qquad
    \mathcal S(x)_{bb'} = v^2\sum_{k,m} F'_{bk}\, x_{km}\, F'_{mb'}\, \kappa_{kb'}, \qquad
    \kappa = \begin{pmatrix}\tau & 1\\ 1 & \tau\end{pmatrix}

(:math:`\mathbb E[E_kE_l] = v^2\kappa_{kl}I`), and by Gaussian integration by parts
:math:`\operatorname{tr}(E_k\mathcal X_{kb'})/p = -v^2\sum_{l,m}F'_{ml}\,\kappa_{kl}\,x_{km}\,x_{lb'}`, so

.. math::

    \tau_{bb'} = s\,x_{bb'} - v^2\sum_{l,m}F'_{ml}\,\kappa_{bl}\,x_{bm}\,x_{lb'} .

O(1) per evaluation instead of :math:`O(p^3)`. The model keeps :math:`\sigma` and :math:`\rho` of M (they enter the
Hermite data); it discards everything of M's :math:`*`-distribution beyond
:math:`(\operatorname{tr}M, \|M\|_F, \operatorname{tr}M^2)`, in particular its low-rank (large singular value)
structure, which for real weights is not negligible in the traces. No signal: the quadratic forms of
:math:`\mu` need the matrix itself (use the exact kernel).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import ParameterError
from .hermite_scaled import scaled_hermite
from .kernel import MatrixData
from .solver import GeneralSolution, blas_limit, continuation_path, PathSystem, resolve_matrix

__all__ = ["EllipticModel", "attention_error_elliptic"]


class EllipticModel:
    r"""The :math:`2 \times 2` Dyson solve of the module docstring for given :math:`(s, v^2, \tau)`."""

    def __init__(self, s: float, v2: float, tau: float):
        self.s, self.v2 = float(s), float(v2)
        self.kappa = np.array([[tau, 1.0], [1.0, tau]])
        self._x = None

    @classmethod
    def matched(cls, M: np.ndarray) -> "EllipticModel":
        """The model matched to M's trace, Frobenius norm and :math:`\\operatorname{tr}M^2`."""
        p = M.shape[0]
        s = np.trace(M) / p
        R = M - s * np.eye(p)
        fro2 = float(np.sum(R * R))
        return cls(s, fro2 / p, float(np.sum(R * R.T)) / fro2 if fro2 > 0 else 0.0)

    def _self_energy(self, x: np.ndarray, Fp: np.ndarray) -> np.ndarray:
        # S_bb' = v^2 sum_{k,m} F'_bk x_km F'_mb' kappa_kb'
        return self.v2 * np.einsum("bk,km,mc,kc->bc", Fp, x, Fp, self.kappa)

    def __call__(self, Fp: np.ndarray) -> np.ndarray:
        A0 = np.eye(2) + self.s * Fp
        x = np.linalg.inv(A0) if self._x is None else self._x
        for _ in range(2000):
            xn = np.linalg.inv(A0 - self._self_energy(x, Fp))
            if np.max(np.abs(xn - x)) < 1e-15 * max(1.0, np.max(np.abs(x))):
                x = xn
                break
            x = 0.5 * x + 0.5 * xn
        else:
            raise ParameterError("the elliptic model's 2 x 2 Dyson equation did not converge.")
        self._x = x
        y = -self.v2 * np.einsum("ml,bl,bm,lc->bc", Fp, self.kappa, x, x)
        return self.s * x + y


class _ModelData(MatrixData):
    """MatrixData whose p-side traces come from a model (no p x p algebra)."""

    def __init__(self, M: np.ndarray, model: EllipticModel):
        super().__init__(M)
        self.tau_model = model


def attention_error_elliptic(f: Any, c: float, gamma: Any, weights: Any, d: float = 0.0) -> np.ndarray:
    r""":math:`E_\mathrm{attn}(\gamma)` of the elliptic model of M (noise only): the comparison of issue #27.

    Same arguments as :func:`~symrmt.general.attention_error_general` without ``mu``.
    """
    M = resolve_matrix(weights)
    gam = np.atleast_1d(np.asarray(gamma, dtype=float)).ravel()
    with blas_limit(M.shape[0]):
        data = _ModelData(M, EllipticModel.matched(M))
        herm = scaled_hermite(f, data.sigma, data.rho)
        sol: GeneralSolution = continuation_path(PathSystem(data, herm, float(c), float(d), None), gam, 2e-5)
    return sol.error.reshape(np.shape(gamma))
