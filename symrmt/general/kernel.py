r"""The numeric kernel of the general-M deterministic equivalent (docs/theory.md, section 18).

Everything that depends on the :math:`p \times p` weight matrix :math:`M` is computed here, numerically;
the rest of the system is a handful of scalars. The notation is that of docs/theory.md, section 18.

**Unknowns.** The symmetric :math:`3 \times 3` matrix :math:`t` of normalized traces of the n-side blocks of
the noise pencil, :math:`t_{bb'} = \operatorname{tr}(\mathcal R_{x_b x_{b'}})/p` (six numbers).

**The p-side (this module's job).** With :math:`w = (1, 1, c)` and :math:`\alpha = \mathbb E f'(\sigma\xi)`,

.. math::

    F = \begin{pmatrix} \alpha w_b t_{b2} & \alpha w_b t_{b1} & w_b t_{b3} \end{pmatrix}_{b=1,2,3},
    \qquad \mathcal Y = \big(I_{3p} + (F \otimes I_p)\,\mathrm{diag}(M, M^\top, I_p)\big)^{-1},

and the self-energy of the n-side needs only the nine normalized traces
:math:`\Theta_{bb'} = \operatorname{tr}(E_b \mathcal Y_{bb'})/p` (:math:`E = (M, M^\top, I)`). Eliminating the
third block (a multiple of :math:`I_p`) leaves :math:`\mathcal X = \begin{pmatrix} I + F'_{11}M & F'_{12}M^\top \\
F'_{21}M & I + F'_{22}M^\top\end{pmatrix}^{-1}` with :math:`F' = F_{[12][12]} - F_{[12]3}F_{3[12]}/(1 + F_{33})`;
:math:`F'_{11} = F'_{22} = a` because t is symmetric, and with :math:`e = F'_{12}F'_{21}` the diagonal blocks are
:math:`X_{11} = N^{-1}(I + aM^\top)`, :math:`X_{22} = N'^{-1}(I + aM)` for the **symmetric**

.. math::

    N = I + aH + (a^2 - e)M^\top M, \qquad N' = I + aH + (a^2 - e)MM^\top, \qquad H = M + M^\top

(:func:`pair_traces`). In the right (left) singular basis of M the Gram matrix is diagonal, so one evaluation
is two symmetric inverses (about :math:`2p^3` flops, run in two threads) and :math:`O(p^2)` traces, with the
exact derivatives of the traces in :math:`(a, e)` at no extra :math:`O(p^3)` cost; the SVD is done once per M.
"""
from __future__ import annotations

import functools
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import scipy.linalg as sla

from ..runtime.cpus import usable_cpus
from ..runtime.memory import room_for_thread

__all__ = ["MatrixData", "Factored", "p_side", "signal_forms", "coefficient_matrix", "pair_traces"]



class MatrixData:
    r"""What the kernel needs of :math:`M`, computed once: M, its transpose and the scalars
    :math:`\operatorname{tr}M/p`, :math:`\sigma^2 = \|M\|_F^2/p`, :math:`\rho = \operatorname{tr}(M^2)/\|M\|_F^2`;
    and, on first use, the singular value decomposition :math:`M = U S V^\top` with
    :math:`H = M + M^\top` written in both singular bases (:attr:`spectral`)."""

    def __init__(self, M: np.ndarray):
        M = np.ascontiguousarray(M, dtype=float)
        self.M = M
        self.MT = np.ascontiguousarray(M.T)
        self.p = M.shape[0]
        fro2 = float(np.sum(M * M))
        self.trace = float(np.trace(M)) / self.p
        self.sigma = np.sqrt(fro2 / self.p)
        self.rho = float(np.sum(M * self.MT)) / fro2 if fro2 > 0 else 0.0
        self._spectral = None

    @property
    def spectral(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        r""":math:`(S^2, V, V^\top H V, U, U^\top H U)`: in the basis V, :math:`M^\top M = \mathrm{diag}(S^2)`; in U,
        :math:`MM^\top = \mathrm{diag}(S^2)`. One SVD and four products, once per M."""
        if self._spectral is None:
            U, s, Vt = np.linalg.svd(self.M)
            H = self.M + self.MT
            V = np.ascontiguousarray(Vt.T)
            HV, HU = V.T @ H @ V, U.T @ H @ U
            self._spectral = (s * s, V, 0.5 * (HV + HV.T), U, 0.5 * (HU + HU.T))
        return self._spectral


def coefficient_matrix(t: np.ndarray, alpha: float, c: float) -> np.ndarray:
    r""":math:`F` of the module docstring from the n-side traces :math:`t` (0-based columns 1, 0, 2 of t)."""
    w = np.array([1.0, 1.0, c])
    return np.column_stack([alpha * w * t[:, 1], alpha * w * t[:, 0], w * t[:, 2]])


def p_side(t: np.ndarray, data: MatrixData, alpha: float, c: float, core=None,
           derivatives: bool = False) -> tuple[np.ndarray, "Factored"]:
    r"""The p-side traces :math:`T_{bb'} = \operatorname{tr}(\mathcal R_{a(b), u_{b'}})/p` that feed the n-side,
    and the factorization they came from (reused by :func:`signal_forms`).

    :math:`T = -\operatorname{diag}(\alpha, \alpha, 1)\, \Pi\, \Theta` with :math:`\Pi` swapping the first two rows
    (the partner of :math:`x_1` is :math:`v_2 = \alpha M^\top u_2`, that of :math:`x_2` is :math:`v_1 = \alpha M u_1`).
    ``derivatives`` also computes the Jacobian of the three traces in ``args`` (:attr:`Factored.D`).
    """
    F = coefficient_matrix(t, alpha, c)
    fac = Factored(F, data, core, derivatives)
    T = -fac.theta[[1, 0, 2], :]
    T[:2] *= alpha
    return T, fac


class Factored:
    r"""One evaluation of the p-side at a given :math:`F`: :math:`\Theta` and solves with :math:`\mathcal Y`.

    The p-side depends on :math:`F` only through the three scalars ``args`` =
    :math:`(F'_{11}, F'_{22}, F'_{12}F'_{21}) = (a, a, e)` (:math:`F'_{11} = F'_{22}` because t is symmetric), by
    the three traces ``core`` = :math:`(\tau_{11}, u, \tau_{22})` of :func:`pair_traces`, with
    :math:`\tau_{12} = -F'_{12}u` and :math:`\tau_{21} = -F'_{21}u`. ``core`` may be given (a callable of
    ``args``), e.g. a linear model of it for a Jacobian; then nothing is factorized and :meth:`solve` is
    unavailable. With ``derivatives``, ``D`` holds :math:`\partial\,\mathrm{core}/\partial\,\mathrm{args}`
    (the derivative in a split evenly between the two equal arguments).
    """

    def __init__(self, F: np.ndarray, data: MatrixData, core=None, derivatives: bool = False):
        self.F, self.data = F, data
        d33 = 1.0 + F[2, 2]
        Fp = F[:2, :2] - np.outer(F[:2, 2], F[2, :2]) / d33
        self.d33, self.Fp = d33, Fp
        self.args = np.array([Fp[0, 0], Fp[1, 1], Fp[0, 1] * Fp[1, 0]])
        self.inverses = None
        self.D = None
        self.model_state = None
        if getattr(data, "tau_model", None) is not None:          # a model of M's *-distribution (elliptic.py)
            self.core = np.zeros(3)
            self._finish(F, data.tau_model(Fp))
            self.model_state = data.tau_model.state
            return
        if core is None:
            a = 0.5 * (self.args[0] + self.args[1])
            self.core, D2, self.inverses = pair_traces(data, a, self.args[2], derivatives)
            if D2 is not None:
                self.D = np.column_stack([0.5 * D2[:, 0], 0.5 * D2[:, 0], D2[:, 1]])
        else:
            self.core = np.asarray(core(self.args), dtype=float)
        t11, u, t22 = self.core
        tau = np.array([[t11, -Fp[0, 1] * u], [-Fp[1, 0] * u, t22]])
        self._finish(F, tau)

    def perturbed_inverses(self, args: np.ndarray) -> tuple["_Linearized", "_Linearized"]:
        r""":math:`N^{-1}`, :math:`N'^{-1}` at ``args`` to first order around this evaluation, as operators on vectors."""
        s2, _, HV, _, HU = self.data.spectral
        a0, a = 0.5 * (self.args[0] + self.args[1]), 0.5 * (args[0] + args[1])
        da, dg = a - a0, (a * a - args[2]) - (a0 * a0 - self.args[2])
        return tuple(_Linearized(Ni, Hb, s2, da, dg) for Ni, Hb in zip(self.inverses, (HV, HU)))

    def _finish(self, F: np.ndarray, tau: np.ndarray) -> None:
        d33 = self.d33
        Theta = np.empty((3, 3))
        Theta[:2, :2] = tau
        Theta[:2, 2] = -tau @ F[:2, 2] / d33
        Theta[2, :2] = -(F[2, :2] @ tau) / d33
        Theta[2, 2] = 1.0 / d33 + F[2, :2] @ tau @ F[:2, 2] / d33 ** 2
        self.theta = Theta

    def solve(self, r1: np.ndarray, r2: np.ndarray, r3: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        r""":math:`(x_1, x_2, x_3) = \mathcal Y (r_1, r_2, r_3)` by block elimination, O(p^2) per vector:
        :math:`x_1 = N^{-1}\big((I + aM^\top) r_1' - F'_{12}M^\top r_2'\big)`,
        :math:`x_2 = N'^{-1}\big((I + aM) r_2' - F'_{21}M r_1'\big)` (:func:`pair_traces`)."""
        F, Fp, d33 = self.F, self.Fp, self.d33
        if self.model_state is not None:                         # the model's deterministic equivalent (elliptic.py)
            r1p, r2p = r1 - F[0, 2] * r3 / d33, r2 - F[1, 2] * r3 / d33
            x1, x2, mx1, mtx2 = self.data.tau_model.solve(self.model_state, r1p, r2p)
            return x1, x2, (r3 - F[2, 0] * mx1 - F[2, 1] * mtx2) / d33
        if self.inverses is None:
            raise RuntimeError("this p-side was built from a linear model of its traces: nothing was factorized")
        M, MT = self.data.M, self.data.MT
        _, V, _, U, _ = self.data.spectral
        NiV, NiU = self.inverses
        a = 0.5 * (self.args[0] + self.args[1])
        r1p = r1 - F[0, 2] * r3 / d33
        r2p = r2 - F[1, 2] * r3 / d33
        x1 = V @ (NiV @ (V.T @ (r1p + a * (MT @ r1p) - Fp[0, 1] * (MT @ r2p))))
        x2 = U @ (NiU @ (U.T @ (r2p + a * (M @ r2p) - Fp[1, 0] * (M @ r1p))))
        x3 = (r3 - F[2, 0] * (M @ x1) - F[2, 1] * (MT @ x2)) / d33
        return x1, x2, x3


class _Linearized:
    r""":math:`(N + \delta N)^{-1} \approx N^{-1} - N^{-1}\,\delta N\,N^{-1}`, :math:`\delta N = \delta a\,H + \delta g\,S^2`,
    applied to vectors in :math:`O(p^2)` (``@``)."""

    def __init__(self, Ni: np.ndarray, Hb: np.ndarray, s2: np.ndarray, da: float, dg: float):
        self.Ni, self.Hb, self.s2, self.da, self.dg = Ni, Hb, s2, da, dg

    def __matmul__(self, v: np.ndarray) -> np.ndarray:
        y = self.Ni @ v
        return y - self.Ni @ (self.da * (self.Hb @ y) + self.dg * (self.s2 * y))


def pair_traces(data: MatrixData, a: float, e: float, derivatives: bool = False):
    r"""The three p-side traces at :math:`(F'_{11}, F'_{22}, F'_{12}F'_{21}) = (a, a, e)`, from two symmetric inverses.

    Block elimination of :math:`\begin{pmatrix} I + aM & F'_{12}M^\top \\ F'_{21}M & I + aM^\top\end{pmatrix}` gives
    :math:`X_{11} = N^{-1}(I + aM^\top)` and :math:`X_{22} = N'^{-1}(I + aM)` with the **symmetric**

    .. math::

        N = I + aH + gM^\top M, \qquad N' = I + aH + gMM^\top, \qquad H = M + M^\top, \quad g = a^2 - e

    (:math:`(I + aM^\top)(I + aM) - eM^\top M`, since :math:`I + aM^\top` commutes with :math:`M^\top`). Hence

    .. math::

        \tau_{11} = \tfrac1p\operatorname{tr}(MX_{11}) = \tfrac{s}{2} + a u, \quad
        u = \tfrac1p\operatorname{tr}(N^{-1}M^\top M) = \tfrac1p\operatorname{tr}(W X_{11}), \quad
        \tau_{22} = \tfrac1p\operatorname{tr}(M^\top X_{22}) = \tfrac{s'}{2} + a u',

    with :math:`s = \operatorname{tr}(N^{-1}H)/p` (and primes for :math:`N'`). In the right (left) singular basis
    of M, :math:`M^\top M` (:math:`MM^\top`) is the diagonal :math:`S^2`, so each evaluation is one symmetric
    inverse per matrix (about :math:`p^3` flops each) and :math:`O(p^2)` traces. The derivatives in
    :math:`(a, g)` are :math:`-\operatorname{tr}(N^{-1}HN^{-1}H)`, :math:`-\operatorname{tr}(N^{-1}HN^{-1}S^2)`,
    :math:`-\operatorname{tr}(N^{-1}S^2N^{-1}S^2)`; the last is :math:`O(p^2)`, and the others follow from
    :math:`aH = N - I - gS^2` without a product when :math:`|a|` is not small (one product otherwise).

    Returns ``(core, D, inverses)``: core = :math:`(\tau_{11}, u, \tau_{22})`, D its derivatives in
    :math:`(a, e)` (3 x 2, or None) and the two inverses in their singular bases.
    """
    s2, V, HV, U, HU = data.spectral
    g = a * a - e
    jobs = [(HV, s2, a, g, derivatives), (HU, s2, a, g, derivatives)]
    pool = _pool() if data.p >= _PARALLEL_P and room_for_thread(8.0 * data.p**2) else None   # ulimit -v
    if pool is not None:
        (s, u, ds, du, NiV), (s_, u_, ds_, du_, NiU) = pool.map(lambda job: _one_matrix(*job), jobs)
    else:
        (s, u, ds, du, NiV), (s_, u_, ds_, du_, NiU) = (_one_matrix(*job) for job in jobs)
    core = np.array([0.5 * s + a * u, u, 0.5 * s_ + a * u_])
    if not derivatives:
        return core, None, (NiV, NiU)
    D = np.empty((3, 2))
    for row, (sv, uv, dsv, duv) in ((0, (s, u, ds, du)), (2, (s_, u_, ds_, du_))):
        # chain rule from (a, g) to (a, e), g = a^2 - e, for tau = s/2 + a u
        ds_da, ds_de = dsv[0] + 2 * a * dsv[1], -dsv[1]
        du_da, du_de = duv[0] + 2 * a * duv[1], -duv[1]
        D[row] = (0.5 * ds_da + uv + a * du_da, 0.5 * ds_de + a * du_de)
        if row == 0:
            D[1] = (du_da, du_de)
    return core, D, (NiV, NiU)


def _one_matrix(Hb: np.ndarray, s2: np.ndarray, a: float, g: float, derivatives: bool):
    r""":math:`s = \operatorname{tr}(N^{-1}H)/p`, :math:`u = \operatorname{tr}(N^{-1}S^2)/p` for :math:`N = I + aH + g S^2`
    (H in the basis where the Gram matrix is :math:`S^2`), their gradients in :math:`(a, g)` and :math:`N^{-1}`."""
    p = len(s2)
    N = a * Hb
    N.flat[::p + 1] += 1.0 + g * s2
    Ni = _sym_inverse(N)
    dNi = Ni.diagonal()
    s = float(Ni.ravel() @ Hb.ravel()) / p
    u = float(dNi @ s2) / p
    if not derivatives:
        return s, u, None, None, Ni
    Ni2 = Ni * Ni
    rows = Ni2 @ np.column_stack([s2, np.ones(p)])                        # sum_j N^-1_kj^2 (s2_j, 1)
    gg = float(s2 @ rows[:, 0]) / p                                        # tr(N^-1 S^2 N^-1 S^2)/p
    if abs(a) > _A_SMALL:
        # tr(N^-1 H N^-1 S^2) and tr(N^-1 H N^-1 H) from aH = N - I - gS^2: no p x p product
        trN, trNS = float(dNi.sum()), u * p
        trN2, trN2S = float(rows[:, 1].sum()), float(s2 @ rows[:, 1])
        hg = (trNS - trN2S - g * gg * p) / (a * p)
        hh = (p - 2 * trN - 2 * g * trNS + trN2 + 2 * g * trN2S + g * g * gg * p) / (a * a * p)
    else:
        A = Ni @ Hb                                                        # N^-1 H
        hh = float(np.sum(A * A.T)) / p
        hg = float(np.sum(A * (s2[:, None] * Ni))) / p                   # tr(N^-1 H N^-1 S^2)/p
    return s, u, (-hh, -hg), (-hg, -gg), Ni


#: below this |a| the derivatives take one p x p product instead of the identity aH = N - I - gS^2, whose
#: cancellation loses about eps/a^2 in relative accuracy
_A_SMALL = 0.05


def _sym_inverse(N: np.ndarray) -> np.ndarray:
    """The inverse of a symmetric (possibly indefinite) matrix: Bunch-Kaufman LDL^T (LAPACK sytrf/sytri)."""
    lu, piv, info = sla.lapack.dsytrf(N, lower=1)
    if info == 0:
        Ni, info = sla.lapack.dsytri(lu, piv, lower=1)
    if info != 0:
        return np.linalg.inv(N)                                   # singular to working precision: let LU say so
    Ni = np.tril(Ni)
    Ni += np.tril(Ni, -1).T
    return Ni


@functools.lru_cache(maxsize=1)
def _pool():
    """Two worker threads for the two symmetric inverses (LAPACK releases the GIL), if two CPUs are usable."""
    if usable_cpus() < 2:
        return None
    return ThreadPoolExecutor(max_workers=2, thread_name_prefix="symrmt-general")


#: the two inverses run in parallel from this p on (below it the threads' overhead is larger than the gain)
_PARALLEL_P = 128


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
