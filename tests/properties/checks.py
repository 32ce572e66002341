r"""The properties, as plain functions of a theory (:mod:`.theories`) and a parameter point.

Each ``check_*`` returns None or raises :class:`PropertyViolation` (an AssertionError)
saying which derived statement failed and by how much; a theory that refuses to give
a physical answer (ConvergenceError, even after the retry of :mod:`.theories`) also
violates the property. tests/validation/test_properties.py runs them on Hypothesis draws against
the real package; tests/validation/test_property_mutations.py runs them on deliberately wrong
derivations and requires each mutant to be caught.

Tolerances. The solver's embedded estimate certifies the coarse rule (a third of the
nodes) to ``symrmt.solve.QUADRATURE_TOLERANCE``; the integrand is analytic and periodic in
the angle variable, so the error decays geometrically in the number of nodes and the full
rule is accurate to about the cube of that, i.e. to round-off, and Newton stops at 1e-11.
Measured: |E - reference| <= 2e-11 for section 3 and <= 3e-13 for the closed forms over
60 random draws. ``SOLVER_ATOL = 3e-8`` therefore leaves a wide margin for every exact
identity and for comparisons with the exact references (the section-3 reference, which
has its own quadrature, is given 1e-6). Limits are taken by Richardson extrapolation
(:func:`.reference.extrapolate`), whose error bound is computed from the data rather
than chosen.
"""
from __future__ import annotations

import functools

import numpy as np

from symrmt.errors import ConvergenceError

from . import reference as ref
from .theories import Point, Theory

__all__ = ["PropertyViolation", "GAMMAS", "SOLVER_ATOL", "ALL_CHECKS"] + [
    "check_bounds_and_monotonicity", "check_large_gamma", "check_sign_symmetry", "check_scaling",
    "check_label_symmetry", "check_weight_rescaling", "check_one_sided_weights", "check_a1_zero",
    "check_a1_zero_with_diagonal", "check_noise_only_section3", "check_linear_f", "check_linear_regression",
    "check_small_c", "check_large_c", "check_error_is_derivative_of_phi",
]

#: Default ridge grid (the solver's comfortable range).
GAMMAS = np.geomspace(1e-2, 1e2, 9)
SOLVER_ATOL = 3e-8


class PropertyViolation(AssertionError):
    """A derived property of the theory does not hold."""


def _close(name: str, got, expected, atol, context) -> None:
    got, expected, atol = np.broadcast_arrays(np.asarray(got, float), np.asarray(expected, float),
                                              np.asarray(atol, float))
    gap = np.abs(got - expected)
    if not np.all(np.isfinite(got)) or np.any(gap > atol):
        i = int(np.argmax(np.where(np.isfinite(gap), gap - atol, np.inf)))
        raise PropertyViolation(
            f"{name}: got {got.ravel()[i]!r}, expected {expected.ravel()[i]!r} (gap {gap.ravel()[i]:.3g} > "
            f"tolerance {atol.ravel()[i]:.3g}) at {context}")


def _property(fn):
    """Report a refusal of the theory (ConvergenceError) as a violation of the property."""

    @functools.wraps(fn)
    def wrapper(theory: Theory, *args, **kwargs):
        try:
            return fn(theory, *args, **kwargs)
        except ConvergenceError as exc:
            raise PropertyViolation(f"{fn.__name__}: {theory!r} gave no physical solution: {exc}") from exc

    return wrapper


# --------------------------------------------------------------------------- 1. bounds, monotonicity, large gamma


@_property
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
        context = f"{label} {point}, gammas={gammas.tolist()}, E={error.tolist()}"
        if not (np.all(error >= x**2 - SOLVER_ATOL) and np.all(error <= x + SOLVER_ATOL)
                and np.all(x <= 1 + SOLVER_ATOL) and np.all(error >= -SOLVER_ATOL)):
            raise PropertyViolation(f"bounds (gamma Phi)^2 <= E <= gamma Phi <= 1 fail: gamma Phi={x.tolist()} at {context}")
        if np.any(np.diff(error) < -SOLVER_ATOL):
            raise PropertyViolation(f"E decreases with gamma at {context}")


@_property
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
        _close("E -> 1 as gamma -> oo", error, np.ones(3), 10 * (1 + 2 * m1) / gammas, context)
        ext = ref.extrapolate(gammas * (1 - error))
        _close("gamma (1 - E) -> 2 m1", ext.value, 2 * m1, ext.bound + 1e-4 * 2 * m1 + 1e-9, context)


# --------------------------------------------------------------------------- 2. invariances


def _same_error(theory, name, first: Point, second: Point, gammas, second_gammas=None, atol=SOLVER_ATOL):
    gammas = np.asarray(gammas, float)
    a = theory.attention(first, gammas).error
    b = theory.attention(second, gammas if second_gammas is None else second_gammas).error
    _close(name, b, a, atol, f"{first} vs {second}, gammas={gammas.tolist()}")
    return a, b


@_property
def check_sign_symmetry(theory: Theory, point: Point, gammas=GAMMAS) -> None:
    r"""f → −f with d → −d leaves :math:`E_\mathrm{attn}` unchanged: K → −K and :math:`K^\top C K` is even in K (exact, any geometry).

    In Hermite data: :math:`(a_1, \nu, d) \to (-a_1, \nu, -d)`.
    """
    _same_error(theory, "f -> -f, d -> -d", point, point.replace(a1=-point.a1, d=-point.d), gammas)


@_property
def check_scaling(theory: Theory, point: Point, s: float = 1.7, gammas=GAMMAS) -> None:
    r"""f → s f with d → s d maps :math:`E(\gamma)` to :math:`E(\gamma/s^2)`.

    K → sK, so :math:`Q_{sf}(\gamma) = (\gamma + s^2 G)^{-1} = s^{-2}Q_f(\gamma/s^2)` and
    :math:`E_{sf}(\gamma) = (\gamma^2/n)\,y^\top Q_{sf}^2 y = E_f(\gamma/s^2)` (exact, any
    geometry). In Hermite data :math:`(a_1, \nu, d) \to (s a_1, s^2\nu, s d)`; checked as
    :math:`E_{sf}(s^2\gamma) = E_f(\gamma)`.
    """
    gammas = np.asarray(gammas, float)
    scaled = point.replace(a1=s * point.a1, nu=s * s * point.nu, d=s * point.d)
    _same_error(theory, f"f -> {s:g} f maps E(gamma) to E(gamma/s^2)", point, scaled, gammas, s * s * gammas)


@_property
def check_label_symmetry(theory: Theory, point: Point, gammas=GAMMAS) -> None:
    r"""Labels y → −y change nothing.

    :math:`X = Z + \mu y^\top` is unchanged by :math:`(y, \mu) \to (-y, -\mu)`, E is even in y,
    and y, −y have the same law; so the theory must be invariant under
    :math:`\mu \to -\mu`: :math:`(\alpha_K, \alpha_Q) \to (-\alpha_K, -\alpha_Q)`,
    :math:`\theta` fixed. (The same map is :math:`(w_K, w_Q) \to (-w_K, -w_Q)`, which
    leaves :math:`M = I + w_K w_Q^\top` itself unchanged.)
    """
    _same_error(theory, "y -> -y", point, point.replace(alpha_K=-point.alpha_K, alpha_Q=-point.alpha_Q), gammas)


@_property
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


@_property
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


@_property
def check_a1_zero(theory: Theory, point: Point, gammas=GAMMAS) -> None:
    r""":math:`a_1 = 0`, :math:`d = 0`: E does not depend on :math:`\|\mu\|` nor on the alignment, and more signal does not help.

    docs/theory.md section 12: :math:`L \propto a_1 = 0`, :math:`\kappa = d - a_1 = 0`, and
    :math:`t_{12} = 0` by :math:`\Xi \to -\Xi`, so :math:`R_{12} = R_{13} = 0` and the Woodbury
    correction vanishes although :math:`P` is present. Checked as equality with the
    noise-only error at the same :math:`\nu`, for the drawn geometry and for four
    times the signal. This is the limit :math:`n \to \infty` at fixed :math:`\theta'`; at finite
    :math:`n` the signal enters at order :math:`\theta'/\sqrt n` (docs/theory.md section 3).
    """
    base = point.replace(a1=0.0, d=0.0)
    reference = base.noise_only()
    _same_error(theory, "a1 = d = 0: no dependence on signal or weights", reference, base, gammas)
    _same_error(theory, "a1 = d = 0: more signal does not help", reference, base.replace(theta=4 * base.theta + 1.0),
                gammas)


@_property
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
    _close("a1 = b = 0: E_attn(gamma) = E_lin(gamma/d^2)", attention, linear, SOLVER_ATOL,
           f"{diagonal}, gammas={gammas.tolist()}")


@_property
def check_noise_only_section3(theory: Theory, point: Point, gammas=GAMMAS) -> None:
    r""":math:`\mu = 0`, :math:`w = 0` reduces to the noise-only system of docs/theory.md section 5.

    Compared with :func:`.reference.section3_noise_only` (2x2 pencil with
    :math:`(cA)^{-1}`, own quadrature and Newton, finite-difference derivative), for
    :math:`E` and :math:`(1/n)\operatorname{tr} Q = \Phi`. Tolerance :math:`10^{-6}`
    (absolute in E, relative in :math:`\Phi`): the reference refines its Gauss rule until
    two levels agree to :math:`10^{-10}`, and its five-point difference is accurate to
    about :math:`10^{-10}`; the margin covers the finite-difference round-off.
    """
    noise = point.noise_only()
    gammas = np.asarray(gammas, float)
    result = theory.attention(noise, gammas)
    error, trace = ref.section3_noise_only(noise.a1, noise.nu, noise.c, gammas, noise.d)
    context = f"{noise}, gammas={gammas.tolist()}"
    _close("noise only: E = section 3", result.error, error, 1e-6, context)
    _close("noise only: y^T Q y/n = tr Q/n of section 3", result.phi, trace, 1e-6 * trace, context)


@_property
def check_linear_f(theory: Theory, point: Point, gammas=GAMMAS) -> None:
    r""":math:`\nu = a_1^2` (f linear) with :math:`w = 0`: K is a polynomial in the data Gram matrix; closed form.

    :func:`.reference.linear_f_attention_error`: :math:`K = (a_1/c)C + \kappa I`,
    :math:`E = \gamma^2\int\nu(\mathrm dx)/(\gamma + x k(x)^2)^2` with the spectral measure
    of y for :math:`C = cA + P/n` (signal :math:`\theta` kept, any d); noise only it is
    :math:`\gamma^2\,\mathbb E_\lambda[(\gamma + c\lambda(a_1\lambda + \kappa)^2)^{-2}]`. The
    reference is exact up to round-off (closed-form Stieltjes transform), so the
    tolerance is the solver's.
    """
    linear = point.without_weights().replace(nu=point.a1**2)
    gammas = np.asarray(gammas, float)
    result = theory.attention(linear, gammas)
    expected = np.array([ref.linear_f_attention_error(linear.a1, linear.d, linear.c, linear.theta, g) for g in gammas])
    context = f"{linear}, gammas={gammas.tolist()}"
    _close("f linear: E = polynomial-in-Wishart closed form", result.error, expected[:, 0], SOLVER_ATOL, context)
    _close("f linear: y^T Q y/n closed form", result.phi, expected[:, 1], 1e-7 * expected[:, 1], context)


@_property
def check_linear_regression(theory: Theory, point: Point, gammas=GAMMAS) -> None:
    r""":math:`E_\mathrm{lin} = \gamma^2 m'(-\gamma)` with :math:`m` of :func:`.reference.signal_resolvent` (signal :math:`\theta`); weights play no role."""
    gammas = np.asarray(gammas, float)
    result = theory.linear(point, gammas)
    expected = np.array([ref.linear_regression_error(point.c, point.theta, g) for g in gammas])
    context = f"linear {point}, gammas={gammas.tolist()}"
    _close("E_lin closed form", result.error, expected[:, 0], SOLVER_ATOL, context)
    _close("Phi_lin closed form", result.phi, expected[:, 1], 1e-7 * expected[:, 1], context)
    _close("E_lin ignores the weights", theory.linear(point.without_weights(), gammas).error, result.error,
           SOLVER_ATOL, context)


def _over_c(solve, point: Point, cs, gamma):
    return np.array([solve(point.replace(c=float(c)), gamma).error for c in cs])


@_property
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
    _close("c -> 0: E_lin limit", ext.value, limit, ext.bound + 1e-6, f"linear {point}, gammas={gammas.tolist()}")
    noise = point.noise_only()
    for c in (1e-3, 0.3, 0.9):
        error = theory.attention(noise.replace(c=c), GAMMAS).error
        if np.any(error < 1 - c - SOLVER_ATOL) or np.any(error > 1 + SOLVER_ATOL):
            raise PropertyViolation(f"rank bound 1 - c <= E_attn <= 1 fails at c={c}: E={error.tolist()}, {noise}")


@_property
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
    _close("c -> oo: E_lin(g c) -> (g/(1+g))^2", ext.value, limit, ext.bound + 1e-6, "linear " + context)
    slope = ref.extrapolate(cs[:, None] * (linear - limit))
    expected = ref.linear_large_c_slope(g, point.theta)
    _close("c -> oo: first correction of E_lin(g c)", slope.value, expected,
           slope.bound + 1e-3 * (1 + np.abs(expected)), "linear " + context)
    ext = ref.extrapolate(_over_c(theory.attention, point.replace(d=0.0), cs, gammas))
    _close("c -> oo, d = 0: E_attn -> sqrt(gamma/(gamma + 4 nu))", ext.value,
           ref.wishart_square_limit(gammas, point.nu), ext.bound + 1e-6, f"attention d=0 {point}, gammas={gammas}")
    d = point.d if abs(point.d) >= 0.3 else 0.5
    cs = 250.0 * max(1.0, point.nu / d**2) * np.array([1.0, 2.0, 4.0])
    attention = np.array([theory.attention(point.replace(c=float(c), d=d), g * c * d * d).error for c in cs])
    ext = ref.extrapolate(attention)
    _close("c -> oo, d != 0: E_attn(g c d^2) -> (g/(1+g))^2", ext.value, limit, ext.bound + 1e-6,
           f"attention d={d} " + context)


@_property
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
        _close("E = -gamma^2 dPhi/dgamma", result.error[2], -gamma**2 * derivative, 1e-6, f"{point}, gamma={gamma}")


#: Every check with its own default arguments: name -> function(theory, point).
ALL_CHECKS = {
    fn.__name__: fn for fn in (
        check_bounds_and_monotonicity, check_large_gamma, check_sign_symmetry, check_scaling, check_label_symmetry,
        check_weight_rescaling, check_one_sided_weights, check_a1_zero, check_a1_zero_with_diagonal,
        check_noise_only_section3, check_linear_f, check_linear_regression, check_small_c, check_large_c,
    )
}
