"""The joint s*I + rank-r fit: planted recovery, global optimality against an exact reference, properties."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import example, given, strategies as st
from scipy.linalg import subspace_angles

from symrmt.weights.fit import RTOL, CompressedMatrix, fit_shift, low_rank_part


def _dense(M):
    return CompressedMatrix(np.asarray(M, float), None, len(M))


def _symmetric_optimum(eigenvalues, r):
    """Exact optimum for a symmetric M: drop b eigenvalues from the bottom and r - b from the top, fit the mean.

    (For fixed s the residual keeps the p - r eigenvalues closest to s, a contiguous window of the
    sorted spectrum; minimizing over s puts s at the window's mean.)
    """
    lam = np.sort(eigenvalues)
    p = len(lam)
    windows = [lam[b:p - (r - b)] for b in range(r + 1)]
    values = [np.sum((w - w.mean()) ** 2) for w in windows]
    best = int(np.argmin(values))
    return values[best], windows[best].mean()


def test_planted_spikes_and_shift_are_recovered():
    """M = s0 I + U V^T (rank 3) + eps G: s0 and the rank-3 part come back within bounds set by eps."""
    rng = np.random.default_rng(3)
    p, r0, s0, eps = 120, 3, 0.7, 1e-3
    U, V = rng.standard_normal((p, r0)), rng.standard_normal((p, r0))
    noise = eps * rng.standard_normal((p, p))
    M = s0 * np.eye(p) + U @ V.T + noise
    fit = fit_shift(_dense(M), 6)
    s = fit.shift[r0]
    # (s0, U V^T) is a feasible fit, so the optimum leaves at most the noise
    assert fit.residual[r0] <= np.linalg.norm(noise) * (1 + 1e-9)
    # s = tr(M - L)/p at the optimum: tr(noise)/p has sd eps/sqrt(p), and the rank-3 part absorbs
    # O(eps sqrt(r0)) of the trace; 6 standard deviations of each
    assert abs(s - s0) <= 6 * eps * (1 / np.sqrt(p) + 3 * np.sqrt(r0) / p)
    # the fitted sI + L and s0 I + U V^T are both within ||noise|| of M
    u, sigma, v = low_rank_part(_dense(M), s, r0)
    L = (u.T * sigma) @ v
    assert np.linalg.norm(L - U @ V.T) <= 2 * np.linalg.norm(noise) + abs(s - s0) * np.sqrt(p)
    # Wedin: the singular subspaces move by at most ||E||_2 / gap, with ||noise||_2 ~ 2 eps sqrt(p)
    gap = np.linalg.svd(U @ V.T, compute_uv=False)[r0 - 1]
    bound = 2 * (np.linalg.norm(noise, 2) + abs(s - s0)) / gap
    assert np.max(np.sin(subspace_angles(u.T, U))) <= bound     # the left side (the key side of a weights M)
    assert np.max(np.sin(subspace_angles(v.T, V))) <= bound     # the right side (the query side)
    # the residual keeps falling until the planted rank and is flat (noise only) after it
    assert fit.residual[r0 - 1] > 10 * fit.residual[r0]
    assert np.all(np.diff(fit.residual) <= 1e-12 * np.linalg.norm(M))


def test_exact_sI_plus_rank_r_is_recovered_to_round_off():
    rng = np.random.default_rng(4)
    p, r0, s0 = 60, 2, -0.3
    M = s0 * np.eye(p) + rng.standard_normal((p, r0)) @ rng.standard_normal((r0, p))
    fit = fit_shift(_dense(M), 4)
    assert abs(fit.shift[r0] - s0) < 1e-10
    assert fit.residual[r0] < 1e-10 * np.linalg.norm(M)


def test_global_optimum_of_symmetric_matrices_with_two_local_minima():
    """Two clusters of outliers, at +3.0 and -3.1: dropping either is a local minimum; only one is global."""
    rng = np.random.default_rng(5)
    lam = np.concatenate([0.1 * rng.standard_normal(14), [3.0, 3.01, 2.99], [-3.1, -3.11, -3.09]])
    Q = np.linalg.qr(rng.standard_normal((20, 20)))[0]
    M = (Q * lam) @ Q.T
    exact, s_exact = _symmetric_optimum(lam, 3)
    fit = fit_shift(_dense(M), 3)
    # certified: within the relative tolerance RTOL of the optimum (and never below it)
    assert exact * (1 - 1e-12) <= fit.residual[3] ** 2 <= exact * (1 + RTOL)
    assert fit.lower[3] ** 2 <= exact * (1 + 1e-12)
    # f grows like (p - r)(s - s*)^2 = 17 (s - s*)^2 near s*, so a value within RTOL * 22 puts s within ~4e-4
    assert fit.shift[3] == pytest.approx(s_exact, abs=1e-3)
    # power: the alternating minimization s <- tr(M - L_s)/p, started on the other side, stays in the worse minimum
    s = -1.0
    for _ in range(50):
        u, sigma, v = low_rank_part(_dense(M), s, 3)
        s = np.trace(M - (u.T * sigma) @ v) / 20
    local = np.sum(np.linalg.svd(M - s * np.eye(20), compute_uv=False)[3:] ** 2)
    assert local > exact * 1.05


@given(seed=st.integers(0, 2**32 - 1), p=st.integers(2, 14), r=st.integers(0, 4))
def test_random_symmetric_matches_the_exact_optimum(seed, p, r):
    r = min(r, p - 1)
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((p, p))
    M = A + A.T
    exact, _ = _symmetric_optimum(np.linalg.eigvalsh(M), r)
    fit = fit_shift(_dense(M), r)
    floor = 1e-20 * np.sum(M**2)
    assert exact * (1 - 1e-12) - floor <= fit.residual[r] ** 2 <= exact * (1 + RTOL) + floor


@given(seed=st.integers(0, 2**32 - 1), p=st.integers(2, 12), rank_max=st.integers(0, 5))
@example(seed=20165, p=6, rank_max=5)   # non-normal, sigma_min touching 0 at a real eigenvalue: ~4100 SVDs
def test_properties_of_the_fit(seed, p, rank_max):
    """Residuals fall with r, the certified bound lies below them, and no grid point beats the fit."""
    rank_max = min(rank_max, p - 1)
    rng = np.random.default_rng(seed)
    M = rng.standard_normal((p, p)) + rng.uniform(-3, 3) * np.eye(p)
    fit = fit_shift(_dense(M), rank_max)
    norm = np.linalg.norm(M)
    assert np.all(np.diff(fit.residual) <= 1e-12 * norm)
    assert np.all(fit.lower <= fit.residual * (1 + 1e-12))
    grid = np.linspace(-10, 10, 401)
    values = np.linalg.svd(M[None] - grid[:, None, None] * np.eye(p), compute_uv=False)
    tails = np.array([np.sum(values[:, r:] ** 2, axis=1).min() for r in range(rank_max + 1)])
    assert np.all(fit.residual**2 <= tails * (1 + 1e-6) + 1e-24 * norm**2)


@given(seed=st.integers(0, 2**32 - 1), p=st.integers(5, 14), r0=st.integers(0, 2), s0=st.floats(-3, 3))
def test_exact_fits_are_exact(seed, p, r0, s0):
    """An exact s0 I + rank r0 (p > 2 r0 + 1, so s0 is the only shift that works) leaves nothing at rank r0."""
    rng = np.random.default_rng(seed)
    M = s0 * np.eye(p) + rng.standard_normal((p, r0)) @ rng.standard_normal((r0, p))
    fit = fit_shift(_dense(M), r0)
    assert fit.residual[r0] <= 1e-9 * max(np.linalg.norm(M), 1e-300)
    assert fit.shift[r0] == pytest.approx(s0, abs=1e-8 * max(1.0, np.linalg.norm(M)))


def test_compressed_head_equals_the_dense_matrix():
    """A head's M = A^T B / sqrt(d) of rank d, held on the 2d-dimensional span of its factors."""
    rng = np.random.default_rng(6)
    p, d = 40, 4
    A, B = rng.standard_normal((d, p)), rng.standard_normal((d, p))
    compressed = CompressedMatrix.from_factors(A, B, 0.5)
    dense = _dense(0.5 * A.T @ B)
    assert compressed.core.shape == (2 * d, 2 * d)
    np.testing.assert_allclose(compressed.dense(), dense.core, atol=1e-12)
    shifts = np.array([-1.0, 0.0, 0.3, 2.0])
    np.testing.assert_allclose(compressed.shifted_singular_values(shifts), dense.shifted_singular_values(shifts),
                               atol=1e-10)
    a, b = fit_shift(compressed, 6), fit_shift(dense, 6)
    np.testing.assert_allclose(a.residual, b.residual, rtol=1e-6, atol=1e-12)


def test_low_rank_part_off_the_core_span():
    """When |s| beats the core's singular values, the spikes lie off the span and still give the tail."""
    rng = np.random.default_rng(8)
    p, d = 30, 2
    matrix = CompressedMatrix.from_factors(1e-2 * rng.standard_normal((d, p)), rng.standard_normal((d, p)))
    M = matrix.dense()
    for s, r in ((1.0, 3), (-2.0, 6), (0.0, 2)):
        u, sigma, v = low_rank_part(matrix, s, r)
        residual = np.sum((M - s * np.eye(p) - (u.T * sigma) @ v) ** 2)
        tail = np.sum(matrix.shifted_singular_values(np.array([s]))[0, r:] ** 2)
        assert residual == pytest.approx(tail, rel=1e-9, abs=1e-20)
        np.testing.assert_allclose(u @ u.T, np.eye(r), atol=1e-10)
        np.testing.assert_allclose(v @ v.T, np.eye(r), atol=1e-10)
