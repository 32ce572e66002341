"""Unit tests of symrmt.simulation.linalg: each route against a dense reference, the Lanczos
bracket, the rounding fallbacks and the blocked products (the cost model: tests/simulation/test_routes.py)."""
from __future__ import annotations

import time

import numpy as np
import pytest

from symrmt.simulation import linalg, two_stage
from symrmt.simulation.linalg import GRAM_RTOL, errors_gram, errors_svd, exact_errors
from symrmt.simulation.linalg import exact as exact_route, gram as gram_products, lanczos as lanczos_route
from symrmt.simulation.linalg import tridiagonal as tridiagonal_route

GAMMAS = np.geomspace(1e-3, 1e2, 9)


def dense_errors(F, y, gammas):
    """E(gamma) = gamma^2/n ||(F^T F/n + gamma)^-1 y||^2, one dense solve per gamma."""
    n = F.shape[1]
    G = F.T @ F / n
    return np.array([g * g * np.sum(np.linalg.solve(G + g * np.eye(n), y) ** 2) / n for g in gammas])


def problem(m, n, seed=0):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((m, n)), rng.choice([-1.0, 1.0], n)


def tridiagonal(F, y, gammas):
    """The tridiagonal route on the side :mod:`symrmt.simulation.routes` uses for this shape."""
    m, n = F.shape
    if m >= n:
        return linalg.tridiagonal_errors(linalg.gram_matrix(F), y, gammas, n)
    return linalg.tridiagonal_errors(linalg.cogram_matrix(F), F @ y / np.sqrt(n), gammas, n, float(y @ y))


def lanczos(F, y, gammas):
    n = F.shape[1]
    errors, steps = linalg.lanczos_errors(lambda v: F.T @ (F @ v) / n, y, gammas, max_steps=n + 1)
    assert errors is not None and steps <= n + 1
    return errors


@pytest.mark.parametrize("shape", [(30, 50), (50, 50), (80, 50)])
@pytest.mark.parametrize("route, rtol", [(exact_errors, 1e-10), (tridiagonal, 1e-10), (lanczos, linalg.LANCZOS_RTOL)],
                         ids=["exact", "tridiagonal", "lanczos"])
def test_every_route_matches_a_dense_solve(shape, route, rtol):
    """Condition numbers here are <= lambda_max/gamma_min ~ 6e3, so the dense solve is good to ~1e-12;
    exact and tridiagonal are exact up to rounding (1e-10 leaves a margin), Lanczos is certified to
    LANCZOS_RTOL / 2 relative (LANCZOS_RTOL leaves the margin)."""
    F, y = problem(*shape, seed=sum(shape))
    np.testing.assert_allclose(route(F, y, GAMMAS), dense_errors(F, y, GAMMAS), rtol=rtol, atol=0)


def test_the_dense_reference_has_teeth():
    """A planted change of 1e-3 in one entry of F moves E by far more than the tolerances above."""
    F, y = problem(50, 50, seed=1)
    planted = F.copy()
    planted[0, 0] += 1e-3
    assert np.max(np.abs(exact_errors(planted, y, GAMMAS) / dense_errors(F, y, GAMMAS) - 1)) > 10 * linalg.LANCZOS_RTOL


@pytest.mark.parametrize("shape", [(90, 60), (60, 60), (120, 60)])
def test_gram_and_svd_routes_agree(shape):
    """For m >= n the fast eigh route is used when its bound allows; both routes must agree."""
    rng = np.random.default_rng(sum(shape))
    F, y = rng.standard_normal(shape), rng.choice([-1.0, 1.0], shape[1])
    gammas = np.logspace(-3, 2, 11)
    gram, bound = errors_gram(F, y, gammas)
    assert bound <= GRAM_RTOL  # so exact_errors takes this route here
    np.testing.assert_allclose(gram, errors_svd(F, y, gammas), rtol=1e-10)
    np.testing.assert_array_equal(exact_errors(F, y, gammas), gram)


def test_tiny_gamma_dispatches_to_svd(monkeypatch):
    rng = np.random.default_rng(0)
    F, y = rng.standard_normal((90, 60)), rng.choice([-1.0, 1.0], 60)
    gammas = np.array([1e-9, 1.0])
    assert errors_gram(F, y, gammas)[1] > GRAM_RTOL
    shapes = []
    monkeypatch.setattr(exact_route, "errors_svd", lambda F, y, g: shapes.append(F.shape) or g)
    exact_errors(F, y, gammas)
    assert shapes == [(60, 60)]  # reduced by QR before the SVD


@pytest.mark.parametrize("shape", [(60, 60), (40, 60)])
def test_tridiagonal_and_lanczos_refuse_where_rounding_could_matter(shape):
    """At gamma = 1e-12 the a-priori bound 2 m eps lambda_max / gamma is ~1: both Gram routes say None."""
    F, y = problem(*shape, seed=3)
    gammas = np.array([1e-12, 1.0])
    assert linalg.rounding_bound(shape[0], 4.0, 1e-12) > GRAM_RTOL
    assert tridiagonal(F, y, gammas) is None
    n = shape[1]
    assert linalg.lanczos_errors(lambda v: F.T @ (F @ v) / n, y, gammas, max_steps=n + 1)[0] is None
    # the same problems at gamma >= 1e-3 are accepted (the refusal is the bound's, not the shape's)
    assert tridiagonal(F, y, GAMMAS) is not None


def test_lanczos_bracket_is_certified():
    """On a matrix with a known spectrum (hard edge at 0, like c = 1) the answer is inside the certified bracket."""
    rng = np.random.default_rng(0)
    n = 300
    lam = np.sort(rng.uniform(0, 2, n)) ** 2   # density ~ lambda^(-1/2) near 0
    basis = np.linalg.qr(rng.standard_normal((n, n)))[0]
    G = (basis * lam) @ basis.T
    y = rng.choice([-1.0, 1.0], n)
    gammas = np.geomspace(1e-3, 10, 15)
    a2 = (basis.T @ y) ** 2
    expected = gammas**2 * ((1 / (lam[None, :] + gammas[:, None]) ** 2) @ a2) / n
    got, steps = linalg.lanczos_errors(lambda v: G @ v, y, gammas, max_steps=n + 1)
    assert got is not None and steps <= n + 1
    np.testing.assert_allclose(got, expected, rtol=linalg.LANCZOS_RTOL / 2 * (1 + 1e-3))
    # A budget that says no gives up (and the caller takes the tridiagonal route).
    assert linalg.lanczos_errors(lambda v: G @ v, y, gammas, n + 1, cost_budget=lambda k: False)[0] is None


def test_gauss_and_radau_bounds_bracket_the_truth_at_every_step():
    """Golub--Meurant: after every step k, Gauss <= y^T (G + gamma)^-2 y / ||y||^2 <= Gauss--Radau."""
    rng = np.random.default_rng(4)
    n = 80
    lam = np.sort(rng.uniform(0, 3, n))
    basis = np.linalg.qr(rng.standard_normal((n, n)))[0]
    G = (basis * lam) @ basis.T
    y = rng.choice([-1.0, 1.0], n)
    gammas = np.array([1e-2, 0.3, 5.0])
    a2 = (basis.T @ y) ** 2 / (y @ y)
    truth = (1 / (lam[None, :] + gammas[:, None]) ** 2) @ a2
    tau = 1e-9 * gammas.min()
    store = lanczos_route._Basis(n, n + 1)
    store.append(y / np.linalg.norm(y))
    alpha, beta, widths = [], [], []
    for k in range(1, 31):
        a, b = lanczos_route._lanczos_step(G @ store.active[-1], store, beta[-1] if beta else 0.0)
        alpha.append(a)
        beta.append(b)
        if k == 1:
            continue   # LAPACK's ptsv needs two rows (lanczos_errors checks first at CHECK_EVERY = 8)
        lower, upper = lanczos_route._bracket(np.array(alpha), np.array(beta[:-1]), b, gammas, tau)
        # rounding of the 80-by-80 Lanczos recurrence is ~1e-13 relative
        assert np.all(lower <= truth * (1 + 1e-12)) and np.all(truth <= upper * (1 + 1e-12))
        widths.append(np.max((upper - lower) / truth))
    assert widths[-1] < 1e-3 * widths[0]   # and the bracket closes


def test_tridiagonal_push_through_side():
    """p < n: the p-by-p side with ||y||^2 - z^T (H + 2 gamma)(H + gamma)^-2 z equals the SVD route."""
    rng = np.random.default_rng(1)
    F, y = rng.standard_normal((40, 100)), rng.choice([-1.0, 1.0], 100)
    gammas = np.geomspace(1e-6, 1e2, 17)
    H = F @ F.T / 100
    got = linalg.tridiagonal_errors(H, F @ y / 10.0, gammas, 100, float(y @ y))
    np.testing.assert_allclose(got, exact_errors(F, y, gammas), rtol=1e-9)


def test_first_column_solves_fall_back_to_banded_lu():
    """ptsv refuses an indefinite T + gamma (rounding at an eigenvalue far below gamma); LU solves it."""
    diag, off, gammas = np.array([-1.0, 2.0, 1.0]), np.array([0.1, 0.2]), np.array([0.5, 3.0])
    u1, unorm2 = linalg.first_column_solves(diag, off, gammas)
    for i, g in enumerate(gammas):
        T = np.diag(diag + g) + np.diag(off, 1) + np.diag(off, -1)
        u = np.linalg.solve(T, np.eye(3)[:, 0])
        np.testing.assert_allclose([u1[i], unorm2[i]], [u[0], u @ u], rtol=1e-13)


def test_blocked_symmetric_product(monkeypatch):
    """Above SYRK_COLUMNS the Gram matrix is built by blocks: same values, exactly symmetric."""
    F = np.random.default_rng(0).standard_normal((30, 70))
    monkeypatch.setattr(gram_products, "SYRK_COLUMNS", 16)
    blocked = linalg.symmetric_product(F)
    np.testing.assert_array_equal(blocked, blocked.T)
    np.testing.assert_allclose(blocked, F.T @ F, rtol=1e-13, atol=1e-12)
    np.testing.assert_allclose(linalg.gram_matrix(F), F.T @ F / 70, rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(linalg.cogram_matrix(F), F @ F.T / 70, rtol=1e-13, atol=1e-13)


def test_serial_blas_nests_and_restores():
    threadpoolctl = pytest.importorskip("threadpoolctl")

    def blas_threads():
        return [info["num_threads"] for info in threadpoolctl.threadpool_info() if info["user_api"] == "blas"]

    before = blas_threads()
    with linalg.serial_blas():
        with linalg.serial_blas():
            assert all(t == 1 for t in blas_threads())
        assert all(t == 1 for t in blas_threads())   # the outer use still holds the limit
    assert blas_threads() == before


@pytest.mark.parametrize("shape", [(30, 70), (300, 517), (517, 300)])
def test_symmetric_product_is_exactly_symmetric(shape):
    """F^T F to rounding, exactly symmetric (the tridiagonal route needs it), C-contiguous (the scores
    are built from it by blocks of rows)."""
    F = np.random.default_rng(1).standard_normal(shape)
    gram = linalg.symmetric_product(F)
    assert gram.flags.c_contiguous
    np.testing.assert_array_equal(gram, gram.T)
    np.testing.assert_allclose(gram, F.T @ F, rtol=1e-13, atol=1e-11)
    planted = gram.copy()
    planted[-1, 0] += 1.0                     # the check above would catch one wrong mirrored entry
    assert not np.array_equal(planted, planted.T)


@pytest.mark.skipif(not two_stage.available(), reason="no dsytrd_2stage in SciPy's LAPACK")
@pytest.mark.parametrize("m", [5, 300, 1100])
def test_two_stage_reduction_keeps_e1_and_the_spectrum(m):
    """dsytrd_2stage's T has G's eigenvalues and e_1^T f(T) e_1 = e_1^T f(G) e_1: the route's identity holds."""
    rng = np.random.default_rng(m)
    Z = rng.standard_normal((m, m))
    G = Z.T @ Z / m
    diag, off = two_stage.tridiagonalize(np.asfortranarray(G))
    T = np.diag(diag) + np.diag(off, 1) + np.diag(off, -1)
    lam, vectors = np.linalg.eigh(G)
    np.testing.assert_allclose(np.linalg.eigvalsh(T), lam, rtol=0, atol=1e-11 * lam[-1])
    for g in (1e-3, 1.0):
        want = np.sum(vectors[0] ** 2 / (lam + g) ** 2)
        got = np.linalg.solve(T + g * np.eye(m), np.eye(m)[:, 0])
        np.testing.assert_allclose(got @ got, want, rtol=1e-8)


@pytest.mark.skipif(not two_stage.available(), reason="no dsytrd_2stage in SciPy's LAPACK")
def test_tridiagonal_route_above_two_stage_from_matches_dense(monkeypatch):
    """With the two-stage reduction (threshold lowered to reach it at a test size) the route still equals exact."""
    monkeypatch.setattr(tridiagonal_route, "TWO_STAGE_FROM", 64)
    F, y = problem(150, 120, seed=3)
    np.testing.assert_allclose(tridiagonal(F, y, GAMMAS), dense_errors(F, y, GAMMAS), rtol=1e-9)
    F, y = problem(90, 160, seed=4)      # p < n: the push-through side, 90-by-90
    np.testing.assert_allclose(tridiagonal(F, y, GAMMAS), exact_errors(F, y, GAMMAS), rtol=1e-9)


@pytest.mark.parametrize("workers", [1, 2])
def test_rows_product_is_the_product(workers):
    A = np.random.default_rng(5).standard_normal((1000, 300))
    V = np.random.default_rng(6).standard_normal((300, 2))
    np.testing.assert_allclose(linalg.rows_product(A, V, workers), A @ V, rtol=1e-13, atol=1e-12)


@pytest.mark.parametrize("steps", [(200, 200), (200, 5), (5, 200)])
def test_paired_lanczos_runs_equal_two_separate_runs(steps):
    """The attention-like G_1 = B A D and the linear G_2 = A share A's passes; each run is the one
    lanczos_errors makes alone, step for step, also when one stops first (its step cap)."""
    rng = np.random.default_rng(7)
    n = 120
    F = rng.standard_normal((150, n))
    C = F.T @ F / n
    K = rng.standard_normal((n, n)) / np.sqrt(n)
    y = rng.choice([-1.0, 1.0], n)
    alone = (linalg.lanczos_errors(lambda v: K.T @ (C @ (K @ v)), y, GAMMAS, steps[0]),
             linalg.lanczos_errors(lambda v: C @ v, y, GAMMAS, steps[1]))
    paired = linalg.lanczos_pair_errors(lambda v: K @ v, lambda V: linalg.rows_product(C, V), lambda w: K.T @ w,
                                        y, GAMMAS, steps)
    for (got, k_got), (want, k_want) in zip(paired, alone):
        assert k_got == k_want
        if want is None:
            assert got is None
        else:
            np.testing.assert_allclose(got, want, rtol=1e-12)
    assert paired[0][0] is not None or steps[0] == 5   # the planted short cap must be what stops a run


@pytest.mark.parametrize("slow", [1, 2])
def test_lanczos_steps_run_on_the_thread_count_they_time_faster(slow):
    """_run_steps times _TRIAL_STEPS steps on each count, then keeps the faster; a planted delay on one
    count must send most steps to the other."""
    threadpoolctl = pytest.importorskip("threadpoolctl")
    if not threadpoolctl.threadpool_info():
        pytest.skip("no BLAS found by threadpoolctl")
    seen = []

    def step():
        count = lanczos_route.available_threads()
        seen.append(count)
        if count == slow:
            time.sleep(0.002)
        return len(seen) < 300

    lanczos_route._run_steps(step, (1, 2))
    fast = 3 - slow
    assert seen.count(fast) > 0.8 * len(seen)
    assert seen.count(slow) >= 2 * lanczos_route._TRIAL_STEPS   # but tried again after the first trial round
