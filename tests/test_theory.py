"""symrmt.theory: the public entry points against independent computations and the previous engine.

No simulation here: the error of the solver's own numbers is checked against closed forms,
SciPy quadrature, an independent solution of docs/theory.md section 5, finite differences,
and the rank-1 engine as it was before the FixedPointSystem contract.
"""
import json
import pathlib

import numpy as np
import pytest
from scipy import integrate

from _support.marchenko_pastur import mp_density
from symrmt.derive import symbols as S
from symrmt.errors import SymrmtInputError
from symrmt.geometry import Geometry
from symrmt.theory import attention_error, gram_parameters, linear_error, solve_attention

TANH = (0.6057055, 0.3942945)   # docs/theory.md section 2 (7 digits is all these tests need)


def _random_gram(rng, rank, size=()):
    vectors = rng.standard_normal((*size, 1 + 2 * rank, 6)) * rng.uniform(0.2, 1.0, (*size, 1 + 2 * rank, 1))
    return np.einsum("...ik,...jk->...ij", vectors, vectors)


def test_rank_one_gram_matrix_reproduces_the_six_named_entries():
    rng = np.random.default_rng(1)
    G = _random_gram(rng, 1, (40,))
    c, gamma, d = rng.uniform(0.3, 3, 40), 10 ** rng.uniform(-2, 1, 40), rng.uniform(-0.5, 0.5, 40)
    named = dict(theta=G[:, 0, 0], alpha_K=G[:, 0, 1], alpha_Q=G[:, 0, 2], omega_KK=G[:, 1, 1],
                 omega_QQ=G[:, 2, 2], omega_KQ=G[:, 1, 2])
    assert np.allclose(attention_error(TANH, c, gamma, d=d, gram=G), attention_error(TANH, c, gamma, d=d, gram=named),
                       rtol=0, atol=1e-10)
    g = Geometry(1.2, 0.8, 1.1, 0.3, -0.5, 0.2)
    assert np.isclose(attention_error(TANH, 0.7, 0.3, d=0.1, gram=g.gram()), attention_error(TANH, 0.7, 0.3, g, d=0.1),
                      rtol=0, atol=1e-12)


def test_rank_two_with_a_zero_pair_is_rank_one_and_pairs_commute():
    rng = np.random.default_rng(2)
    G1 = _random_gram(rng, 1)
    G2 = np.zeros((5, 5))
    idx = [0, 1, 3]                                   # mu, w_K^(1), w_Q^(1) in rank-2 order (mu, K1, K2, Q1, Q2)
    G2[np.ix_(idx, idx)] = G1
    gamma = np.array([0.03, 0.3, 3.0])
    assert np.allclose(attention_error(TANH, 1.4, gamma, d=0.3, gram=G2),
                       attention_error(TANH, 1.4, gamma, d=0.3, gram=G1), rtol=0, atol=1e-10)
    G = _random_gram(rng, 2)
    swap = [0, 2, 1, 4, 3]                            # exchange the two (w_K, w_Q) pairs
    assert np.allclose(attention_error(TANH, 0.8, gamma, gram=G), attention_error(TANH, 0.8, gamma,
                                                                                   gram=G[np.ix_(swap, swap)]),
                       rtol=0, atol=1e-10)


def test_gram_matrices_broadcast_and_bad_ones_are_refused():
    from symrmt.errors import ParameterError

    rng = np.random.default_rng(3)
    G = _random_gram(rng, 3, (4,))
    values = attention_error(TANH, 1.0, np.array([[0.1], [1.0]]), gram=G)
    assert values.shape == (2, 4)
    with pytest.raises(ParameterError, match="not both"):
        attention_error(TANH, 1.0, 0.1, geometry=Geometry(), gram=G[0])
    with pytest.raises(ParameterError, match="shape"):
        attention_error(TANH, 1.0, 0.1, gram=np.eye(4))
    with pytest.raises(ParameterError, match="positive semi-definite"):
        attention_error(TANH, 1.0, 0.1, gram=-np.eye(3))
    with pytest.raises(ParameterError, match="symmetric"):
        attention_error(TANH, 1.0, 0.1, gram=np.triu(np.ones((3, 3))))
    rank, params = gram_parameters(gram=G[0])
    assert rank == 3 and len(params) == len(S.gram_symbols(3))


def test_linear_regression_reads_only_the_signal_norm():
    G = _random_gram(np.random.default_rng(4), 2)
    assert np.isclose(linear_error(1.2, 0.2, gram=G), linear_error(1.2, 0.2, Geometry(mu_norm=np.sqrt(G[0, 0]))))


def test_rank_one_through_a_gram_matrix_reproduces_the_previous_engine():
    # 60 random points solved by the rank-1 engine as it was before the FixedPointSystem contract
    # (commit 2b93bc9, stored in tests/data): the new engine, fed the 3 x 3 Gram matrix, agrees to 1e-10.
    data = json.loads((pathlib.Path(__file__).parent / "data" / "rank1_reference.json").read_text())
    a1, nu, c, gamma, d = (np.array(data[k]) for k in ("a1", "nu", "c", "gamma", "d"))
    G = np.array(data["gram"])
    assert np.allclose(attention_error((a1, nu), c, gamma, d=d, gram=G), data["attention"], rtol=0, atol=1e-10)
    assert np.allclose(linear_error(c, gamma, gram=G), data["linear"], rtol=0, atol=1e-10)


def test_f_with_symbolic_parameters_through_theory_latex_and_cli(capsys):
    import json as _json

    import symrmt
    from symrmt.cli import main

    s = np.array([0.5, 1.0, 2.0])
    values = attention_error("erf(s*x)", 1.0, 0.1, params={"s": s})
    one_by_one = [attention_error(f"erf({v}*x)", 1.0, 0.1) for v in s]
    assert np.allclose(values, one_by_one, atol=1e-12)
    text = symrmt.latex("erf(s*x)")                  # the parameters are the names other than x
    assert r"\operatorname{asin}" in text and " s" in text
    assert main(["theory", "--f", "tanh(s*x)", "--c", "1", "--gamma", "0.1,1", "--param", "s=0.5:2:4", "--json"]) == 0
    out = _json.loads(capsys.readouterr().out)
    assert np.array(out["attention"]).shape == (4, 2)
    assert np.isclose(out["attention"][1][0], attention_error("tanh(x)", 1.0, 0.1), atol=1e-9)
    assert main(["theory", "--f", "tanh(s*x)", "--c", "1", "--gamma", "0.1"]) == 2


@pytest.mark.parametrize("c", [0.5, 2.0])
@pytest.mark.parametrize("gamma", [0.03, 1.0])
def test_linear_noise_only_against_scipy_quad(c, gamma):
    # E_lin = gamma^2 E[(gamma + c lambda)^{-2}] (noise only), by adaptive quadrature of the MP density.
    _, lo, hi = mp_density(1.0, c)
    integral = integrate.quad(lambda x: mp_density(x, c)[0] / (gamma + c * x) ** 2, lo, hi, epsabs=1e-13)[0]
    integral += max(0.0, 1 - c) / gamma**2
    assert np.isclose(linear_error(c, gamma), gamma**2 * integral, rtol=1e-9)


def test_linear_noise_only_closed_form_at_c_1():
    # MP(1): E[(1 + lambda)^{-2}] = 1/sqrt(5).
    assert np.isclose(linear_error(1.0, 1.0), 1 / np.sqrt(5), rtol=1e-10)


def _section3_error(a1, nu, c, gamma, d, nodes=400):
    """docs/theory.md section 5 solved independently: 2x2 pencil, Gauss-Legendre, damped Picard, finite differences."""
    b2, kappa = nu - a1**2, d - a1
    q = 1 / c
    lo, hi = (1 - np.sqrt(q)) ** 2, (1 + np.sqrt(q)) ** 2
    x, wx = np.polynomial.legendre.leggauss(nodes)
    phi = (x + 1) * np.pi / 2
    lam = (hi + lo) / 2 - (hi - lo) / 2 * np.cos(phi)
    w = wx * np.pi / 2 * ((hi - lo) / 2) ** 2 * np.sin(phi) ** 2 / (2 * np.pi * q * lam)
    atom = max(0.0, 1 - c)

    def trace_q(g, t):
        for _ in range(20000):
            alpha = g - b2 * t[2]
            beta = a1 * lam + kappa - b2 * t[1]
            delta = -1 / (c * lam) - b2 * t[0]
            den = alpha * delta - beta**2
            e11 = (w * delta / den).sum() + atom / alpha
            new = np.array([e11, (w * -beta / den).sum(), (w * alpha / den).sum()]) / c
            if np.max(np.abs(new - t)) < 1e-14:
                return e11, new
            t = 0.5 * t + 0.5 * new
        raise AssertionError("reference iteration did not converge")

    t = np.zeros(3)
    for g in np.geomspace(100.0, gamma, 60):
        _, t = trace_q(g, t)
    h = 1e-5 * gamma
    up, _ = trace_q(gamma + h, t)
    down, _ = trace_q(gamma - h, t)
    return -gamma**2 * (up - down) / (2 * h)


@pytest.mark.parametrize("c,gamma,d", [(0.5, 0.05, 0.0), (1.0, 0.1, 0.0), (2.0, 0.5, 0.0), (1.0, 0.2, 0.4)])
def test_attention_noise_only_matches_independent_section3_solution(c, gamma, d):
    ours = attention_error(TANH, c, gamma, d=d)
    assert np.isclose(ours, _section3_error(*TANH, c, gamma, d), rtol=2e-6)


def test_implicit_derivative_matches_finite_differences():
    g = Geometry(1.2, 1.5, 0.8, 0.6, -0.3, 0.1)
    gamma, h = 0.2, 1e-5
    res = solve_attention(TANH, 1.5, np.array([gamma - h, gamma, gamma + h]), g, d=0.3)
    fd = -gamma**2 * (res.phi[2] - res.phi[0]) / (2 * h)
    assert np.isclose(res.error[1], fd, rtol=1e-6)


def test_residuals_are_reported_and_small():
    res = solve_attention(TANH, np.array([0.5, 1.0, 2.0]), np.geomspace(1e-2, 10, 7)[:, None], Geometry(mu_norm=1))
    assert res.error.shape == (7, 3) and np.all(res.residual < 1e-9)


def test_vectorized_equals_pointwise():
    c = np.array([0.5, 1.0, 3.0])
    gamma = np.array([0.05, 0.3, 2.0])
    g = Geometry(1.0, 1.0, 1.0, 0.5, 0.5, 0.5)
    together = attention_error(TANH, c, gamma, g, d=0.2)
    one_by_one = [attention_error(TANH, ci, gi, g, d=0.2) for ci, gi in zip(c, gamma)]
    assert np.allclose(together, one_by_one, atol=1e-10)


@pytest.mark.parametrize("bad", [dict(c=0.0), dict(c=-1.0), dict(gamma=0.0), dict(gamma=np.nan)])
def test_bad_parameters_are_refused(bad):
    kwargs = dict(c=1.0, gamma=0.1) | bad
    with pytest.raises(SymrmtInputError):
        attention_error(TANH, **kwargs)


def test_nu_below_a1_squared_is_refused():
    with pytest.raises(SymrmtInputError, match="nu >= a_1"):
        attention_error((1.0, 0.5), 1.0, 0.1)


def test_ridgeless_limit_on_noise_is_the_null_space_fraction():
    # y is independent of X on noise, and K^T C K has rank p = cn < n: E(0+) = 1 - c, approached like
    # gamma^2 (the nonzero spectrum has a gap at 0). The extrapolation is exact for E_0 + C gamma^2, so the
    # limit holds to the solver's accuracy (1e-9), far below the 1e-5 step of E at gamma = 1e-5.
    from symrmt.theory import ridgeless_error

    for c in (0.3, 0.5, 0.8):
        for kind in ("attention", "linear"):
            limit = ridgeless_error(TANH, c, kind=kind)
            assert abs(limit.limit - (1 - c)) < 1e-8 and float(limit) == limit.limit
            assert abs(limit.exponent - 2) < 0.01


def test_ridgeless_rates_are_the_derived_ones():
    # c >= 1: no null space, E(0+) = 0. Linear regression has closed forms: at c = 1 the Marchenko-Pastur
    # hard edge rho(l) ~ 1/(pi sqrt l) gives E ~ sqrt(gamma)/2; at c = 2 the gap gives E ~ E[l^-2] gamma^2
    # = c/(c-1)^3 gamma^2 = 2 gamma^2. Attention: the spectrum of K reaches 0, so sqrt(gamma) at c = 2 and,
    # with the hard edge of C too, gamma^(1/3) at c = 1 (approached slowly: 0.34 at gamma = 3e-9);
    # with d = 3 the kernel has a gap at 0 and the rate is gamma^2.
    from symrmt.theory import ridgeless_error

    cases = [(dict(c=1.0, kind="linear"), 0.5, 0.5), (dict(c=2.0, kind="linear"), 2.0, 2.0),
             (dict(c=2.0), 0.5, None), (dict(c=1.0), 1 / 3, None), (dict(c=2.0, d=3.0), 2.0, None)]
    for kwargs, exponent, coefficient in cases:
        limit = ridgeless_error(TANH, **kwargs)
        assert limit.limit == 0.0
        assert abs(limit.exponent - exponent) < 0.02, (kwargs, limit)
        if coefficient is not None:
            assert abs(limit.coefficient - coefficient) < 0.02 * coefficient, (kwargs, limit)
    # Power: the measured exponent tells the cases apart (sqrt(gamma) at c = 2 is not the gamma^2 of d = 3).
    assert abs(ridgeless_error(TANH, 2.0).exponent - 2.0) > 1


def test_ridgeless_limit_says_when_it_cannot_be_measured_and_tiny_gamma_is_refused():
    from symrmt.errors import ConvergenceError
    from symrmt.theory import ridgeless_error

    with pytest.raises(ConvergenceError, match="did not settle"):
        ridgeless_error(TANH, 0.999)           # the gap (1 - sqrt c)^2 ~ 2.5e-7 is at the bottom of the ladder
    with pytest.raises(ConvergenceError, match="three or more gamma"):
        ridgeless_error(TANH, 1.0, d=100.0, form="quadrature")    # the quadrature needs gamma above ~1e-6 d^2
    # The algebraic form has no nodes to run out of: the hard edge's sqrt(gamma) at c = 1.
    assert ridgeless_error(TANH, 1.0, d=100.0, form="auto").exponent == pytest.approx(0.5, abs=1e-3)
    with pytest.raises(ConvergenceError, match="too small for the quadrature"):
        attention_error(TANH, 1.0, 1e-10, form="quadrature")   # would need ~7e5 nodes at c = 1 (MAX_NODES = 34992)
    with pytest.raises(ConvergenceError, match="stalled"):
        attention_error(TANH, 1.0, 1e-12, form="quadrature")   # round-off-level steps: the continuation stops
    # The algebraic form has no nodes to run out of: E keeps decreasing towards 0 at c = 1.
    small = attention_error(TANH, 1.0, [1e-12, 1e-10, 1e-8], form="auto")
    assert np.all(np.diff(small) > 0) and 0 < small[0] < 1e-4
    # How promptly (was 170 s of round-off-level steps): benchmarks/bench_solver.py refusal.
