r"""Independent derivations that the property suite holds the theory to.

Nothing here imports :mod:`symrmt`: every number below is derived by hand from the
model of docs/theory.md (sections 1-5) and evaluated with NumPy/SciPy, so that a wrong
step in ``symrmt/derive`` cannot be reproduced here by construction.

Notation (docs/theory.md): :math:`A = Z^\top Z/p` is :math:`n\times n` with spectral law
Marchenko--Pastur of ratio :math:`q = n/p = 1/c` (mean 1, atom :math:`(1-c)_+` at
0); :math:`C = X^\top X/n = cA + P/n`, :math:`P = s y^\top + y s^\top + \theta y y^\top`,
:math:`s = Z^\top\mu`; :math:`K \simeq K_N + L`,
:math:`K_N = a_1 A + \kappa I + b W/\sqrt p`, :math:`\kappa = d - a_1`. Three rules
give every limit of a normalized quadratic form used below (for :math:`y` independent
of :math:`Z`, :math:`u, v` deterministic, :math:`F` a function of :math:`A`):

* :math:`y^\top F(A) y/n \to \mathbb E_\lambda F(\lambda)`;
* :math:`(Z^\top u)^\top F(A)(Z^\top v)/n \to (u^\top v)\,\mathbb E_\lambda[\lambda F(\lambda)]`,
  because :math:`Z F(A) Z^\top/n = c\,B F(B)` with :math:`B = ZZ^\top/p` (same nonzero
  eigenvalues as :math:`A`), :math:`u^\top B F(B) v \to (u^\top v)\operatorname{tr}(BF(B))/p`
  and :math:`\operatorname{tr}(BF(B))/p = \mathbb E_\lambda[\lambda F(\lambda)]/c`;
* mixed forms :math:`y^\top F(A) Z^\top u/n \to 0`, and any form linear in the Wigner
  matrix :math:`W` vanishes, while :math:`x^\top (W/\sqrt p) F (W/\sqrt p) x/n \to
  (\operatorname{tr}F/p)\,\|x\|^2/n`.

Marchenko--Pastur moments (ratio :math:`q = 1/c`): :math:`\mathbb E\lambda = 1`,
:math:`\mathbb E\lambda^2 = 1 + q`, :math:`\mathbb E\lambda^3 = 1 + 3q + q^2`,
:math:`\mathbb E\lambda^{-2} = (1 - q)^{-3}` for :math:`q < 1`.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

__all__ = [
    "mp_moments", "mp_stieltjes", "large_gamma_m1", "linear_m1", "signal_resolvent",
    "kernel_polynomial_error", "linear_f_attention_error", "linear_regression_error",
    "section3_noise_only", "wishart_square_limit", "linear_small_c_limit", "large_c_ridge_limit",
    "linear_large_c_slope", "a1_zero_error",
    "Extrapolation", "extrapolate", "gauss_legendre_on_line",
]


# --------------------------------------------------------------------------- Marchenko-Pastur


def mp_moments(c: float) -> tuple[float, float, float]:
    r""":math:`(\mathbb E\lambda, \mathbb E\lambda^2, \mathbb E\lambda^3)` for the law of :math:`A = Z^\top Z/p`, :math:`q = 1/c`."""
    q = 1.0 / c
    return 1.0, 1.0 + q, 1.0 + 3.0 * q + q * q


def mp_stieltjes(w, q: float):
    r""":math:`s(w) = \mathbb E[1/(\lambda - w)]` over MP of ratio :math:`q` (atom :math:`1 - 1/q` at 0 if :math:`q > 1`), and :math:`s'(w)`.

    :math:`s` solves :math:`q w s^2 + (w - 1 + q) s + 1 = 0`; the root is
    :math:`s = [(1 - q - w) + \sqrt{w - \lambda_-}\sqrt{w - \lambda_+}]/(2qw)` with
    principal square roots, which is analytic off :math:`[\lambda_-, \lambda_+]`,
    behaves as :math:`-1/w` at infinity, and has the pole
    :math:`-(1 - 1/q)/w` at 0 when :math:`q > 1` (the atom). Differentiating the
    quadratic: :math:`s' = -(q s^2 + s)/(2 q w s + w - 1 + q)`. Valid for every
    :math:`w` off the support (complex, or real outside it).
    """
    w = np.asarray(w, dtype=complex)
    lower, upper = (1 - np.sqrt(q)) ** 2, (1 + np.sqrt(q)) ** 2
    s = ((1 - q - w) + np.sqrt(w - lower) * np.sqrt(w - upper)) / (2 * q * w)
    ds = -(q * s**2 + s) / (2 * q * w * s + w - 1 + q)
    return s, ds


# --------------------------------------------------------------------------- large gamma


def large_gamma_m1(a1: float, nu: float, c: float, d: float, theta: float = 0.0, alpha_K: float = 0.0,
                   alpha_Q: float = 0.0, omega_KK: float = 0.0) -> float:
    r"""First moment :math:`m_1 = \lim y^\top K^\top C K y/n` of the spectral measure of :math:`y`.

    With :math:`G = K^\top C K` and :math:`Q = (\gamma + G)^{-1}`,
    :math:`y^\top Q y/n = 1/\gamma - m_1/\gamma^2 + m_2/\gamma^3 - \dots`, hence
    :math:`E = -\gamma^2\,\mathrm d(y^\top Q y/n)/\mathrm d\gamma = 1 - 2m_1/\gamma + 3m_2/\gamma^2 - \dots`
    and :math:`\gamma(1 - E) \to 2 m_1`. :math:`m_1 = \|X K y\|^2/n^2` is computed
    from the Gaussian equivalent of docs/theory.md section 3, step by step:

    1. :math:`L y`: :math:`V_L^\top y = (y^\top y, s^\top y, q^\top y) = (n, O(\sqrt n), O(\sqrt n))`;
       the :math:`O(\sqrt n)` entries give vectors of norm :math:`O(1)`, negligible
       against norm :math:`O(\sqrt n)`. So :math:`L y \simeq (a_1 n/p)\,U_L\Sigma e_1
       = (a_1/c)[(\theta + \alpha_K\alpha_Q)\,y + s + \alpha_Q k]` (first column of
       :math:`\Sigma`: note :math:`\alpha_Q` multiplies :math:`k = Z^\top w_K`).
    2. Hence :math:`v = K y = (a_1 A + \kappa + \rho)\,y + Z^\top u + b\,W y/\sqrt p` with
       :math:`\rho = (a_1/c)(\theta + \alpha_K\alpha_Q)` and
       :math:`u = (a_1/c)(\mu + \alpha_Q w_K)`, so
       :math:`\|u\|^2 = (a_1/c)^2(\theta + 2\alpha_K\alpha_Q + \alpha_Q^2\|w_K\|^2)` and
       :math:`\mu^\top u = \rho`.
    3. :math:`v^\top (cA) v/n`: the three parts of :math:`v` do not mix (mixed forms
       vanish); the :math:`y` part gives :math:`c\,\mathbb E[\lambda(a_1\lambda + \kappa + \rho)^2]`,
       the :math:`Z^\top u` part :math:`c\|u\|^2\mathbb E\lambda^2`, the Wigner part
       :math:`c\,b^2\operatorname{tr}A/p = b^2`.
    4. :math:`v^\top (P/n) v/n = [2 (s^\top v)(y^\top v) + \theta (y^\top v)^2]/n^2` with
       :math:`y^\top v/n \to a_1 + \kappa + \rho = d + \rho` and
       :math:`s^\top v/n \to \mu^\top u\,\mathbb E\lambda = \rho`.

    .. math::

        m_1 = c\,\mathbb E[\lambda(a_1\lambda + \kappa + \rho)^2] + c\,(1 + 1/c)\,\|u\|^2 + b^2
              + 2\rho(d + \rho) + \theta (d + \rho)^2 .

    Checks: noise only gives :math:`c\,\mathbb E[\lambda(a_1\lambda + \kappa)^2] + b^2`;
    :math:`K = I` (:math:`a_1 = b = 0`, :math:`d = 1`) gives :math:`c + \theta`
    (:func:`linear_m1`). :math:`\|w_Q\|` and :math:`w_K^\top w_Q` do not enter
    :math:`m_1` (they appear from :math:`m_2` on).
    """
    b2, kappa = nu - a1 * a1, d - a1
    e1, e2, e3 = mp_moments(c)
    rho = a1 / c * (theta + alpha_K * alpha_Q)
    u2 = (a1 / c) ** 2 * (theta + 2 * alpha_K * alpha_Q + alpha_Q**2 * omega_KK)
    beta = kappa + rho
    y_part = a1 * a1 * e3 + 2 * a1 * beta * e2 + beta * beta * e1
    return c * y_part + c * e2 * u2 + b2 + 2 * rho * (d + rho) + theta * (d + rho) ** 2


def linear_m1(c: float, theta: float = 0.0) -> float:
    r""":math:`m_1 = y^\top (X^\top X/n) y/n = \|Z y + n\mu\|^2/n^2 \to c + \theta` for ridge regression on the raw tokens."""
    return c + theta


# --------------------------------------------------------------------------- f linear: K a polynomial in C


def signal_resolvent(z, c: float, theta: float):
    r""":math:`m(z) = y^\top (C - z)^{-1} y/n` and :math:`m'(z)` for :math:`C = cA + P/n` (signal, no weights).

    Woodbury with :math:`U = [y, s]/\sqrt n` and core :math:`[[\theta, 1], [1, 0]]`
    (:math:`P/n = U\,\mathrm{core}\,U^\top`): :math:`U^\top (C - z)^{-1} U =
    (D^{-1} + \mathrm{core})^{-1}` with :math:`D = U^\top (cA - z)^{-1} U \to
    \operatorname{diag}(g, \theta h)`, :math:`g = \mathbb E[1/(c\lambda - z)]`,
    :math:`h = \mathbb E[\lambda/(c\lambda - z)] = (1 + z g)/c`. The (1, 1) entry is

    .. math::

        m(z) = \frac{g}{1 + \theta\, g\,(1 - h)} .

    :math:`g(z) = s_{1/c}(z/c)/c` with :func:`mp_stieltjes`.
    """
    s, ds = mp_stieltjes(np.asarray(z, dtype=complex) / c, 1.0 / c)
    g, dg = s / c, ds / c**2
    h, dh = (1 + z * g) / c, (g + z * dg) / c
    den = 1 + theta * g * (1 - h)
    dden = theta * (dg * (1 - h) - g * dh)
    return g / den, (dg * den - g * dden) / den**2


def kernel_polynomial_error(kernel: np.poly1d, c: float, theta: float, gamma: float) -> tuple[float, float]:
    r""":math:`(E, \Phi)` for :math:`Q = (\gamma + C\,k(C)^2)^{-1}` with :math:`k` a polynomial, :math:`C = cA + P/n`.

    :math:`\Phi = \int \nu(\mathrm dx)/p(x)` and :math:`E = \gamma^2\int\nu(\mathrm dx)/p(x)^2`
    with :math:`p(x) = x\,k(x)^2 + \gamma` and :math:`\nu` the spectral measure of
    :math:`y` for :math:`C` (Stieltjes transform :math:`m`, :func:`signal_resolvent`).
    :math:`p > 0` on :math:`[0, \infty)`, so its roots :math:`z_j` lie off the
    spectrum, and partial fractions give (simple roots)

    .. math::

        \frac1{p} = \sum_j \frac{1}{p'(z_j)(x - z_j)},\qquad
        \frac1{p^2} = \sum_j \Big[\frac{1}{p'(z_j)^2 (x - z_j)^2} - \frac{p''(z_j)}{p'(z_j)^3 (x - z_j)}\Big],

    and :math:`\int\nu/(x - z) = m(z)`, :math:`\int\nu/(x - z)^2 = m'(z)`.
    """
    p = np.poly1d([1.0, 0.0]) * kernel * kernel + gamma
    dp, ddp = p.deriv(), p.deriv(2)
    phi, error = 0j, 0j
    for z in p.roots:
        m, dm = signal_resolvent(z, c, theta)
        phi += m / dp(z)
        error += dm / dp(z) ** 2 - ddp(z) / dp(z) ** 3 * m
    return float((gamma**2 * error).real), float(phi.real)


def linear_f_attention_error(a1: float, d: float, c: float, theta: float, gamma: float) -> tuple[float, float]:
    r"""Attention with :math:`\nu = a_1^2` (f linear, :math:`b = 0`), signal :math:`\theta`, no weights: :math:`(E, \Phi)`.

    With :math:`w_K = w_Q = 0` the low rank part is :math:`L = (a_1/p)P = (a_1/c)P/n`,
    so :math:`K = a_1 A + \kappa + L = (a_1/c)\,C + \kappa I` is a polynomial in
    :math:`C` and :math:`K^\top C K = C\,k(C)^2` with :math:`k(x) = a_1 x/c + \kappa`:
    the "polynomial in Wishart" case, solved by :func:`kernel_polynomial_error`.
    Noise only (:math:`\theta = 0`) this is
    :math:`E = \gamma^2\,\mathbb E_\lambda[(\gamma + c\lambda(a_1\lambda + \kappa)^2)^{-2}]`.
    """
    return kernel_polynomial_error(np.poly1d([a1 / c, d - a1]), c, theta, gamma)


def linear_regression_error(c: float, theta: float, gamma: float) -> tuple[float, float]:
    r""":math:`(E_\mathrm{lin}, \Phi_\mathrm{lin})`: :math:`k \equiv 1`, i.e. :math:`E = \gamma^2 m'(-\gamma)`, :math:`\Phi = m(-\gamma)`."""
    return kernel_polynomial_error(np.poly1d([1.0]), c, theta, gamma)


# --------------------------------------------------------------------------- section 3


@lru_cache(maxsize=16)
def _gauss_mp(c: float, nodes: int):
    """Composite 20-point Gauss-Legendre in phi on ``nodes // 20`` equal panels of (0, pi)."""
    q = 1.0 / c
    lower, upper = (1 - np.sqrt(q)) ** 2, (1 + np.sqrt(q)) ** 2
    x, wx = np.polynomial.legendre.leggauss(20)
    panels = max(1, nodes // 20)
    edges = np.linspace(0.0, np.pi, panels + 1)
    half = np.diff(edges)[:, None] / 2
    phi = ((edges[:-1, None] + edges[1:, None]) / 2 + half * x).ravel()
    dphi = (half * wx).ravel()
    lam = (upper + lower) / 2 - (upper - lower) / 2 * np.cos(phi)
    weight = dphi * ((upper - lower) / 2) ** 2 * np.sin(phi) ** 2 / (2 * np.pi * q * lam)
    return lam, weight, max(0.0, 1.0 - c)


@dataclass(frozen=True)
class _Section3:
    """docs/theory.md section 5 for one (a1, nu, c, d): the 2x2 pencil with (cA)^{-1}, Gauss-Legendre in phi."""

    a1: float
    nu: float
    c: float
    d: float
    nodes: int = 400

    def averages(self, t, gamma, jacobian=False):
        r""":math:`\mathbb E_\lambda[g_{11}, g_{12}, g_{22}]` (and their t-derivatives) as written in section 3."""
        lam, w, atom = _gauss_mp(self.c, self.nodes)
        b2, kappa, c = self.nu - self.a1**2, self.d - self.a1, self.c
        t11, t12, t22 = t
        alpha = gamma - b2 * t22
        beta = self.a1 * lam + kappa - b2 * t12
        delta = -1.0 / (c * lam) - b2 * t11
        den = alpha * delta - beta**2
        e = np.array([w @ (delta / den) + atom / alpha, w @ (-beta / den), w @ (alpha / den)])
        if not jacobian:
            return e
        zero = 0.0 * lam
        d2 = den**2
        # Rows g11, g12, g22; derivatives in alpha, beta, delta of delta/D, -beta/D, alpha/D (D = alpha delta - beta^2).
        by_alpha = np.array([-delta**2, beta * delta, -beta**2 + zero]) / d2
        by_beta = np.array([2 * beta * delta, -(alpha * delta + beta**2), 2 * alpha * beta]) / d2
        by_delta = np.array([-beta**2, alpha * beta, -alpha**2 + zero]) / d2
        # t11 enters delta, t12 enters beta, t22 enters alpha, each with the factor -b^2.
        jac = -b2 * np.column_stack([by_delta @ w, by_beta @ w, by_alpha @ w])
        jac[0, 2] += b2 * atom / alpha**2
        return e, jac

    def newton(self, t, gamma, tol):
        for _ in range(60):
            e, jac = self.averages(t, gamma, jacobian=True)
            residual = t - e / self.c
            if np.abs(residual).max() < tol * (1 + np.abs(t).max()):
                return t
            t = t - np.linalg.solve(np.eye(3) - jac / self.c, residual)
        raise RuntimeError(f"section-3 reference: Newton did not converge at gamma={gamma} for {self}")


def section3_noise_only(a1: float, nu: float, c: float, gammas, d: float = 0.0,
                        steps_per_decade: int = 10) -> tuple[np.ndarray, np.ndarray]:
    r"""Noise-only :math:`(E_\mathrm{attn}, (1/n)\operatorname{tr}Q)` from docs/theory.md section 5, solved independently.

    The 2x2 pencil :math:`[[\gamma, K_N], [K_N, -(cA)^{-1}]]` (not the package's 3x3
    one), :math:`t_{ab} = \mathbb E_\lambda[g_{ab}]/c` solved by Newton with the
    analytic Jacobian, continued from :math:`\gamma_0 = 100(1+c)(1+1/c)(1+\nu+d^2)`
    (where :math:`t \approx (1/(c\gamma_0), 0, 0)`) in steps of a tenth of a decade;
    :math:`\mathbb E_\lambda` by Gauss--Legendre in :math:`\varphi`
    (:math:`\lambda = m - h\cos\varphi`; composite 20-point Gauss panels, a different rule
    from the package's midpoint rule) with 400, 1200, 3600, ... nodes until two successive rules agree to
    :math:`10^{-10}` in E and relatively in :math:`\Phi` (f close to linear at small
    :math:`\gamma` makes the integrand a narrow peak and needs thousands of nodes);
    :math:`E = -\gamma^2\,\partial_\gamma E_\lambda[g_{11}]` by a five-point central
    difference with :math:`h = 10^{-3}\gamma` (truncation :math:`O(h^4)`).
    """
    gammas = tuple(float(g) for g in np.atleast_1d(np.asarray(gammas, dtype=float)))
    args = (float(a1), float(nu), float(c), gammas, float(d))
    nodes = 400
    error, trace = _section3_cached(*args, nodes, steps_per_decade)
    while True:
        nodes *= 3
        finer_error, finer_trace = _section3_cached(*args, nodes, steps_per_decade)
        if np.all(np.abs(finer_error - error) <= 1e-10) and np.all(np.abs(finer_trace - trace) <= 1e-10 * trace):
            return finer_error.copy(), finer_trace.copy()
        if nodes > 40000:
            raise RuntimeError(f"section-3 reference: quadrature not converged with {nodes} nodes at {args}")
        error, trace = finer_error, finer_trace


@lru_cache(maxsize=256)
def _section3_cached(a1, nu, c, gammas, d, nodes, steps_per_decade):
    system = _Section3(a1, nu, c, d, nodes)
    gammas = np.array(gammas)
    top = 100.0 * (1 + c) * (1 + 1 / c) * (1 + nu + d * d)
    steps = int(np.ceil(steps_per_decade * np.log10(top / gammas.min())))
    t = np.array([1 / (c * top), 0.0, 0.0])
    error, trace = np.empty(gammas.size), np.empty(gammas.size)
    todo = sorted(range(gammas.size), key=lambda i: -gammas[i])
    for g in np.geomspace(top, gammas.min(), steps + 1):
        while todo and gammas[todo[0]] >= g:
            i = todo.pop(0)
            gi = gammas[i]
            ti = system.newton(t, gi, 1e-13)
            h = 1e-3 * gi
            v = [system.averages(system.newton(ti, gi + k * h, 1e-13), gi + k * h)[0] for k in (-2, -1, 1, 2)]
            error[i] = -gi**2 * (v[0] - 8 * v[1] + 8 * v[2] - v[3]) / (12 * h)
            trace[i] = system.averages(ti, gi)[0]
        t = system.newton(t, g, 1e-9)
    return error, trace


# --------------------------------------------------------------------------- limits in c


def wishart_square_limit(gamma, nu: float):
    r""":math:`\lim_{c\to\infty} E_\mathrm{attn}(\gamma)` for :math:`d = 0` (any fixed geometry): :math:`\sqrt{\gamma/(\gamma + 4\nu)}`.

    As :math:`p/n \to \infty`, :math:`A = I + O(c^{-1/2})`: :math:`\sqrt c(A - I)` and
    :math:`\sqrt c\,W/\sqrt p = W/\sqrt n` are both Wigner matrices of entry variance
    :math:`1/n`, independent, so :math:`\sqrt c\,K_N = \sqrt c(a_1 (A - I) + d + b W/\sqrt p)`
    with :math:`d = 0` tends to a Wigner matrix of variance :math:`\nu/n`
    (:math:`a_1^2 + b^2 = \nu`); :math:`L = O(1/c)` and :math:`P/n = O(1)` against
    :math:`cA = O(c)` drop out. So :math:`K^\top C K \to (\sqrt c K_N)^2 = \nu\,S^2`,
    :math:`S` semicircular on :math:`[-2, 2]`, and :math:`S^2` is MP of ratio 1. For
    MP(1), :math:`\mathbb E[1/(x + t)] = (\sqrt{1 + 4/t} - 1)/2`, so
    :math:`E(t) = -t^2\partial_t(\cdot) = (1 + 4/t)^{-1/2}`; here :math:`t = \gamma/\nu`.
    """
    gamma = np.asarray(gamma, dtype=float)
    return np.sqrt(gamma / (gamma + 4 * nu))


def linear_small_c_limit(gamma, theta: float):
    r""":math:`\lim_{c\to 0} E_\mathrm{lin}(\gamma) = \frac{1}{1+\theta} + \frac{\theta}{1+\theta}\big(\frac{\gamma}{\gamma + 1 + \theta}\big)^2`.

    As :math:`c \to 0`, :math:`cA \to 0` on the direction of :math:`y` (:math:`y^\top cA y/n = c`)
    but not on :math:`\hat s = s/\sqrt{n\theta}`, which lives in the row space of
    :math:`Z`: :math:`\hat s^\top cA \hat s \to c\,\mathbb E\lambda^2 = 1 + c \to 1`. In the
    orthonormal pair :math:`(\hat y, \hat s)` the data Gram is
    :math:`[[\theta, \sqrt\theta], [\sqrt\theta, 1]]` (eigenvalues 0 and :math:`1 + \theta`,
    weight of :math:`\hat y` on the second :math:`\theta/(1+\theta)`), and :math:`y`
    has no other component. So the spectral measure of :math:`y` tends to
    :math:`\frac{1}{1+\theta}\delta_0 + \frac{\theta}{1+\theta}\delta_{1+\theta}`. With
    :math:`\theta = 0`: :math:`E_\mathrm{lin} = 1 - c\,(1 + 2\gamma)/(1 + \gamma)^2 + O(c^2)` (mass
    :math:`1 - c` at 0 and mass :math:`c` at :math:`c\lambda \approx 1`).
    """
    gamma = np.asarray(gamma, dtype=float)
    return 1 / (1 + theta) + theta / (1 + theta) * (gamma / (gamma + 1 + theta)) ** 2


def large_c_ridge_limit(g):
    r""":math:`\lim_{c\to\infty} E(\gamma = g\,c\,s^2) = (g/(1 + g))^2` when :math:`K \to sI` (linear: :math:`s = 1`; attention: :math:`s = d \ne 0`).

    As :math:`c \to \infty`, :math:`A = I + O(c^{-1/2})`, :math:`K = sI + O(c^{-1/2})` (the
    noise kernel :math:`a_1(A - I) + bW/\sqrt p` and :math:`L` vanish), so
    :math:`K^\top C K/(c s^2) = A + O(c^{-1/2})` and the spectral measure of y for it tends
    to :math:`\delta_1`; with the ridge scaled as :math:`\gamma = g c s^2`,
    :math:`E = \int\nu(\mathrm dx)\,(g/(g + x))^2 \to (g/(1 + g))^2`. (At fixed
    :math:`\gamma` this says :math:`E \sim \gamma^2/(c s^2)^2 \to 0`; scaling the ridge keeps
    :math:`E = O(1)`, where the solver's absolute accuracy is meaningful.)
    """
    g = np.asarray(g, dtype=float)
    return (g / (1 + g)) ** 2


def linear_large_c_slope(g, theta: float):
    r""":math:`\lim_{c\to\infty} c\,[E_\mathrm{lin}(g c) - (g/(1+g))^2] = \frac{3g^2}{(1+g)^4} - \frac{2\theta g^2}{(1+g)^3}`.

    :math:`E_\mathrm{lin}(gc) = g^2\,y^\top (g + A + P/(nc))^{-2} y/n`. With
    :math:`A = I + \Delta`, :math:`\mathbb E\Delta = 0` and :math:`\mathbb E\Delta^2 = 1/c` in the
    spectral measure of y (MP: :math:`\mathbb E\lambda^2 - 1 = 1/c`), the second-order
    Taylor term of :math:`(g + \lambda)^{-2}` gives :math:`3/(c(1+g)^4)`; the :math:`P` term
    gives :math:`-2\,y^\top P y/(n^2 c)\,(1+g)^{-3} \to -2\theta/(c(1+g)^3)` (first order,
    :math:`A \to I`); both times :math:`g^2`.
    """
    g = np.asarray(g, dtype=float)
    return 3 * g**2 / (1 + g) ** 4 - 2 * theta * g**2 / (1 + g) ** 3


# --------------------------------------------------------------------------- a1 = 0


def a1_zero_error(nu: float, c: float, gamma) -> np.ndarray:
    r""":math:`E_\mathrm{attn}` for :math:`a_1 = 0`, :math:`d = 0` (docs/theory.md section 12): a cubic in :math:`x = \gamma\Phi`.

    With :math:`a_1 = \kappa = 0` the symmetry :math:`\Xi \to -\Xi` gives :math:`t_{12} = 0`, the signal
    decouples and :math:`\Phi = 1/(\gamma - \nu t_{22})`. The remaining equation
    :math:`\gamma\Phi = \mathbb E_\lambda[1/(1 + \nu\Phi\lambda)]` with the Marchenko--Pastur quadratic gives

    .. math::

        \nu x^2 (x + c - 1) = c\gamma(1 - x), \qquad x \in (\max(0, 1 - c), 1),

    whose left side minus right side increases on that interval (negative at its lower end,
    :math:`\nu c` at 1), so the physical root is unique; implicit differentiation gives
    :math:`E = x - \gamma x' = x - c\gamma(1 - x)/(\nu(3x^2 + 2(c - 1)x) + c\gamma)`.
    """
    out = []
    lower = max(0.0, 1.0 - c)
    for g in np.atleast_1d(np.asarray(gamma, float)):
        roots = np.roots([nu, nu * (c - 1), c * g, -c * g])
        real = roots[(np.abs(roots.imag) <= 1e-9 * (1 + np.abs(roots.real)))].real
        inside = real[(real > lower - 1e-12) & (real < 1 + 1e-12)]
        x = float(inside.max())
        out.append(x - c * g * (1 - x) / (nu * (3 * x * x + 2 * (c - 1) * x) + c * g))
    return np.array(out)


# --------------------------------------------------------------------------- quadrature on the real line


@lru_cache(maxsize=8)
def _legendre(nodes: int) -> tuple[np.ndarray, np.ndarray]:
    # SciPy's rule, not NumPy's leggauss: the latter solves a dense eigenproblem (400 nodes: 0.02 s of CPU on one
    # thread, 0.2-0.5 s when OpenBLAS's threads contend on a loaded machine)
    from scipy.special import roots_legendre  # heavy: SciPy's special functions

    return roots_legendre(nodes)


def gauss_legendre_on_line(center: float, scale: float, reach: float, nodes: int) -> tuple[np.ndarray, np.ndarray]:
    r"""Nodes and weights for :math:`\int_{x_0 - R}^{x_0 + R} g(x)\,\mathrm dx` through :math:`x = x_0 + s\tan\vartheta`.

    :math:`\mathrm dx = s\sec^2\vartheta\,\mathrm d\vartheta` on :math:`|\vartheta| \le \arctan(R/s)`,
    Gauss--Legendre in :math:`\vartheta`: a density with Cauchy tails :math:`\propto 1/x^2` becomes a
    bounded, smooth integrand. The mass beyond :math:`\pm R` of a measure smoothed by the Cauchy
    kernel of width :math:`\eta` is :math:`2\eta/(\pi R)(1 + O((m/R)^2))` for a measure within
    :math:`m` of :math:`x_0`; the caller adds it.
    """
    t, w = _legendre(nodes)
    top = np.arctan(reach / scale)
    theta = t * top
    return center + scale * np.tan(theta), w * top * scale / np.cos(theta) ** 2


# --------------------------------------------------------------------------- extrapolation


@dataclass(frozen=True)
class Extrapolation:
    """A limit estimated by Richardson extrapolation, with a computed bound on its error."""

    value: np.ndarray
    bound: np.ndarray
    raw: np.ndarray


def extrapolate(values: np.ndarray) -> Extrapolation:
    r"""Limit of :math:`F(x) = F_\infty + a/x + b/x^2 + \dots` from :math:`F(x_0), F(2x_0), F(4x_0)` (stacked on axis 0).

    :math:`R_1 = 2F(2x_0) - F(x_0) = F_\infty - b/(2x_0^2) + \dots` and
    :math:`R_2 = 2F(4x_0) - F(2x_0) = F_\infty - b/(8x_0^2) + \dots`, so the error of
    :math:`R_2` is :math:`(R_2 - R_1)/3` to leading order; ``bound`` is
    :math:`|R_2 - R_1|`, three times that estimate.
    """
    f0, f1, f2 = np.asarray(values, dtype=float)
    r1, r2 = 2 * f1 - f0, 2 * f2 - f1
    return Extrapolation(r2, np.abs(r2 - r1), f2)
