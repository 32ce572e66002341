"""symrmt.solve.batched: many small linear systems at once, as accurate as LAPACK's partial pivoting."""
from __future__ import annotations

import numpy as np
import pytest

from symrmt.solve import batched
from symrmt.solve.batched import VECTORIZED_FROM, solve_batched

POINTS = 4 * VECTORIZED_FROM          # above the threshold: the vectorized elimination runs


def _stack(rng, points: int, size: int, dtype=float):
    a = rng.standard_normal((size, size, points))
    b = rng.standard_normal((size, 2, points))
    if dtype is complex:
        a = a + 1j * rng.standard_normal(a.shape)
        b = b + 1j * rng.standard_normal(b.shape)
    return a, b


def _lapack(a, b):
    return np.linalg.solve(a.transpose(2, 0, 1), b.transpose(2, 0, 1)).transpose(1, 2, 0)


@pytest.mark.parametrize("dtype", [float, complex])
@pytest.mark.parametrize("size", [1, 3, 6, 9])
@pytest.mark.parametrize("points", [5, POINTS])
def test_agrees_with_lapack(dtype, size, points):
    a, b = _stack(np.random.default_rng(size), points, size, dtype)
    x = solve_batched(a, b)
    # Both are backward stable with the same pivots: differences are round-off times the condition number.
    cond = np.linalg.cond(a.transpose(2, 0, 1))
    error = np.max(np.abs(x - _lapack(a, b)), axis=(0, 1)) / np.max(np.abs(x), axis=(0, 1))
    assert np.all(error <= 100 * np.finfo(float).eps * cond)


def test_a_point_that_needs_a_row_exchange_is_as_accurate_as_partial_pivoting():
    # [[eps, 1], [1, 1]]: without the exchange the multiplier is 1/eps and the solution loses every digit.
    a = np.tile(np.array([[1e-17, 1.0], [1.0, 1.0]])[..., None], (1, 1, POINTS))
    b = np.tile(np.array([[1.0], [2.0]])[..., None], (1, 1, POINTS))
    x = solve_batched(a, b)
    assert np.allclose(x[:, 0], [[1.0], [1.0]], rtol=1e-15)


def test_the_growth_bound_is_what_sends_points_to_lapack():
    # Planted error: with any multiplier accepted (no fallback), the point above loses its digits. The test
    # above must then fail, which shows that it can.
    a = np.tile(np.array([[1e-17, 1.0], [1.0, 1.0]])[..., None], (1, 1, POINTS))
    b = np.tile(np.array([[1.0], [2.0]])[..., None], (1, 1, POINTS))
    x = solve_batched(a, b, growth=np.inf)
    assert not np.allclose(x[:, 0], [[1.0], [1.0]], rtol=1e-3)


def test_a_singular_matrix_fails_its_own_point_only():
    a, b = _stack(np.random.default_rng(0), POINTS, 4)
    a[:, :, 7] = 0.0
    a[2, :, 11] = a[1, :, 11]                          # two equal rows
    x = solve_batched(a, b)
    assert np.isnan(x[..., 7]).all() and not np.isfinite(x[..., 11]).all()
    good = np.setdiff1d(np.arange(POINTS), [7, 11])
    assert np.allclose(x[..., good], _lapack(a[..., good], b[..., good]))


def test_lapack_is_called_only_for_the_points_that_need_it(monkeypatch):
    calls = []
    original = batched.solve_each
    monkeypatch.setattr(batched, "solve_each", lambda m, r: calls.append(len(m)) or original(m, r))
    a, b = _stack(np.random.default_rng(1), POINTS, 3)
    a += 10 * np.eye(3)[..., None]                      # diagonally dominant: no exchange anywhere
    a[:, :, 3] = a[::-1, :, 3]                          # ... except at point 3
    solve_batched(a, b)
    assert calls == [1]


def _elimination_kernel():
    from symrmt.runtime import jit

    with jit.mode("always"):
        return batched._ELIMINATION.native()                  # compiled once per process


@pytest.mark.parametrize("size", [1, 3, 6, 9])
@pytest.mark.parametrize("growth", [1.0, 10.0])
def test_the_compiled_elimination_is_the_numpy_one_bit_for_bit(size, growth):
    """symrmt.runtime.jit's kernel of the elimination: the same operations in the same order, so the same bits, and the
    same points sent to LAPACK (a zero pivot, a NaN, an exchange), at any count of points."""
    pytest.importorskip("numba")
    rng = np.random.default_rng(size)
    for points in (1, 7, POINTS):
        a, b = _stack(rng, points, size)
        a[..., 0] = 0.0                              # singular
        if points > 2:
            a[0, 0, 1] = np.nan
            a[0, 0, 2] = 1e-12                       # tiny pivot: an exchange
        x, exchange = batched._eliminate(a, b, growth)
        kernel = _elimination_kernel()
        x_kernel, exchange_kernel = np.empty_like(b), np.zeros(points, bool)
        with np.errstate(all="ignore"):
            kernel(np.ascontiguousarray(a), np.ascontiguousarray(b), growth, x_kernel, exchange_kernel)
        assert np.array_equal(exchange, exchange_kernel)
        assert np.array_equal(x[..., ~exchange], x_kernel[..., ~exchange])


def test_solve_batched_with_the_kernel_compiled_is_the_same(monkeypatch):
    pytest.importorskip("numba")
    from symrmt.runtime import jit

    a, b = _stack(np.random.default_rng(5), POINTS, 6)
    with jit.mode("never"):
        plain = solve_batched(a, b, 10.0)
    with jit.mode("always"):
        assert batched._ELIMINATION.native() is not None
        assert np.array_equal(solve_batched(a, b, 10.0), plain)
