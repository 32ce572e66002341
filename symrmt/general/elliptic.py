r"""The cheaper comparison model: M replaced by :math:`sI + L + E`, L its top-k singular part kept exactly, E elliptic.

The exact kernel (:mod:`symrmt.general.kernel`) needs, per evaluation, the normalized traces
:math:`\tau_{bb'} = \operatorname{tr}(D_b\mathcal X_{bb'})/p` of

.. math::

    \mathcal X = \big(I_{2p} + (F' \otimes I_p)\operatorname{diag}(M, M^\top)\big)^{-1}, \qquad D = (M, M^\top),

one :math:`O(p^3)` factorization. **The model.** With :math:`s_0 = \operatorname{tr}M/p` and the singular value
decomposition :math:`M - s_0I = \sum_i \sigma_i u_iv_i^\top`, keep the top ``rank`` = k directions exactly,
:math:`L = U_k\Sigma_kV_k^\top`, and replace the rest :math:`R = M - s_0I - L` by its trace and an elliptic
Gaussian E matched to its traceless part :math:`R_0 = R - rI`, :math:`r = \operatorname{tr}R/p`:

.. math::

    M \to sI + L + E, \qquad s = s_0 + r, \qquad \mathbb E E_{ij}^2 = \frac{v^2}{p},\quad
    \mathbb E E_{ij}E_{ji} = \frac{\tau v^2}{p}, \qquad
    v^2 = \frac{\|R_0\|_F^2}{p}, \quad \tau = \frac{\operatorname{tr}R_0^2}{\|R_0\|_F^2}

(:math:`\operatorname{tr}` of the model is that of M). k = 0 is the three-number model :math:`sI + E`; k = p is
M itself (E = 0), and the model's traces are then the exact kernel's.

**The p-side Dyson equation.** :math:`\mathcal X^{-1} = \tilde A \otimes I_p + B + \Gamma` with
:math:`\tilde A_0 = I + sF'`, :math:`B = \sum_{b,k}F'_{bk}\,e_be_k^\top \otimes L_k` (:math:`L_1 = L`,
:math:`L_2 = L^\top`) deterministic of rank :math:`\le 2k`, and :math:`\Gamma = \sum_{b,k}F'_{bk}\,e_be_k^\top \otimes E_k`
Gaussian. Since :math:`\mathbb E[E_kCE_l] \simeq v^2\kappa_{kl}\frac{\operatorname{tr}C}{p}I`
(:math:`\kappa = \begin{pmatrix}\tau & 1\\ 1 & \tau\end{pmatrix}`, :math:`E_1 = E`, :math:`E_2 = E^\top`) the self-energy
is block-scalar and the deterministic equivalent is

.. math::

    \bar{\mathcal X} = \big(\tilde A(x) \otimes I_p + B\big)^{-1}, \qquad
    \tilde A(x) = I + sF' - \mathcal S(x), \qquad
    \mathcal S(x)_{bb'} = v^2\sum_{k,m} F'_{bk}\, x_{km}\, F'_{mb'}\, \kappa_{kb'},

a fixed point in the :math:`2 \times 2` block traces :math:`x_{bb'} = \operatorname{tr}\bar{\mathcal X}_{bb'}/p`.
**Woodbury step.** :math:`B = PQ^\top` with :math:`P_{bk} = F'_{bk}\,\mathrm{Lf}_k`,
:math:`\mathrm{Lf} = (U_k\Sigma_k, V_k\Sigma_k)`, :math:`Q = \operatorname{diag}(V_k, U_k)`, so with
:math:`A_i = \tilde A^{-1}` and :math:`\mathcal K = I_{2k} + Q^\top(A_i\otimes I)P`, whose blocks are
:math:`\delta_{kk'} + (A_iF')_{kk'}G_{kk'}` for :math:`G = \begin{pmatrix}W^\top\Sigma_k & \Sigma_k\\ \Sigma_k & W\Sigma_k\end{pmatrix}`,
:math:`W = U_k^\top V_k`,

.. math::

    x = A_i - \frac1p\,(A_iF')\,\Theta\,A_i, \qquad \Theta_{k'k} = \operatorname{tr}\big(\mathcal K^{-1}_{k'k}G_{kk'}\big),

everything in :math:`k \times k` matrices. The traces the n-side needs follow by Gaussian integration by
parts, :math:`\mathbb E[E_b\bar{\mathcal X}_{bb'}] \simeq -v^2\sum_{l,m}F'_{ml}\kappa_{bl}x_{bm}\bar{\mathcal X}_{lb'}`:

.. math::

    \tau_{bb'} = s\,x_{bb'} + \frac1p\operatorname{tr}(L_b\bar{\mathcal X}_{bb'})
    - v^2\sum_{l,m}F'_{ml}\,\kappa_{bl}\,x_{bm}\,x_{lb'},

the middle term again in :math:`k \times k` matrices. :math:`O(k^3)` per evaluation instead of :math:`O(p^3)`.
The Hermite data keep :math:`\sigma` and :math:`\rho` of M itself.

**The signal.** The quadratic forms of :math:`v = (M^\top\mu, M\mu, \mu)` (:func:`~symrmt.general.kernel.signal_forms`)
take :math:`\bar{\mathcal X}` applied to vectors (the Woodbury formula, :math:`O(pk)`) and the products with
the model's M by the same integration by parts,
:math:`(D\bar{\mathcal X}r)_b = (s + L_b)(\bar{\mathcal X}r)_b - v^2\sum_{l,m}F'_{ml}\kappa_{bl}x_{bm}(\bar{\mathcal X}r)_l`.
The vectors v are those of M itself: the model replaces the p-side resolvent, not :math:`\mu`'s position.
This drops the correlation between E and the bulk part :math:`R\mu` of :math:`M\mu` (a heuristic, measured
in docs/general_weights.md, section 10): exact for k = p, and good where :math:`\mu` lies in the kept
directions (the top singular vector), not for a random :math:`\mu`.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import ConvergenceError, ParameterError
from ..nonlinearity.scaled import scaled_hermite
from ..validate import signal_vector
from ..weight_matrix import read_weight_matrix
from .kernel import MatrixData
from .solver import GeneralSolution, PathSystem, blas_limit, read_arguments, solve_path

__all__ = ["EllipticModel", "attention_error_elliptic", "solve_elliptic"]


class EllipticModel:
    r"""The :math:`2 \times 2` Dyson solve of the module docstring for given :math:`(s, v^2, \tau)` and low-rank part.

    ``low_rank``: ``(U_k, sigma_k, V_k)`` of L (``None``: k = 0) and ``p``. Calling the model with
    :math:`F'` returns :math:`\tau` (2 x 2); :meth:`solve` then applies :math:`\bar{\mathcal X}` and the model's
    :math:`D` to vectors at that :math:`F'`.
    """

    def __init__(self, s: float, v2: float, tau: float, low_rank: tuple | None = None, p: int | None = None):
        self.s, self.v2 = float(s), float(v2)
        self.kappa = np.array([[tau, 1.0], [1.0, tau]])
        self._x = self._J = None
        self.k = 0 if low_rank is None else len(low_rank[1])
        if self.k:
            U, sig, V = low_rank
            self.U, self.sig, self.V, self.p = U, sig, V, int(p)
            W = U.T @ V
            # G_{kk'} = Q_k^T Lf_k' (Q = (V, U), Lf = (U Sigma, V Sigma)), and tr L = tr(W^T Sigma)
            self.G = [[W.T * sig, np.diag(sig)], [np.diag(sig), W * sig]]
            self.trL = float(np.sum(np.diag(W) * sig))

    @classmethod
    def matched(cls, M: np.ndarray, rank: int = 0) -> "EllipticModel":
        """The model matched to M: the top ``rank`` singular directions of M - (tr M/p) I kept, the rest's
        trace, Frobenius norm and :math:`\\operatorname{tr}R_0^2` matched (module docstring)."""
        p = M.shape[0]
        s0 = np.trace(M) / p
        R = M - s0 * np.eye(p)
        low = None
        if rank > 0:
            U, sig, Vt = np.linalg.svd(R)
            U, sig, V = U[:, :rank], sig[:rank], np.ascontiguousarray(Vt[:rank].T)
            R = R - (U * sig) @ V.T
            low = (U, sig, V)
        r = np.trace(R) / p
        R = R - r * np.eye(p)
        fro2 = float(np.sum(R * R))
        tau = float(np.sum(R * R.T)) / fro2 if fro2 > 1e-300 else 0.0
        return cls(s0 + r, fro2 / p, tau, low, p)

    def _self_energy(self, x: np.ndarray, Fp: np.ndarray) -> np.ndarray:
        # S_bb' = v^2 sum_{k,m} F'_bk x_km F'_mb' kappa_kb'
        return self.v2 * np.einsum("bk,km,mc,kc->bc", Fp, x, Fp, self.kappa)

    def _woodbury(self, Ai: np.ndarray, Fp: np.ndarray) -> np.ndarray:
        r""":math:`\mathcal K^{-1}` (2k x 2k) of the module docstring at :math:`A_i = \tilde A^{-1}`."""
        k, AF = self.k, Ai @ Fp
        Kmat = np.eye(2 * k)
        for a in range(2):
            for b in range(2):
                Kmat[a * k:(a + 1) * k, b * k:(b + 1) * k] += AF[a, b] * self.G[a][b]
        return np.linalg.inv(Kmat)

    def _traces(self, Ai: np.ndarray, Fp: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
        r""":math:`x = A_i - (A_iF')\Theta A_i/p` and :math:`\mathcal K^{-1}` (None for k = 0)."""
        if not self.k:
            return Ai, None
        k, Ki = self.k, self._woodbury(Ai, Fp)
        theta = np.array([[np.sum(Ki[a * k:(a + 1) * k, b * k:(b + 1) * k] * self.G[b][a].T) for b in range(2)]
                          for a in range(2)])
        return Ai - (Ai @ Fp) @ theta @ Ai / self.p, Ki

    def _map(self, x: np.ndarray, A0: np.ndarray, Fp: np.ndarray) -> np.ndarray:
        return self._traces(np.linalg.inv(A0 - self._self_energy(x, Fp)), Fp)[0]

    def _fixed_point(self, A0: np.ndarray, Fp: np.ndarray) -> np.ndarray:
        r"""x = map(x): Newton on the four entries from the last solution, reusing the last Jacobian (consecutive calls
        are at nearby :math:`F'`) and refreshing it (central differences, step 1e-7; the map is smooth) when a step
        does not reduce the residual tenfold; a damped step where Newton does not reduce it at all."""
        x = self._traces(np.linalg.inv(A0), Fp)[0] if self._x is None else self._x
        tol = 1e-14
        res = self._map(x, A0, Fp) - x
        fresh = False
        for _ in range(60):
            scale = max(1.0, np.max(np.abs(x)))
            size = np.max(np.abs(res))
            if size < tol * scale:
                return x
            if self._J is None:
                self._J, fresh = self._jacobian(x, A0, Fp, scale), True
            try:
                xn = x - np.linalg.solve(self._J, res.ravel()).reshape(2, 2)
            except np.linalg.LinAlgError:
                xn = x + 0.5 * res
            resn = self._map(xn, A0, Fp) - xn if np.all(np.isfinite(xn)) else np.full((2, 2), np.inf)
            if np.max(np.abs(resn)) > 0.1 * size:
                if not fresh:                                           # an old Jacobian: refresh it and retry
                    self._J = None
                    continue
                if np.max(np.abs(resn)) >= size:                        # Newton did not help: a damped step
                    xn = x + 0.5 * res
                    resn = self._map(xn, A0, Fp) - xn
            x, res, fresh = xn, resn, False
        raise ConvergenceError("the elliptic model's 2 x 2 Dyson equation did not converge.")

    def _jacobian(self, x: np.ndarray, A0: np.ndarray, Fp: np.ndarray, scale: float) -> np.ndarray:
        J = np.empty((4, 4))
        h = 1e-7 * scale
        for j in range(4):
            E = np.zeros(4)
            E[j] = h
            E = E.reshape(2, 2)
            J[:, j] = ((self._map(x + E, A0, Fp) - x - E) - (self._map(x - E, A0, Fp) - x + E)).ravel() / (2 * h)
        return J

    def __call__(self, Fp: np.ndarray) -> np.ndarray:
        A0 = np.eye(2) + self.s * Fp
        x = self._fixed_point(A0, Fp)
        self._x = x
        Ai = np.linalg.inv(A0 - self._self_energy(x, Fp))
        _, Ki = self._traces(Ai, Fp)
        self.state = (Fp, x, Ai, Ki)
        y = -self.v2 * np.einsum("ml,bl,bm,lc->bc", Fp, self.kappa, x, x)
        tau = self.s * x + y
        if self.k:
            tau += self._low_rank_traces(Ai, Fp, Ki) / self.p
        return tau

    def _low_rank_traces(self, Ai: np.ndarray, Fp: np.ndarray, Ki: np.ndarray) -> np.ndarray:
        r""":math:`\operatorname{tr}(L_b\bar{\mathcal X}_{bb'}) = A_{i,bb'}\operatorname{tr}L
        - \sum_{k,k'}(A_iF')_{bk'}A_{i,kb'}\operatorname{tr}(G_{bk'}\mathcal K^{-1}_{k'k}G_{kb})`."""
        k, AF = self.k, Ai @ Fp
        out = Ai * self.trL
        for b in range(2):
            for kp in range(2):
                for kk in range(2):
                    val = np.sum((self.G[b][kp] @ Ki[kp * k:(kp + 1) * k, kk * k:(kk + 1) * k]) * self.G[kk][b].T)
                    out[b] -= AF[b, kp] * Ai[kk] * val
        return out

    def solve(self, state: tuple, r1: np.ndarray, r2: np.ndarray) -> tuple[np.ndarray, ...]:
        r""":math:`(\bar{\mathcal X}r)_1, (\bar{\mathcal X}r)_2` and the model's :math:`M(\bar{\mathcal X}r)_1`,
        :math:`M^\top(\bar{\mathcal X}r)_2` at the evaluation ``state`` (:attr:`state` after a call; module
        docstring), :math:`O(pk)`."""
        Fp, x, Ai, Ki = state
        y = [Ai[b, 0] * r1 + Ai[b, 1] * r2 for b in range(2)]
        if self.k:
            k, AF = self.k, Ai @ Fp
            Q = (self.V, self.U)
            z = Ki @ np.concatenate([Q[0].T @ y[0], Q[1].T @ y[1]])
            Lf = (self.U * self.sig, self.V * self.sig)
            corr = [Lf[0] @ z[:k], Lf[1] @ z[k:]]
            y = [y[b] - AF[b, 0] * corr[0] - AF[b, 1] * corr[1] for b in range(2)]
        # (D Xbar r)_b = (s + L_b) y_b - v^2 sum_{l,m} F'_ml kappa_bl x_bm y_l
        coef = self.v2 * np.einsum("ml,bl,bm->bl", Fp, self.kappa, x)
        dy = []
        for b in range(2):
            out = self.s * y[b] - coef[b, 0] * y[0] - coef[b, 1] * y[1]
            if self.k:
                left, right = (self.U, self.V) if b == 0 else (self.V, self.U)
                out = out + (left * self.sig) @ (right.T @ y[b])
            dy.append(out)
        return y[0], y[1], dy[0], dy[1]


    def signal_forms(self, state: tuple, F: np.ndarray, t: np.ndarray, c: float, mu: np.ndarray) -> np.ndarray:
        r"""The :math:`3 \times 3` forms of :func:`~symrmt.general.kernel.signal_forms` in the model, with the model's M in
        the vectors :math:`v = (M^\top\mu, M\mu, \mu)` too (module docstring, "The signal")."""
        Fp, x, Ai, Ki = state
        d33 = 1.0 + F[2, 2]
        v2, ka = self.v2, self.kappa
        low = (lambda u: (self.U * self.sig) @ (self.V.T @ u)) if self.k else (lambda u: 0.0 * u)
        lowT = (lambda u: (self.V * self.sig) @ (self.U.T @ u)) if self.k else (lambda u: 0.0 * u)
        w = [mu, self.s * mu + low(mu), self.s * mu + lowT(mu)]          # mu, (s + L) mu, (s + L^T) mu
        zero = np.zeros_like(mu)
        Qf = np.empty((3, 2, 2, 3))                                        # Qf[a, r, r', b] = w_a^T Xbar_rr' w_b
        for b in range(3):
            for rp in range(2):
                y = self.solve(state, *((w[b], zero) if rp == 0 else (zero, w[b])))[:2]
                for r in range(2):
                    Qf[:, r, rp, b] = [w[a] @ y[r] for a in range(3)]
        lw, rw = (2, 1), (1, 2)                    # S0_a^T mu and S0_a mu among w (S0 = s + L, s + L^T)
        # A[a, r, e] = v^2 sum_c F'_ce kappa_ae x_rc (left rule); B[a', r', c] = v^2 sum_e F'_ce kappa_ea' x_er'
        A = v2 * np.einsum("ce,ae,rc->are", Fp, ka, x)
        B = v2 * np.einsum("ce,ea,er->arc", Fp, ka, x)
        mm = float(mu @ mu)

        def form(P, r, rp, Q):                     # E mu^T P Xbar_{r r'} Q mu, P, Q in {None, 0, 1} (None: I)
            li = 0 if P is None else lw[P]
            ri = 0 if Q is None else rw[Q]
            val = Qf[li, r, rp, ri]
            if P is not None:
                val -= A[P, r] @ Qf[0, :, rp, ri]
            if Q is not None:
                val -= B[Q, rp] @ Qf[li, r, :, 0]
            if P is not None and Q is not None:
                val += v2 * ka[P, Q] * x[r, rp] * mm + A[P, r] @ Qf[0, :, :, 0] @ B[Q, rp]
            return val

        left, right = (0, 1, None), (1, 0, None)     # v_i^T = mu^T (M, M^T, I)_i, v_j = (M^T, M, I)_j mu

        def yform(i, b, j):                        # E v_i^T Y_ib v_j, Y the 3p pencil's inverse (kernel.Factored)
            P, Q = left[i], right[j]
            if i < 2 and b < 2:
                return form(P, i, b, Q)
            if i < 2:
                return -sum(F[cc, 2] * form(P, i, cc, Q) for cc in range(2)) / d33
            if b < 2:
                return -sum(F[2, cc] * form(cc, cc, b, Q) for cc in range(2)) / d33
            base = mm if Q is None else float(mu @ w[rw[Q]])
            return base / d33 + sum(F[2, cc] * form(cc, cc, e, Q) * F[e, 2]
                                    for cc in range(2) for e in range(2)) / d33 ** 2

        wv = np.array([1.0, 1.0, c])
        out = np.zeros((3, 3))
        for i in range(3):
            for j in range(3):
                if j < 2:
                    out[i, j] = sum(yform(i, b, j) * wv[b] * t[b, j] for b in range(3)) / wv[i]
                else:
                    out[i, j] = ((i == 2) * mm - yform(i, 2, 2)) / wv[i]
        return out


class _ModelData(MatrixData):
    """MatrixData whose p-side traces come from a model (no p x p algebra)."""

    def __init__(self, M: np.ndarray, model: EllipticModel):
        super().__init__(M)
        self.tau_model = model


def attention_error_elliptic(f: Any, c: float, gamma: Any, weights: Any, d: float = 0.0, *, rank: int = 0,
                             mu: Any = None) -> np.ndarray:
    r""":math:`E_\mathrm{attn}(\gamma)` of the model :math:`sI + L + E` of M (module docstring), the cheaper comparison model.

    Parameters
    ----------
    f, c, gamma, weights, d
        As in :func:`~symrmt.general.attention_error_general`.
    rank : int
        k, the number of top singular directions of :math:`M - (\operatorname{tr}M/p)I` kept exactly (0: the
        three-number model :math:`sI + E`; p: M itself).
    mu : array_like (p,), optional
        The signal vector; its vectors :math:`M\mu`, :math:`M^\top\mu` are M's own (module docstring).

    Returns
    -------
    numpy.ndarray
        :math:`E_\mathrm{attn}` with the shape of ``gamma``.

    Raises
    ------
    ParameterError
        As :func:`~symrmt.general.attention_error_general`, or a ``rank`` outside 0..p.
    ConvergenceError
        When some point cannot be solved.

    See Also
    --------
    attention_error_general : The theory of M itself.

    Examples
    --------
    With every direction kept (``rank = p``) the model is M itself, so it equals the exact theory:

    >>> import numpy as np
    >>> from symrmt.general import attention_error_elliptic, attention_error_general
    >>> M = np.eye(60) + 0.5 * np.random.default_rng(0).standard_normal((60, 60)) / np.sqrt(60)
    >>> model = attention_error_elliptic("tanh(x)", 1.0, [0.1, 1.0], M, rank=60)
    >>> bool(np.allclose(model, attention_error_general("tanh(x)", 1.0, [0.1, 1.0], weights=M), atol=1e-8))
    True
    """
    return solve_elliptic(f, c, gamma, weights, d, rank=rank, mu=mu).error.reshape(np.shape(gamma))


def solve_elliptic(f: Any, c: float, gamma: Any, weights: Any, d: float = 0.0, *, rank: int = 0,
                   mu: Any = None) -> GeneralSolution:
    """The :class:`~symrmt.general.solver.GeneralSolution` of the elliptic model (arguments of
    :func:`attention_error_elliptic`), the arguments read once (:func:`~symrmt.general.solver.read_arguments`)."""
    f, c, gam, d = read_arguments(f, c, gamma, d)
    M = read_weight_matrix(weights).dense()
    p = M.shape[0]
    if isinstance(rank, bool) or not isinstance(rank, (int, np.integer)) or not 0 <= rank <= p:
        raise ParameterError(f"rank = {rank!r}: the number of singular directions kept must be an integer in 0..{p}.")
    if mu is not None:
        mu = signal_vector(mu, p)
    with blas_limit(p):
        data = _ModelData(M, EllipticModel.matched(M, int(rank)))
        herm = scaled_hermite(f, data.sigma, data.rho)
        return solve_path(PathSystem(data, herm, c, d, mu), gam, 2e-5)
