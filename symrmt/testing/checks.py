r"""The property catalogue: derived statements about the theory, each a plain function of a theory and a point.

Each ``check_*`` takes a :class:`~symrmt.testing.theories.Theory` and a
:class:`~symrmt.testing.theories.Point` and returns the worst :class:`Deviation` it saw (the
largest gap between a computed value and what the property says, with the tolerance that
comparison had), or raises :class:`PropertyViolation` (an AssertionError) saying which
derived statement failed and by how much. A theory that refuses to give a physical answer
(:class:`~symrmt.errors.ConvergenceError`) violates the property too. :data:`CATALOGUE` holds
them as :class:`Property` objects with their statement, the region where they hold and the
reason; :func:`symrmt.testing.verify` runs them all on one f, and :mod:`symrmt.testing.planted`
shows that each one catches some planted error.

Tolerances. The solver's embedded estimate certifies the coarse rule (a third of the
nodes) to ``symrmt.solve.QUADRATURE_TOLERANCE``; the integrand is analytic and periodic in
the angle variable, so the error decays geometrically in the number of nodes and the full
rule is accurate to about the cube of that, i.e. to round-off, and Newton stops at 1e-11.
Newton's stopping rule is relative to the largest unknown (of order 1/gamma at a small ridge), so the solver
takes one more Newton step at each target (``symrmt.solve.settings.REFINEMENTS``); without it the cubic of
:func:`check_a1_zero` was missed by up to 5.5e-8 at gamma = 0.01 (a CI draw at nu = 4.25, c = 0.503) and by
more than 1e-10 at 37 of 300 random (nu, c). Measured with it: |E - reference| <= 2e-11 for the noise pencil
and <= 3.1e-12 for the a1 = 0 cubic over 300 random (nu, c) on the grid below (tests/solve/test_solve.py
asserts the CI draw). ``SOLVER_ATOL = 3e-8`` therefore leaves a wide margin for every exact
identity and for comparisons with the exact references (the noise-pencil reference, which
has its own quadrature, is given 1e-6). Limits are taken by Richardson extrapolation
(:func:`.reference.extrapolate`), whose error bound is computed from the data rather
than chosen.
"""
from __future__ import annotations

import math

import numpy as np

from ..theory.softmax import softmax_hermite
from . import reference as ref
from .deviations import Deviation, Property, PropertyViolation, at_most, close, measured
from .theories import Point, Theory

__all__ = ["PropertyViolation", "Deviation", "Property", "CATALOGUE", "GAMMAS", "SOLVER_ATOL", "catalogue_markdown"] + [
    "check_bounds_and_monotonicity", "check_large_gamma", "check_sign_symmetry", "check_scale_law",
    "check_label_symmetry", "check_weight_rescaling", "check_one_sided_weights", "check_a1_zero",
    "check_a1_zero_with_diagonal", "check_noise_only", "check_linear_f", "check_linear_regression",
    "check_small_c", "check_large_c", "check_error_is_derivative_of_phi", "check_ridgeless",
    "check_rank_reduction", "check_softmax_large_temperature", "check_density_normalized",
]

#: A c this close to 1 is moved to 1 by :func:`check_noise_only` (its reference's quadrature needs it).
NEAR_ONE = 1e-3
#: Default ridge grid (the solver's comfortable range).
GAMMAS = np.geomspace(1e-2, 1e2, 9)
#: Absolute tolerance of an exact identity checked on the solver's numbers (the module docstring says why).
SOLVER_ATOL = 3e-8


# --------------------------------------------------------------------------- 1. bounds, monotonicity, large gamma


@measured
def check_bounds_and_monotonicity(theory: Theory, point: Point, gammas=GAMMAS) -> None:
    r""":math:`0 \le (\gamma\Phi)^2 \le E \le \gamma\Phi \le 1` and :math:`E` nondecreasing in :math:`\gamma`, attention and linear.

    :math:`\Phi(\gamma) = y^\top Q y/n = \int\nu(\mathrm dx)/(\gamma + x)` for the spectral
    measure :math:`\nu` of :math:`y/\sqrt n` for :math:`K^\top C K \succeq 0` (a probability
    measure on :math:`[0, \infty)`), and :math:`E = \int\nu(\mathrm dx)\,(\gamma/(\gamma + x))^2`
    (docs/theory.md section 1). Pointwise :math:`r^2 \le r \le 1` for :math:`r = \gamma/(\gamma + x)`
    gives :math:`E \le \gamma\Phi \le 1`, Jensen gives :math:`E \ge (\gamma\Phi)^2`, and
    :math:`r` increases with :math:`\gamma`.
    """
    gammas = np.sort(np.asarray(gammas, float))
    for label, result in (("attention", theory.attention(point, gammas)), ("linear", theory.linear(point, gammas))):
        error, x = result.error, gammas * result.phi
        context = f"{label} {point}, gammas={gammas.tolist()}, E={error.tolist()}, gamma Phi={x.tolist()}"
        at_most("E >= 0", -error, 0.0, SOLVER_ATOL, context)
        at_most("(gamma Phi)^2 <= E", x**2, error, SOLVER_ATOL, context)
        at_most("E <= gamma Phi", error, x, SOLVER_ATOL, context)
        at_most("gamma Phi <= 1", x, 1.0, SOLVER_ATOL, context)
        at_most("E nondecreasing in gamma", -np.diff(error), 0.0, SOLVER_ATOL, context)


@measured
def check_large_gamma(theory: Theory, point: Point) -> None:
    r""":math:`\gamma(1 - E(\gamma)) \to 2 m_1` as :math:`\gamma \to \infty`, with :math:`m_1` from :func:`.reference.large_gamma_m1`.

    Evaluated at :math:`\gamma_0 = 10^3\max(1, 2m_1)`, :math:`2\gamma_0`, :math:`4\gamma_0` and
    extrapolated (:math:`\gamma(1 - E) = 2m_1 - 3m_2/\gamma + \dots`). Tolerance: the computed
    Richardson bound, plus :math:`10^{-4}\cdot 2m_1` for round-off in :math:`1 - E`
    (:math:`1 - E \approx 10^{-3}` here, so relative precision :math:`10^{-4}` of
    :math:`1 - E` needs :math:`E` to :math:`10^{-7}` relative; the solver is far better).
    Also E → 1 itself. The same for linear regression, :math:`m_1 = c + \theta`.

    With signal and asymmetric weights this sees the first column of :math:`\Sigma`
    (:math:`\alpha_Q` multiplying :math:`k`), the :math:`\tau^A` terms
    (:math:`\|u\|^2`, :math:`\mu^\top u`), the data block :math:`P/n` (:math:`\theta(d + \rho)^2`),
    the covariance map (:math:`b^2`) and :math:`\kappa` (:math:`c\,\mathbb E[\lambda(a_1\lambda + \kappa + \rho)^2]`).
    """
    p = point
    for label, solve, m1 in (
        ("attention", theory.attention,
         ref.large_gamma_m1(p.a1, p.nu, p.c, p.d, p.theta, p.alpha_K, p.alpha_Q, p.omega_KK)),
        ("linear", theory.linear, ref.linear_m1(p.c, p.theta)),
    ):
        gamma0 = 1e3 * max(1.0, 2 * m1)
        gammas = gamma0 * np.array([1.0, 2.0, 4.0])
        error = solve(point, gammas).error
        context = f"{label} {point}, gammas={gammas.tolist()}"
        close("E -> 1 as gamma -> oo", error, np.ones(3), 10 * (1 + 2 * m1) / gammas, context)
        ext = ref.extrapolate(gammas * (1 - error))
        close("gamma (1 - E) -> 2 m1", ext.value, 2 * m1, ext.bound + 1e-4 * 2 * m1 + 1e-9, context)


# --------------------------------------------------------------------------- 2. invariances


def _same_error(theory, name, first: Point, second: Point, gammas, second_gammas=None, atol=SOLVER_ATOL):
    gammas = np.asarray(gammas, float)
    a = theory.attention(first, gammas).error
    b = theory.attention(second, gammas if second_gammas is None else second_gammas).error
    close(name, b, a, atol, f"{first} vs {second}, gammas={gammas.tolist()}")
    return a, b


@measured
def check_sign_symmetry(theory: Theory, point: Point, gammas=GAMMAS) -> None:
    r"""f → −f with d → −d leaves :math:`E_\mathrm{attn}` unchanged: K → −K and :math:`K^\top C K` is even in K (exact, any geometry).

    In Hermite data: :math:`(a_1, \nu, d) \to (-a_1, \nu, -d)`.
    """
    _same_error(theory, "f -> -f, d -> -d", point, point.replace(a1=-point.a1, d=-point.d), gammas)


@measured
def check_scale_law(theory: Theory, point: Point, s: float = 1.7, gammas=GAMMAS) -> None:
    r"""The scale law: f → s f with d → s d maps :math:`E(\gamma)` to :math:`E(\gamma/s^2)`, i.e. :math:`E(sf, \gamma) = E(f, \gamma/s^2)`.

    K → sK, so :math:`Q_{sf}(\gamma) = (\gamma + s^2 G)^{-1} = s^{-2}Q_f(\gamma/s^2)` and
    :math:`E_{sf}(\gamma) = (\gamma^2/n)\,y^\top Q_{sf}^2 y = E_f(\gamma/s^2)` (exact, any
    geometry). In Hermite data :math:`(a_1, \nu, d) \to (s a_1, s^2\nu, s d)`; checked as
    :math:`E_{sf}(s^2\gamma) = E_f(\gamma)`.
    """
    gammas = np.asarray(gammas, float)
    scaled = point.replace(a1=s * point.a1, nu=s * s * point.nu, d=s * point.d)
    _same_error(theory, f"f -> {s:g} f maps E(gamma) to E(gamma/s^2)", point, scaled, gammas, s * s * gammas)


@measured
def check_label_symmetry(theory: Theory, point: Point, gammas=GAMMAS) -> None:
    r"""Labels y → −y change nothing.

    :math:`X = Z + \mu y^\top` is unchanged by :math:`(y, \mu) \to (-y, -\mu)`, E is even in y,
    and y, −y have the same law; so the theory must be invariant under
    :math:`\mu \to -\mu`: :math:`(\alpha_K, \alpha_Q) \to (-\alpha_K, -\alpha_Q)`,
    :math:`\theta` fixed. (The same map is :math:`(w_K, w_Q) \to (-w_K, -w_Q)`, which
    leaves :math:`M = I + w_K w_Q^\top` itself unchanged.)
    """
    _same_error(theory, "y -> -y", point, point.replace(alpha_K=-point.alpha_K, alpha_Q=-point.alpha_Q), gammas)


@measured
def check_weight_rescaling(theory: Theory, point: Point, t: float = 1.6, gammas=GAMMAS) -> None:
    r""":math:`(w_K, w_Q) \to (t w_K, w_Q/t)` leaves :math:`M = I + w_K w_Q^\top` and hence the model unchanged.

    Gram entries: :math:`\alpha_K \to t\alpha_K`, :math:`\alpha_Q \to \alpha_Q/t`,
    :math:`\|w_K\|^2 \to t^2\|w_K\|^2`, :math:`\|w_Q\|^2 \to \|w_Q\|^2/t^2`,
    :math:`w_K^\top w_Q` fixed. A theory that puts :math:`\alpha_K` where :math:`\alpha_Q`
    belongs in :math:`\Sigma` breaks this (docs/theory.md section 3 warns about the order).
    """
    moved = point.replace(alpha_K=t * point.alpha_K, alpha_Q=point.alpha_Q / t, omega_KK=t * t * point.omega_KK,
                          omega_QQ=point.omega_QQ / (t * t))
    _same_error(theory, f"(w_K, w_Q) -> ({t:g} w_K, w_Q/{t:g})", point, moved, gammas)


@measured
def check_one_sided_weights(theory: Theory, point: Point, gammas=GAMMAS) -> None:
    r"""With :math:`w_Q = 0` (or :math:`w_K = 0`) :math:`M = I`: the other weight vector, however aligned, changes nothing.

    Compared with :math:`w_K = w_Q = 0` at the same signal: keeping only
    :math:`(\alpha_K, \|w_K\|^2)` and keeping only :math:`(\alpha_Q, \|w_Q\|^2)`.
    """
    bare = point.without_weights()
    only_k = bare.replace(alpha_K=point.alpha_K, omega_KK=point.omega_KK)
    only_q = bare.replace(alpha_Q=point.alpha_Q, omega_QQ=point.omega_QQ)
    _same_error(theory, "w_Q = 0 => M = I", bare, only_k, gammas)
    _same_error(theory, "w_K = 0 => M = I", bare, only_q, gammas)


# --------------------------------------------------------------------------- 3. limits and special cases


@measured
def check_a1_zero(theory: Theory, point: Point, gammas=GAMMAS) -> None:
    r""":math:`a_1 = 0`, :math:`d = 0`: E does not depend on :math:`\|\mu\|` nor on the alignment, and more signal does not help.

    docs/theory.md section 12: :math:`L \propto a_1 = 0`, :math:`\kappa = d - a_1 = 0`, and
    :math:`t_{12} = 0` by :math:`\Xi \to -\Xi`, so :math:`R_{12} = R_{13} = 0` and the Woodbury
    correction vanishes although :math:`P` is present. Checked as equality with the
    noise-only error at the same :math:`\nu`, for the drawn geometry and for four
    times the signal, and the noise-only error itself against the closed form of
    :func:`.reference.a1_zero_error` (the cubic :math:`\nu x^2(x + c - 1) = c\gamma(1 - x)`,
    :math:`x = \gamma\Phi`; its root to round-off, so the solver's tolerance). This is the limit
    :math:`n \to \infty` at fixed :math:`\theta'`; at finite :math:`n` the signal enters at order
    :math:`\theta'/\sqrt n` (docs/theory.md section 3).
    """
    base = point.replace(a1=0.0, d=0.0)
    reference = base.noise_only()
    gammas = np.asarray(gammas, float)
    alone, _ = _same_error(theory, "a1 = d = 0: no dependence on signal or weights", reference, base, gammas)
    _same_error(theory, "a1 = d = 0: more signal does not help", reference, base.replace(theta=4 * base.theta + 1.0),
                gammas)
    close("a1 = d = 0: E = the cubic's closed form", alone, ref.a1_zero_error(base.nu, base.c, gammas), SOLVER_ATOL,
           f"{reference}, gammas={gammas.tolist()}")


@measured
def check_a1_zero_with_diagonal(theory: Theory, point: Point, gammas=GAMMAS) -> None:
    r""":math:`a_1 = 0`, :math:`d \ne 0`: the weights drop out (L = 0), the signal does not.

    With :math:`a_1 = 0` and :math:`b = 0` as well (:math:`\nu = 0`, f ≡ 0 off the
    diagonal) :math:`K = dI` exactly, so :math:`E_\mathrm{attn}(\gamma) = E_\mathrm{lin}(\gamma/d^2)`
    at every signal strength: attention then depends on :math:`\|\mu\|` exactly as
    linear regression does. With :math:`b > 0` the weights still drop out.
    """
    d = point.d if abs(point.d) >= 0.1 else 0.5
    gammas = np.asarray(gammas, float)
    base = point.replace(a1=0.0, d=d)
    _same_error(theory, "a1 = 0: weights drop out", base.without_weights(), base, gammas)
    diagonal = base.replace(nu=0.0)
    attention = theory.attention(diagonal, gammas).error
    linear = theory.linear(diagonal, gammas / d**2).error
    close("a1 = b = 0: E_attn(gamma) = E_lin(gamma/d^2)", attention, linear, SOLVER_ATOL,
           f"{diagonal}, gammas={gammas.tolist()}")


@measured
def check_noise_only(theory: Theory, point: Point, gammas=GAMMAS) -> None:
    r""":math:`\mu = 0`, :math:`w = 0` reduces to the noise-only system of docs/theory.md section 5.

    Compared with :func:`.reference.section3_noise_only` (2x2 pencil with
    :math:`(cA)^{-1}`, own quadrature and Newton, finite-difference derivative), for
    :math:`E` and :math:`(1/n)\operatorname{tr} Q = \Phi`. Tolerance :math:`10^{-6}`
    (absolute in E, relative in :math:`\Phi`): the reference refines its Gauss rule until
    two levels agree to :math:`10^{-10}`, and its five-point difference is accurate to
    about :math:`10^{-10}`; the margin covers the finite-difference round-off.

    A c within :data:`NEAR_ONE` of 1 (but not 1) is moved to 1: there
    :math:`\lambda_- = (1 - 1/\sqrt c)^2 < 10^{-7}` puts the reference's :math:`1/\lambda` pole next to the
    support and its quadrature does not converge (seen at c = 1.000001 with 97200 nodes); the
    package's own rule subtracts the pole, and the other properties cover those c.
    """
    noise = point.noise_only()
    if noise.c != 1.0 and abs(noise.c - 1.0) <= NEAR_ONE:
        noise = noise.replace(c=1.0)
    gammas = np.asarray(gammas, float)
    result = theory.attention(noise, gammas)
    error, trace = ref.section3_noise_only(noise.a1, noise.nu, noise.c, gammas, noise.d)
    context = f"{noise}, gammas={gammas.tolist()}"
    close("noise only: E = section 3", result.error, error, 1e-6, context)
    close("noise only: y^T Q y/n = tr Q/n of section 3", result.phi, trace, 1e-6 * trace, context)


@measured
def check_linear_f(theory: Theory, point: Point, gammas=GAMMAS) -> None:
    r""":math:`\nu = a_1^2` (f linear) with :math:`w = 0`: K is a polynomial in the data Gram matrix; closed form.

    :func:`.reference.linear_f_attention_error`: :math:`K = (a_1/c)C + \kappa I`,
    :math:`E = \gamma^2\int\nu(\mathrm dx)/(\gamma + x k(x)^2)^2` with the spectral measure
    of y for :math:`C = cA + P/n` (signal :math:`\theta` kept, any d); noise only it is
    :math:`\gamma^2\,\mathbb E_\lambda[(\gamma + c\lambda(a_1\lambda + \kappa)^2)^{-2}]`. The
    reference is exact up to round-off (closed-form Stieltjes transform), so the
    tolerance is the solver's. A point with :math:`|a_1| < 10^{-3}` is checked at :math:`a_1 = 1` (the linear
    f with :math:`a_1 = 0` is 0).
    """
    a1 = point.a1 if abs(point.a1) >= 1e-3 else 1.0      # the linear f with a1 = 0 is f = 0 (K = dI, E = 1 at d = 0)
    linear = point.without_weights().replace(a1=a1, nu=a1**2)
    gammas = np.asarray(gammas, float)
    result = theory.attention(linear, gammas)
    expected = np.array([ref.linear_f_attention_error(linear.a1, linear.d, linear.c, linear.theta, g) for g in gammas])
    context = f"{linear}, gammas={gammas.tolist()}"
    close("f linear: E = polynomial-in-Wishart closed form", result.error, expected[:, 0], SOLVER_ATOL, context)
    close("f linear: y^T Q y/n closed form", result.phi, expected[:, 1], 1e-7 * expected[:, 1], context)


@measured
def check_linear_regression(theory: Theory, point: Point, gammas=GAMMAS) -> None:
    r""":math:`E_\mathrm{lin} = \gamma^2 m'(-\gamma)` with :math:`m` of :func:`.reference.signal_resolvent` (signal :math:`\theta`); weights play no role."""
    gammas = np.asarray(gammas, float)
    result = theory.linear(point, gammas)
    expected = np.array([ref.linear_regression_error(point.c, point.theta, g) for g in gammas])
    context = f"linear {point}, gammas={gammas.tolist()}"
    close("E_lin closed form", result.error, expected[:, 0], SOLVER_ATOL, context)
    close("Phi_lin closed form", result.phi, expected[:, 1], 1e-7 * expected[:, 1], context)
    close("E_lin ignores the weights", theory.linear(point.without_weights(), gammas).error, result.error,
           SOLVER_ATOL, context)


def _over_c(solve, point: Point, cs, gamma):
    return np.array([solve(point.replace(c=float(c)), gamma).error for c in cs])


@measured
def check_small_c(theory: Theory, point: Point, gammas=(0.1, 1.0, 10.0)) -> None:
    r"""c → 0.

    * Linear regression: :math:`E_\mathrm{lin} \to` :func:`.reference.linear_small_c_limit`
      :math:`= \frac1{1+\theta} + \frac{\theta}{1+\theta}(\frac{\gamma}{\gamma+1+\theta})^2`
      (noise only: 1). Extrapolated from :math:`c = 2\cdot10^{-3}, 10^{-3}, 5\cdot10^{-4}`.
    * Attention, noise only, any f: :math:`1 - c \le E_\mathrm{attn} \le 1` for :math:`c < 1`,
      hence :math:`E_\mathrm{attn} \to 1`. Reason: :math:`K^\top C K = K^\top X^\top X K/n` has
      rank at most p, so Q has eigenvalue :math:`1/\gamma` on a space of dimension
      :math:`\ge n - p`, which carries :math:`(n - p)/n` of a y independent of everything.
      (With signal y is not independent of that space; no bound is claimed.)
    """
    gammas = np.asarray(gammas, float)
    cs = 2e-3 / np.array([1.0, 2.0, 4.0])
    ext = ref.extrapolate(_over_c(theory.linear, point, cs, gammas))
    limit = ref.linear_small_c_limit(gammas, point.theta)
    close("c -> 0: E_lin limit", ext.value, limit, ext.bound + 1e-6, f"linear {point}, gammas={gammas.tolist()}")
    noise = point.noise_only()
    for c in (1e-3, 0.3, 0.9):
        error = theory.attention(noise.replace(c=c), GAMMAS).error
        context = f"c={c}: E={error.tolist()}, {noise}"
        at_most("rank bound 1 - c <= E_attn", 1 - c, error, SOLVER_ATOL, context)
        at_most("E_attn <= 1", error, 1.0, SOLVER_ATOL, context)


@measured
def check_large_c(theory: Theory, point: Point, ratios=(0.5, 2.0, 5.0), gammas=(0.5, 2.0, 5.0)) -> None:
    r"""c → ∞, extrapolated from :math:`c = 250, 500, 1000` (:func:`.reference.extrapolate`).

    * Linear, ridge :math:`\gamma = g c`: :math:`E_\mathrm{lin} \to (g/(1+g))^2`
      (:func:`.reference.large_c_ridge_limit`) with first correction
      :math:`[3g^2/(1+g)^4 - 2\theta g^2/(1+g)^3]/c` (:func:`.reference.linear_large_c_slope`).
      At fixed :math:`\gamma` this is :math:`E_\mathrm{lin} \sim \gamma^2/c^2 \to 0`.
    * Attention, :math:`d = 0`, fixed :math:`\gamma`, any geometry:
      :math:`E_\mathrm{attn} \to \sqrt{\gamma/(\gamma + 4\nu)}` (:func:`.reference.wishart_square_limit`:
      :math:`\sqrt c K` becomes a Wigner matrix of variance :math:`\nu`; signal and weights drop out).
    * Attention, :math:`d \ne 0`, ridge :math:`\gamma = g c d^2`, any geometry: :math:`K \to dI`, so
      :math:`E_\mathrm{attn} \to (g/(1+g))^2` (at fixed :math:`\gamma`, :math:`E \to 0`).
      The off-diagonal part of K has operator norm of order :math:`\sqrt{\nu/c}` against the
      diagonal :math:`d`, so the expansion parameter is :math:`\nu/(c d^2)`: this limit is
      extrapolated from :math:`c = c_0, 2c_0, 4c_0` with :math:`c_0 = 250\max(1, \nu/d^2)`
      (with :math:`c_0 = 250` a draw with :math:`\nu/d^2 = 9` was still pre-asymptotic: the
      :math:`1/c^2` term outweighed the :math:`1/c` term and the Richardson bound was too small).

    The ridge is scaled with c where the limit at fixed :math:`\gamma` is 0, so that every
    compared value is :math:`O(1)` and the solver's absolute accuracy is what matters.
    Tolerance: the Richardson bound plus :math:`10^{-6}` (:math:`10^{-3}` relative for the slope,
    which multiplies the solver's error by c).
    """
    g, gammas = np.asarray(ratios, float), np.asarray(gammas, float)
    cs = 250.0 * np.array([1.0, 2.0, 4.0])
    limit = ref.large_c_ridge_limit(g)
    context = f"{point}, ridge ratios g={g.tolist()}"
    linear = np.array([theory.linear(point.replace(c=float(c)), g * c).error for c in cs])
    ext = ref.extrapolate(linear)
    close("c -> oo: E_lin(g c) -> (g/(1+g))^2", ext.value, limit, ext.bound + 1e-6, "linear " + context)
    slope = ref.extrapolate(cs[:, None] * (linear - limit))
    expected = ref.linear_large_c_slope(g, point.theta)
    close("c -> oo: first correction of E_lin(g c)", slope.value, expected,
           slope.bound + 1e-3 * (1 + np.abs(expected)), "linear " + context)
    ext = ref.extrapolate(_over_c(theory.attention, point.replace(d=0.0), cs, gammas))
    close("c -> oo, d = 0: E_attn -> sqrt(gamma/(gamma + 4 nu))", ext.value,
           ref.wishart_square_limit(gammas, point.nu), ext.bound + 1e-6, f"attention d=0 {point}, gammas={gammas}")
    d = point.d if abs(point.d) >= 0.3 else 0.5
    cs = 250.0 * max(1.0, point.nu / d**2) * np.array([1.0, 2.0, 4.0])
    attention = np.array([theory.attention(point.replace(c=float(c), d=d), g * c * d * d).error for c in cs])
    ext = ref.extrapolate(attention)
    close("c -> oo, d != 0: E_attn(g c d^2) -> (g/(1+g))^2", ext.value, limit, ext.bound + 1e-6,
           f"attention d={d} " + context)


@measured
def check_error_is_derivative_of_phi(theory: Theory, point: Point, gammas=(0.03, 0.3, 3.0, 30.0)) -> None:
    r""":math:`E = -\gamma^2\,\mathrm d\Phi/\mathrm d\gamma` (docs/theory.md section 1), against a five-point difference of :math:`\Phi`.

    Step :math:`h = 10^{-3}\gamma`: truncation :math:`O(h^4)`, round-off
    :math:`\approx 10^{-13}\Phi\gamma^2/h \le 10^{-10}`; tolerance :math:`10^{-6}`.
    """
    for gamma in gammas:
        h = 1e-3 * gamma
        stencil = gamma + h * np.array([-2.0, -1.0, 0.0, 1.0, 2.0])
        result = theory.attention(point, stencil)
        phi = result.phi
        derivative = (phi[0] - 8 * phi[1] + 8 * phi[3] - phi[4]) / (12 * h)
        close("E = -gamma^2 dPhi/dgamma", result.error[2], -gamma**2 * derivative, 1e-6, f"{point}, gamma={gamma}")




# --------------------------------------------------------------------------- 4. the other modules of the theory


#: Ridges of :func:`check_ridgeless`: E(0+) is approached like gamma^2 for c < 1 (docs/theory.md section 12).
RIDGELESS_PROBES = (1e-4, 1e-5)


@measured
def check_ridgeless(theory: Theory, point: Point) -> None:
    r"""The ridgeless limit for :math:`c < 1` without signal: :math:`E_\mathrm{attn}(0^+) = E_\mathrm{lin}(0^+) = 1 - c`.

    :math:`E(\gamma) = \int(\gamma/(\gamma + \lambda))^2\,\mathrm d\mu_y(\lambda)` decreases to
    :math:`\mu_y(\{0\})`, the share of y in the null space of :math:`K^\top C K`
    (:func:`symrmt.theory.ridgeless_error`). :math:`C = X^\top X/n` has rank :math:`p < n`, and
    without signal y is independent of that null space of dimension :math:`n - p`, so the share is
    :math:`1 - c`; the rest of the spectrum has a gap at 0, so :math:`E - (1 - c) \propto \gamma^2`.
    Run at the point's c if it is below 0.9, else at c = 0.5, with the point's f and d.
    Tolerance: the solver's, plus :math:`|E(10^{-4}) - E(10^{-5})|`, which bounds what is left of the
    approach at :math:`10^{-5}` for any rate :math:`\gamma^\alpha` with :math:`\alpha \ge 1/3` (the
    slowest of docs/theory.md: :math:`10^{-\alpha}/(1 - 10^{-\alpha}) \le 0.87`).
    """
    noise = point.noise_only()
    c = noise.c if noise.c < 0.9 else 0.5
    noise = noise.replace(c=c)
    gammas = np.array(RIDGELESS_PROBES)
    for label, error in (("attention", theory.attention(noise, gammas).error),
                         ("linear", theory.linear(noise, gammas).error)):
        close(f"{label}: E(0+) = 1 - c", error[-1], 1 - c, SOLVER_ATOL + abs(error[0] - error[-1]),
               f"{label} {noise}, gammas={gammas.tolist()}, E={np.asarray(error).tolist()}")


def _vectors(gram: np.ndarray) -> np.ndarray:
    """Rows v_i with v_i . v_j = gram[i, j] (gram positive semidefinite)."""
    values, vectors = np.linalg.eigh(gram)
    return vectors * np.sqrt(np.clip(values, 0.0, None))


@measured
def check_rank_reduction(theory: Theory, point: Point, gammas=GAMMAS, norms=(0.9, 1.3)) -> None:
    r"""Rank-two weights reduce to rank one when the second spike is zero, or orthogonal to :math:`\mu` and the first.

    The point's :math:`(\mu, w_K, w_Q)` are realized as vectors in :math:`R^3` and put in :math:`R^5`;
    the second spike :math:`(w_K^{(2)}, w_Q^{(2)})` is 0, then :math:`(0.9 e_4, 1.3 e_5)`, then
    :math:`(0.9 e_4, 1.3 e_4)`. The rank-two system (Gram matrix of
    :math:`(\mu, w_K^{(1)}, w_K^{(2)}, w_Q^{(1)}, w_Q^{(2)})`, docs/theory.md section 10) must give the
    rank-one error: a zero spike is absent from :math:`M = I + \sum_h w_K^{(h)} w_Q^{(h)\top}`, and an
    orthogonal one has :math:`\mu^\top w^{(2)} = 0`, so its vectors :math:`Z^\top w^{(2)}` are independent
    of y and of the other projection vectors and every projection form that would couple it to the
    labels vanishes (its :math:`\Sigma` entries with y are :math:`\alpha_{K,2} = \alpha_{Q,2} = 0`).
    Exact in the limit, so the solver's tolerance.
    """
    gammas = np.asarray(gammas, float)
    rank_one = theory.attention(point, gammas).error
    first = _vectors(point.gram_matrix)
    mu, wk, wq = (np.concatenate([v, [0.0, 0.0]]) for v in first)
    e4, e5 = np.eye(5)[3], np.eye(5)[4]
    for label, (wk2, wq2) in (("zero second spike", (0 * e4, 0 * e5)),
                              ("orthogonal second spike", (norms[0] * e4, norms[1] * e5)),
                              ("orthogonal second spike, w_K || w_Q", (norms[0] * e4, norms[1] * e4))):
        vectors = np.stack([mu, wk, wk2, wq, wq2])
        rank_two = theory.attention_gram(point, gammas, vectors @ vectors.T).error
        close(f"rank 2 with a {label} = rank 1", rank_two, rank_one, SOLVER_ATOL, f"{point}, gammas={gammas.tolist()}")


#: Squared temperatures of :func:`check_softmax_large_temperature` (x0, 2 x0, 4 x0 for the extrapolation in 1/tau^2).
SOFTMAX_TAU2 = (100.0, 200.0, 400.0)


@measured
def check_softmax_large_temperature(theory: Theory, point: Point, gammas=(0.03, 0.3, 3.0)) -> None:
    r"""Softmax attention as :math:`\tau \to \infty`: :math:`E_\mathrm{sm}(a_1(\tau)^2\gamma) \to E_{f = x}(\gamma)`, a closed form.

    :mod:`symrmt.theory.softmax` solves softmax attention as the entrywise system with the exact
    Hermite data of :math:`f = e^{x/\tau} - e^{1/(2\tau^2)}` (:func:`symrmt.theory.softmax.softmax_hermite`,
    :math:`d = 0`). By the scale law, :math:`E(f, a_1^2\gamma) = E(f/a_1, \gamma)` and
    :math:`f/a_1` has :math:`\nu/a_1^2 = \tau^2(e^{1/\tau^2} - 1) = 1 + 1/(2\tau^2) + O(\tau^{-4})`:
    it tends to the linear :math:`f = x`, whose error with signal and without weights is the
    polynomial-in-Wishart closed form (:func:`.reference.linear_f_attention_error`,
    :math:`a_1 = 1`, :math:`d = 0`). Extrapolated in :math:`1/\tau^2` from :data:`SOFTMAX_TAU2`;
    tolerance: the Richardson bound plus the solver's.
    """
    base = point.without_weights().replace(d=0.0)
    gammas = np.asarray(gammas, float)
    values = []
    for tau2 in SOFTMAX_TAU2:
        a1, nu = (float(v) for v in softmax_hermite(math.sqrt(tau2)))
        values.append(theory.attention(base.replace(a1=a1, nu=nu), a1 * a1 * gammas).error)
    ext = ref.extrapolate(np.array(values))
    expected = np.array([ref.linear_f_attention_error(1.0, 0.0, base.c, base.theta, g)[0] for g in gammas])
    close("tau -> oo: softmax E -> E of f = x", ext.value, expected, ext.bound + SOLVER_ATOL,
           f"{base}, gammas={gammas.tolist()}, tau^2={list(SOFTMAX_TAU2)}")


#: Gauss-Legendre nodes of :func:`check_density_normalized` (the coarse rule; the fine rule has twice as many).
DENSITY_NODES = 200


@measured
def check_density_normalized(theory: Theory, point: Point) -> None:
    r"""The density of :math:`G = K^\top X^\top X K/n`, smoothed by :math:`\eta > 0`, is nonnegative and integrates to 1.

    :math:`\rho_\eta(x) = \frac1\pi\operatorname{Im} m(x + i\eta)` with :math:`m` the Stieltjes transform of a
    probability measure (the eigenvalues of G, atoms included; :mod:`symrmt.theory.density`):
    :math:`\rho_\eta` is that measure convolved with the Cauchy kernel, so it is positive with mass 1.
    Scale :math:`s = \max(m_1, 0.05)` with :math:`m_1` the spectral mean of
    :func:`.reference.large_gamma_m1` (noise only), :math:`\eta = s` (wide enough that the rule converges
    geometrically: with :math:`\eta = s/4` a draw at c = 0.32 still had an error of 9e-6 with 400
    nodes, more than the difference of the two rules), centre :math:`s`; the integral over
    :math:`|x - s| \le R = 10^5 s` by :func:`.reference.gauss_legendre_on_line` with
    :data:`DENSITY_NODES` and twice as many nodes, plus the Cauchy tail :math:`2\eta/(\pi R)`.
    Tolerance: :math:`|I_{2N} - I_N|` (the quadrature converges geometrically, so this bounds the
    error of :math:`I_{2N}`) plus :math:`10^{-9}` for the tail's :math:`O((s/R)^2)` and round-off.
    """
    noise = point.noise_only()
    scale = max(ref.large_gamma_m1(noise.a1, noise.nu, noise.c, noise.d), 0.05)
    eta, reach = scale, min(1e5 * scale, 5e5)
    coarse_x, coarse_w = ref.gauss_legendre_on_line(scale, 2 * scale, reach, DENSITY_NODES)
    fine_x, fine_w = ref.gauss_legendre_on_line(scale, 2 * scale, reach, 2 * DENSITY_NODES)
    density = theory.density(point, np.concatenate([coarse_x, fine_x]), eta)
    coarse, fine = density[:DENSITY_NODES], density[DENSITY_NODES:]
    tail = 2 * eta / (np.pi * reach)
    context = f"{point}, eta={eta:.3g}"
    at_most("density >= 0", -density, 0.0, 1e-12, context)
    close("the smoothed density integrates to 1", fine_w @ fine + tail, 1.0,
           abs(fine_w @ fine - coarse_w @ coarse) + 1e-9, context)


# --------------------------------------------------------------------------- the catalogue


_ANY = "every f, c, d and geometry"

#: name -> Property, in the order symrmt check prints them.
CATALOGUE: dict[str, Property] = {p.name: p for p in (
    Property("bounds_and_monotonicity", "(gamma Phi)^2 <= E <= gamma Phi <= 1 and E nondecreasing in gamma "
             "(attention and linear regression)", _ANY,
             "E and gamma Phi are averages of r^2 and r, r = gamma/(gamma + x), over a probability measure on [0, oo)",
             check_bounds_and_monotonicity),
    Property("large_gamma", "E -> 1 and gamma (1 - E) -> 2 m1 as gamma -> oo, m1 = y^T K^T C K y/n derived by hand",
             _ANY + "; gamma >= 1e3 max(1, 2 m1), extrapolated",
             "Q = (I + G/gamma)^-1/gamma expanded in 1/gamma", check_large_gamma),
    Property("sign_symmetry", "E(-f, -d) = E(f, d)", _ANY, "K -> -K leaves K^T C K unchanged", check_sign_symmetry),
    Property("scale_law", "E(k f, k d; gamma) = E(f, d; gamma/k^2)", _ANY + ", k > 0",
             "K -> kK maps Q(gamma) to Q(gamma/k^2)/k^2", check_scale_law),
    Property("label_symmetry", "y -> -y (mu -> -mu) leaves E unchanged", _ANY,
             "X = Z + mu y^T is unchanged by (y, mu) -> (-y, -mu), and y, -y have one law", check_label_symmetry),
    Property("weight_rescaling", "(w_K, w_Q) -> (t w_K, w_Q/t) leaves E unchanged", _ANY + ", t > 0",
             "M = I + w_K w_Q^T is unchanged", check_weight_rescaling),
    Property("one_sided_weights", "w_Q = 0 (or w_K = 0): the other weight vector does not change E", _ANY,
             "M = I", check_one_sided_weights),
    Property("a1_zero", "a1 = d = 0: E does not depend on mu or the weights and solves the cubic "
             "nu x^2 (x + c - 1) = c gamma (1 - x), x = gamma Phi",
             "a1 = 0 and d = 0 (f with no linear part: even f, He_3, ...), any nu, c, geometry; the limit n -> oo "
             "at fixed theta'", "L ~ a1 = 0, kappa = 0 and t12 = 0 by symmetry: the signal decouples", check_a1_zero,
             uses_f="nu only"),
    Property("a1_zero_with_diagonal", "a1 = 0, d != 0: the weights drop out; with b = 0 too, "
             "E_attn(gamma) = E_lin(gamma/d^2)", "a1 = 0, d != 0, any nu, c, geometry",
             "L ~ a1 = 0; b = 0 makes K = dI", check_a1_zero_with_diagonal, uses_f="nu only"),
    Property("noise_only", "mu = 0, w = 0: E and Phi equal the 2 x 2 noise pencil, solved independently",
             "every f, c, d without signal or weights", "docs/theory.md section 5, another pencil, quadrature and "
             "Newton", check_noise_only),
    Property("linear_f", "nu = a1^2 (f linear), w = 0: E equals the polynomial-in-Wishart closed form",
             "f linear (a1 != 0), any c, d and signal", "K = (a1/c) C + kappa I is a polynomial in C", check_linear_f,
             uses_f="a1 only"),
    Property("linear_regression", "E_lin = gamma^2 m'(-gamma) (spiked Marchenko-Pastur); the weights do not enter",
             "any c and signal", "K = I", check_linear_regression, uses_f="no"),
    Property("small_c", "c -> 0: E_lin -> 1/(1+theta) + theta/(1+theta) (gamma/(gamma+1+theta))^2; "
             "1 - c <= E_attn <= 1 without signal", "c -> 0 (extrapolated), any f, d, signal",
             "rank C = p: Q is 1/gamma on n - p dimensions", check_small_c),
    Property("large_c", "c -> oo: E_lin(g c) -> (g/(1+g))^2; E_attn -> sqrt(gamma/(gamma + 4 nu)) at d = 0; "
             "E_attn(g c d^2) -> (g/(1+g))^2 at d != 0", "c -> oo (extrapolated), any f, geometry",
             "A -> I: sqrt(c) K becomes a Wigner matrix of variance nu (d = 0), K -> dI (d != 0)", check_large_c),
    Property("error_is_derivative_of_phi", "E = -gamma^2 dPhi/dgamma", _ANY,
             "E = gamma^2 y^T Q^2 y/n and dQ/dgamma = -Q^2", check_error_is_derivative_of_phi),
    Property("ridgeless", "gamma -> 0+ without signal: E_attn(0+) = E_lin(0+) = 1 - c", "c < 1, any f and d",
             "rank C = p < n: y has share 1 - c in the null space, the rest of the spectrum has a gap",
             check_ridgeless),
    Property("rank_reduction", "rank-2 weights with a zero second spike, or one orthogonal to mu and to the first, "
             "give the rank-1 E", _ANY, "a zero spike is not in M; an orthogonal one does not couple to the labels",
             check_rank_reduction),
    Property("softmax_large_temperature", "softmax: E_sm(a1(tau)^2 gamma) -> E of f = x as tau -> oo",
             "tau -> oo (extrapolated in 1/tau^2), any c and signal, no weights",
             "nu/a1^2 = tau^2 (e^(1/tau^2) - 1) -> 1: the softmax's f/a1 becomes linear",
             check_softmax_large_temperature, uses_f="no"),
    Property("density_normalized", "the smoothed density of K^T X^T X K/n is >= 0 and integrates to 1",
             "every f, c, d; eta = the spectral scale",
             "(1/pi) Im m(x + i eta) is a probability measure convolved with the Cauchy kernel",
             check_density_normalized),
)}


def catalogue_markdown() -> str:
    """The catalogue as the markdown table of docs/verify.md: property, statement, region, reason."""
    lines = ["| property | statement | region | reason |", "|---|---|---|---|"]
    for p in CATALOGUE.values():
        lines.append(f"| `{p.name}` | {p.statement} | {p.region} | {p.reason} |")
    return "\n".join(lines)
