r"""The numeric kernel of the general-M deterministic equivalent (docs/general_weights.md).

Everything that depends on the :math:`p \times p` weight matrix :math:`M` is computed here, numerically;
the rest of the system is a handful of scalars. The notation is that of docs/general_weights.md.

**Unknowns.** The symmetric :math:`3 \times 3` matrix :math:`t` of normalized traces of the n-side blocks of
the noise pencil, :math:`t_{bb'} = \operatorname{tr}(\mathcal R_{x_b x_{b'}})/p` (six numbers).

**The p-side (this module's job).** With :math:`w = (1, 1, c)` and :math:`\alpha = \mathbb E f'(\sigma\xi)`,

.. math::

    F = \begin{pmatrix} \alpha w_b t_{b2} & \alpha w_b t_{b1} & w_b t_{b3} \end{pmatrix}_{b=1,2,3},
    \qquad \mathcal Y = \big(I_{3p} + (F \otimes I_p)\,\mathrm{diag}(M, M^\top, I_p)\big)^{-1},

and the self-energy of the n-side needs only the nine normalized traces
:math:`\Theta_{bb'} = \operatorname{tr}(E_b \mathcal Y_{bb'})/p` (:math:`E = (M, M^\top, I)`). Eliminating the
third block (a multiple of :math:`I_p`) leaves :math:`\mathcal X = \begin{pmatrix} I + F'_{11}M & F'_{12}M^\top \\
F'_{21}M & I + F'_{22}M^\top\end{pmatrix}^{-1}` with :math:`F' = F_{[12][12]} - F_{[12]3}F_{3[12]}/(1 + F_{33})`,
and eliminating its second block (:math:`Y = I + F'_{22}M^\top`, :math:`W = M^\top Y^{-1} M`) leaves one
:math:`p \times p` matrix :math:`S'' = I + F'_{11}M - F'_{12}F'_{21}W`. All of :math:`\Theta` follows from
:math:`X_{11} = S''^{-1}`, :math:`W` and the eigenvalues of :math:`M`:

.. math::

    \tau_{11} = \tfrac1p\operatorname{tr}(M X_{11}),\quad
    \tau_{21} = -F'_{21}\tfrac1p\operatorname{tr}(W X_{11}),\quad
    \tau_{12} = -F'_{12}\tfrac1p\operatorname{tr}(X_{11} W),\quad
    \tau_{22} = \tfrac1p\sum_i \frac{\lambda_i}{1 + F'_{22}\lambda_i} + F'_{12}F'_{21}\tfrac1p\operatorname{tr}(X_{11} V W)

(:math:`V = Y^{-1}M^\top`). One LU of Y and one inverse per evaluation: :math:`O(p^3)`, about :math:`11p^3` flops.
"""
from __future__ import annotations

import numpy as np
import scipy.linalg as sla

__all__ = ["MatrixData", "Factored", "p_side", "signal_forms", "coefficient_matrix", "core_traces"]



class MatrixData:
    r"""What the kernel needs of :math:`M`, computed once: M, its transpose, its eigenvalues and the scalars
    :math:`\operatorname{tr}M/p`, :math:`\sigma^2 = \|M\|_F^2/p`, :math:`\rho = \operatorname{tr}(M^2)/\|M\|_F^2`."""

    def __init__(self, M: np.ndarray):
        M = np.ascontiguousarray(M, dtype=float)
        self.M = M
        self.MT = np.ascontiguousarray(M.T)
        self.p = M.shape[0]
        self.eig = np.linalg.eigvals(M)
        fro2 = float(np.sum(M * M))
        self.trace = float(np.trace(M)) / self.p
        self.sigma = np.sqrt(fro2 / self.p)
        self.rho = float(np.sum(M * self.MT)) / fro2 if fro2 > 0 else 0.0


def coefficient_matrix(t: np.ndarray, alpha: float, c: float) -> np.ndarray:
    r""":math:`F` of the module docstring from the n-side traces :math:`t` (0-based columns 1, 0, 2 of t)."""
    w = np.array([1.0, 1.0, c])
    return np.column_stack([alpha * w * t[:, 1], alpha * w * t[:, 0], w * t[:, 2]])


def p_side(t: np.ndarray, data: MatrixData, alpha: float, c: float, core=None) -> tuple[np.ndarray, "Factored"]:
    r"""The p-side traces :math:`T_{bb'} = \operatorname{tr}(\mathcal R_{a(b), u_{b'}})/p` that feed the n-side,
    and the factorization they came from (reused by :func:`signal_forms`).

    :math:`T = -\operatorname{diag}(\alpha, \alpha, 1)\, \Pi\, \Theta` with :math:`\Pi` swapping the first two rows
    (the partner of :math:`x_1` is :math:`v_2 = \alpha M^\top u_2`, that of :math:`x_2` is :math:`v_1 = \alpha M u_1`).
    """
    F = coefficient_matrix(t, alpha, c)
    fac = Factored(F, data, core)
    T = -fac.theta[[1, 0, 2], :]
    T[:2] *= alpha
    return T, fac


class Factored:
    r"""One factorization of the p-side at a given :math:`F`: :math:`\Theta` and solves with :math:`\mathcal Y`.

    The expensive part depends on :math:`F` only through the three scalars ``args`` =
    :math:`(F'_{11}, F'_{22}, F'_{12}F'_{21})`, by the three traces ``core`` =
    :math:`(\operatorname{tr}(MX_{11}), \operatorname{tr}(WX_{11}), \operatorname{tr}(X_{11}Y^{-1}M^\top W))/p`
    (:func:`core_traces`). ``core`` may be given (a callable of ``args``), e.g. a linear model of it for a
    Jacobian; then nothing is factorized and :meth:`solve` is unavailable.
    """

    def __init__(self, F: np.ndarray, data: MatrixData, core=None):
        self.F, self.data = F, data
        d33 = 1.0 + F[2, 2]
        Fp = F[:2, :2] - np.outer(F[:2, 2], F[2, :2]) / d33
        self.d33, self.Fp = d33, Fp
        self.args = np.array([Fp[0, 0], Fp[1, 1], Fp[0, 1] * Fp[1, 0]])
        self.lu = self.X11 = None
        if getattr(data, "tau_model", None) is not None:          # a model of M's *-distribution (elliptic.py)
            self.core = np.zeros(3)
            self._finish(F, data.tau_model(Fp))
            return
        if core is None:
            self.core = core_traces(data, *self.args, keep=self)
        else:
            self.core = np.asarray(core(self.args), dtype=float)
        g1, g2, g4 = self.core
        tau = np.empty((2, 2))
        tau[0, 0] = g1
        tau[1, 0] = -Fp[1, 0] * g2
        tau[0, 1] = -Fp[0, 1] * g2
        tau[1, 1] = _eig_trace(data.eig, Fp[1, 1]) + self.args[2] * g4
        self._finish(F, tau)

    def _finish(self, F: np.ndarray, tau: np.ndarray) -> None:
        d33 = self.d33
        Theta = np.empty((3, 3))
        Theta[:2, :2] = tau
        Theta[:2, 2] = -tau @ F[:2, 2] / d33
        Theta[2, :2] = -(F[2, :2] @ tau) / d33
        Theta[2, 2] = 1.0 / d33 + F[2, :2] @ tau @ F[:2, 2] / d33 ** 2
        self.theta = Theta

    def _y_inv(self, r: np.ndarray) -> np.ndarray:
        if self.lu is None:
            raise RuntimeError("this p-side was built from a model of its traces: nothing was factorized")
        return sla.lu_solve(self.lu, r, check_finite=False)

    def solve(self, r1: np.ndarray, r2: np.ndarray, r3: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        r""":math:`(x_1, x_2, x_3) = \mathcal Y (r_1, r_2, r_3)` by block elimination (O(p^2) per vector)."""
        F, Fp, d33 = self.F, self.Fp, self.d33
        M, MT = self.data.M, self.data.MT
        r1p = r1 - F[0, 2] * r3 / d33
        r2p = r2 - F[1, 2] * r3 / d33
        yr2 = self._y_inv(r2p)
        x1 = self.X11 @ (r1p - Fp[0, 1] * (MT @ yr2))
        x2 = yr2 - Fp[1, 0] * self._y_inv(M @ x1)
        x3 = (r3 - F[2, 0] * (M @ x1) - F[2, 1] * (MT @ x2)) / d33
        return x1, x2, x3


def core_traces(data: MatrixData, a: float, d: float, e: float, keep: "Factored | None" = None) -> np.ndarray:
    r"""The three expensive traces at :math:`S'' = I + aM - eW`, :math:`Y = I + dM^\top`, :math:`W = M^\top Y^{-1}M`.

    Returns :math:`(\operatorname{tr}(MX_{11}), \operatorname{tr}(WX_{11}), \operatorname{tr}(X_{11}Y^{-1}M^\top W))/p` with
    :math:`X_{11} = S''^{-1}`: one LU of Y, one inverse, three products (about :math:`11p^3` flops). ``keep``
    receives the LU and :math:`X_{11}` for :meth:`Factored.solve`.
    """
    M, MT, p = data.M, data.MT, data.p
    Y = np.eye(p) + d * MT
    lu = sla.lu_factor(Y, check_finite=False)
    Z = sla.lu_solve(lu, M, check_finite=False)                       # Y^{-1} M
    W = MT @ Z                                                         # M^T Y^{-1} M
    X11 = np.linalg.inv(np.eye(p) + a * M - e * W)
    VW = sla.lu_solve(lu, MT @ W, check_finite=False)                 # Y^{-1} M^T W
    if keep is not None:
        keep.lu, keep.X11 = lu, X11
    return np.array([np.sum(M * X11.T), np.sum(W * X11.T), np.sum(X11 * VW.T)]) / p


def _eig_trace(eig: np.ndarray, x: float) -> float:
    r""":math:`\frac1p\operatorname{tr}(M^\top (I + xM^\top)^{-1}) = \frac1p\sum_i \lambda_i/(1 + x\lambda_i)`."""
    return float(np.real(np.mean(eig / (1.0 + x * eig))))


def signal_forms(t: np.ndarray, fac: "Factored", c: float, vectors: list[np.ndarray]) -> np.ndarray:
    r"""The :math:`3 \times 3` quadratic forms :math:`v_i^\top \Pi_{ij} v_j`, :math:`\Pi_{ij} \simeq G R_{x_i x_j} G^\top`.

    ``vectors`` = :math:`(v_1, v_2, v_3)` placed in blocks 1, 2, 3. From the pencil's rows,
    :math:`\Pi_{i1} = \sum_b \mathcal Y_{ib} w_b t_{b1}/w_i`, :math:`\Pi_{i2} = \sum_b \mathcal Y_{ib} w_b t_{b2}/w_i`,
    :math:`\Pi_{i3} = (\delta_{i3} I - \mathcal Y_{i3})/w_i`. Solves with the factorization ``fac`` of the
    last p-side evaluation (:class:`Factored`), nine vector solves.
    """
    p = fac.data.p
    w = np.array([1.0, 1.0, c])
    out = np.zeros((3, 3))
    zero = np.zeros((p, 3))
    for j in range(3):
        V = np.zeros((p, 3))
        V[:, j] = vectors[j]
        cols = []
        for b in range(3):
            r = [zero[:, 0]] * 3
            r[b] = vectors[j]
            cols.append(fac.solve(*r))                                      # Y[:, b] v_j
        for i in range(3):
            blk = np.column_stack([cols[b][i] for b in range(3)])          # Y[i, b] v_j
            if j == 0:
                col = blk @ (w * t[:, 0]) / w[i]
            elif j == 1:
                col = blk @ (w * t[:, 1]) / w[i]
            else:
                col = ((i == 2) * vectors[j] - blk[:, 2]) / w[i]
            out[i, j] = vectors[i] @ col
    return out
