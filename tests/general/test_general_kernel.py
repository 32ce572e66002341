"""The general-M kernel: block elimination against the dense pencil, Hermite data, refusals, the reduction to I + rank r."""
import numpy as np
import pytest

import symrmt
from symrmt.errors import ParameterError
from symrmt.general import attention_error_general, solve_general
from symrmt.nonlinearity.scaled import scaled_hermite
from symrmt.general.kernel import Factored, MatrixData, coefficient_matrix, p_side, signal_forms


def _dense_y(F, M):
    """Y = (I + (F (x) I) diag(M, M^T, I))^{-1}, the 3p x 3p inverse the kernel avoids."""
    p = M.shape[0]
    E = (M, M.T, np.eye(p))
    S = np.eye(3 * p)
    for b in range(3):
        for bp in range(3):
            S[b * p:(b + 1) * p, bp * p:(bp + 1) * p] += F[b, bp] * E[bp]
    return np.linalg.inv(S), E


def _random_t(rng):
    t = rng.standard_normal((3, 3)) * 0.3
    return t + t.T


def test_block_elimination_matches_dense_inverse():
    # Theta_bb' = tr(E_b Y_bb')/p from one p x p inverse equals the dense 3p x 3p inverse (round-off only)
    rng = np.random.default_rng(1)
    p, c, alpha = 30, 0.7, 0.6
    M = rng.standard_normal((p, p)) / np.sqrt(p) + 0.3 * np.eye(p)
    data = MatrixData(M)
    for _ in range(3):
        t = _random_t(rng)
        F = coefficient_matrix(t, alpha, c)
        Y, E = _dense_y(F, M)
        theta = np.array([[np.trace(E[b] @ Y[b * p:(b + 1) * p, bp * p:(bp + 1) * p]) / p for bp in range(3)]
                          for b in range(3)])
        assert np.allclose(Factored(F, data).theta, theta, atol=1e-11)
        T, fac = p_side(t, data, alpha, c)
        assert np.allclose(T[2], -theta[2], atol=1e-11) and np.allclose(T[0], -alpha * theta[1], atol=1e-11)
        # the block solve of the signal forms against the dense inverse
        r = [rng.standard_normal(p) for _ in range(3)]
        x = fac.solve(*r)
        assert np.allclose(np.concatenate(x), Y @ np.concatenate(r), atol=1e-10)


def test_hermite_data_at_scale_and_correlation():
    # f = x: alpha = 1, b^2 = 0; tanh at sigma = 1: a1 = 0.6057055..., nu = 1 - a1 (docs/theory.md, section 2)
    lin = scaled_hermite(lambda x: x, 2.0, 0.3)
    assert lin.alpha == pytest.approx(1.0, abs=1e-12) and lin.b2 == pytest.approx(0.0, abs=1e-10)
    th = scaled_hermite(np.tanh, 1.0, 1.0)
    assert th.a1 == pytest.approx(0.6057055096, abs=1e-9) and th.nu == pytest.approx(1 - th.a1, abs=1e-9)
    assert th.tau_e == pytest.approx(1.0, abs=1e-8)              # rho = 1: the symmetric case, beta = b^2
    # Mehler: beta = sum_{l>=2} a_l^2 rho^l; for He_2/sqrt2 (a_2 = 1 only) beta = rho^2
    he2 = scaled_hermite(lambda x: (x * x - 1) / np.sqrt(2), 1.0, -0.4)
    assert he2.beta == pytest.approx(0.16, abs=1e-10) and he2.b2 == pytest.approx(1.0, abs=1e-10)


def test_refusals_are_one_line():
    with pytest.raises(ParameterError, match="p x p"):
        attention_error_general("tanh(x)", 1.0, 0.1, np.ones((3, 4)))
    with pytest.raises(ParameterError, match="sigma"):
        attention_error_general("tanh(x)", 1.0, 0.1, np.zeros((4, 4)))
    with pytest.raises(ParameterError, match="length p"):
        attention_error_general("tanh(x)", 1.0, 0.1, np.eye(4), mu=np.ones(3))


def _spiked(p, rank, rng_seed=3):
    """I + sum_h w_K^(h) w_Q^(h)T with fixed coordinates in the first 2 rank + 1 axes, and mu along e_1."""
    rng = np.random.default_rng(rng_seed)
    V = np.zeros((1 + 2 * rank, p))
    V[:, :1 + 2 * rank] = np.eye(1 + 2 * rank) + 0.3 * np.triu(rng.standard_normal((1 + 2 * rank,) * 2), 1)
    mu, wK, wQ = V[0], V[1:1 + rank], V[1 + rank:]
    return np.eye(p) + wK.T @ wQ, mu, V @ V.T


@pytest.mark.parametrize("rank", [1, 2, 3])
@pytest.mark.parametrize("signal", [False, True])
def test_reduction_to_rank_r_theory_is_order_one_over_p(rank, signal):
    # M = I + rank r through weights= is the Gram theory up to O(1/p): sigma^2 = 1 + O(1/p), rho = 1 + O(1/p) and
    # tr M/p = 1 + O(1/p) are its only differences from the rank-r system (docs/general_weights.md, "Reduction").
    # So p * (general - gram) must be (nearly) the same at p = 100 and 200: the ratio of differences is 2 up to
    # the next order, O(1/p) = 1%; 1.8..2.2 leaves room for it. The difference itself is below 5/p.
    gammas = [0.05, 0.5]
    diffs = []
    for p in (100, 200):
        M, mu, G = _spiked(p, rank)
        if not signal:
            G = G.copy()
            G[0, :] = G[:, 0] = 0.0
        ref = symrmt.attention_error("tanh(x)", c=1.0, gamma=gammas, gram=G)
        got = attention_error_general("tanh(x)", 1.0, gammas, M, mu=mu if signal else None)
        diffs.append(got - ref)
    ratio = diffs[0] / diffs[1]
    assert np.all(np.abs(diffs[1]) < 5 / 200)
    assert np.all((ratio > 1.8) & (ratio < 2.2)), (diffs, ratio)


@pytest.mark.slow
def test_reduction_ladder_200_400_800():
    # the ladder: p = 200, 400, 800, rank 2 with mu; each halving of the difference within 10% of 2
    diffs = []
    for p in (200, 400, 800):
        M, mu, G = _spiked(p, 2)
        ref = symrmt.attention_error("tanh(x)", c=1.0, gamma=[0.1], gram=G)
        diffs.append(float((attention_error_general("tanh(x)", 1.0, [0.1], M, mu=mu) - ref)[0]))
    r1, r2 = diffs[0] / diffs[1], diffs[1] / diffs[2]
    assert 1.8 < r1 < 2.2 and 1.8 < r2 < 2.2, diffs
    # Richardson: 2 E(2p) - E(p) removes the 1/p term; what is left is O(1/p^2)
    assert abs(2 * diffs[2] - diffs[1]) < 0.05 * abs(diffs[2])


def test_kronecker_embedding_leaves_the_noise_theory_unchanged():
    # M (x) I_k has the same normalized traces of every word in M, M^T as M, so the noise-only theory is the same
    rng = np.random.default_rng(5)
    p = 40
    M = 0.4 * np.eye(p) + rng.standard_normal((p, p)) / np.sqrt(p)
    a = attention_error_general("tanh(x)", 1.0, [0.1, 1.0], M)
    b = attention_error_general("tanh(x)", 1.0, [0.1, 1.0], np.kron(M, np.eye(2)))
    assert np.allclose(a, b, atol=1e-8)


def test_signal_forms_symmetry():
    # Pi_ij = Pi_ji^T (the n-side resolvent is symmetric), so the 3 x 3 forms with (v, v, v) are symmetric
    rng = np.random.default_rng(2)
    p = 30
    M = rng.standard_normal((p, p)) / np.sqrt(p) + 0.5 * np.eye(p)
    sol = solve_general("tanh(x)", 1.0, [0.3], M)
    t = sol.t[0]
    _, fac = p_side(t, MatrixData(M), sol.hermite.alpha, 1.0)
    v = rng.standard_normal(p)
    Z = signal_forms(t, fac, 1.0, [v, v, v])
    assert np.allclose(Z, Z.T, atol=1e-10)


@pytest.mark.parametrize("signal", [False, True])
def test_identity_weights_are_the_rank_zero_theory_exactly(signal):
    # M = I: sigma = rho = tr M/p = 1 exactly and no low-rank part, so the general system is the rank-0 system of
    # docs/theory.md sections 3-7 (the Marchenko-Pastur average done by the p-side self-energy instead of an
    # integral). Agreement to 1e-8: the central difference in gamma (relative step 2e-5) is exact to ~1e-9.
    p = 60
    mu = np.zeros(p)
    mu[0] = 1.0
    G = np.diag([1.0 if signal else 0.0, 0.0, 0.0])
    ref = symrmt.attention_error("tanh(x)", c=0.8, gamma=[0.02, 0.3, 3.0], gram=G)
    got = attention_error_general("tanh(x)", 0.8, [0.02, 0.3, 3.0], np.eye(p), mu=mu if signal else None)
    assert np.allclose(got, ref, atol=1e-8, rtol=0)


def test_kronecker_embedding_with_signal_is_invariant():
    # (M (x) I_k, mu = u (x) e_1): every quadratic form v^T f(M (x) I, M^T (x) I) v equals u^T f(M, M^T) u and every
    # normalized trace is unchanged, so the theory with a signal is the same too (to the solver's 1e-9)
    rng = np.random.default_rng(6)
    p = 30
    M = 0.3 * np.eye(p) + rng.standard_normal((p, p)) / np.sqrt(p)
    u = rng.standard_normal(p)
    u /= np.linalg.norm(u)
    a = attention_error_general("tanh(x)", 1.0, [0.1, 1.0], M, mu=u)
    b = attention_error_general("tanh(x)", 1.0, [0.1, 1.0], np.kron(M, np.eye(2)), mu=np.kron(u, [1.0, 0.0]))
    assert np.allclose(a, b, atol=1e-8)


def test_elliptic_model_matches_the_exact_kernel_on_an_elliptic_matrix():
    # On a sampled sI + E (E elliptic, tau = 0.3) the exact traces fluctuate around the model's by O(1/p):
    # measured 3e-4 at p = 300; at p = 120 allow 5e-3 (about 10/p times E). On M = I (v = 0) they are equal.
    from symrmt.general.elliptic import attention_error_elliptic
    rng = np.random.default_rng(3)
    p, tau = 120, 0.3
    A, B = rng.standard_normal((p, p)), rng.standard_normal((p, p))
    E = (np.sqrt((1 + tau) / 2) * (A + A.T) + np.sqrt((1 - tau) / 2) * (B - B.T)) / np.sqrt(2 * p)
    M = 0.3 * np.eye(p) + 0.9 * E
    g = [0.05, 1.0]
    assert np.allclose(attention_error_elliptic("tanh(x)", 1.0, g, M), attention_error_general("tanh(x)", 1.0, g, M),
                       atol=5e-3)
    assert np.allclose(attention_error_elliptic("tanh(x)", 1.0, g, np.eye(40)),
                       attention_error_general("tanh(x)", 1.0, g, np.eye(40)), atol=1e-9)
