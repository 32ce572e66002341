"""symrmt.codegen.numba_backend: kernels that compute exactly what the NumPy functions compute, bit for bit."""
from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

from symrmt.runtime import jit
from symrmt.codegen import compile_system, numpy_function
from symrmt.codegen.numba_backend import PointwiseKernel, kernel_source, pointwise_kernel
from symrmt import models
from symrmt.solve.problem import stack

numba = pytest.importorskip("numba")

#: Every exact system (the algebraic forms): (kind, rank, without_linear_part).
EXACT = [("attention", 1, False), ("attention", 2, False), ("attention", 3, False), ("attention", 1, True),
         ("linear", 1, False), ("gram_density", 1, False), ("kernel_density", 1, False)]


def _kernel_outputs(kernel: PointwiseKernel, rows, n):
    with jit.mode("always"):
        out = kernel(rows, n)
    assert out is not None, kernel.budget.error
    return out


def _random_rows(rng, count: int, n: int):
    # Any finite values of either sign: the comparison is of arithmetic, not of solutions (NaN where NumPy has NaN).
    return list(rng.uniform(0.05, 2.0, (count, n)) * rng.choice([-1.0, 1.0], (count, n)))


def _same(function, kernel, rng, n=257):
    rows = _random_rows(rng, function.__code__.co_argcount, n)
    with np.errstate(all="ignore"):
        values = function(*rows)
    expected = stack(values if isinstance(values, list) else [values], n)
    return np.array_equal(_kernel_outputs(kernel, rows, n), expected, equal_nan=True)


@pytest.mark.parametrize("kind, rank, without", EXACT)
def test_every_kernel_of_an_exact_system_is_its_numpy_function_bit_for_bit(kind, rank, without):
    """The residuals of every exact system; the observables of all but ranks 2 and 3 (their Woodbury forms are the
    rank-1 statements with more entries, and compiling them took 10 s of the suite)."""
    compiled = compile_system(models.get(kind).system(rank, "algebraic", without))
    if compiled.complex:                                # only real systems get kernels
        assert compiled.residual_native is None
        return
    rng = np.random.default_rng(rank)
    assert _same(compiled.residual_function, compiled.residual_native, rng)
    for observable in compiled.observables if rank == 1 else ():
        for function, kernel in ((observable.value, observable.value_native), (observable.rate, observable.rate_native)):
            if function is not None:
                assert _same(function, kernel, rng), observable.key


def test_a_planted_error_in_a_kernel_is_seen_by_the_comparison():
    """The power of the test above: one output changed by one unit in the 15th digit fails it."""
    compiled = compile_system(models.ATTENTION.system(1, "algebraic"))
    source = kernel_source(compiled.residual_function)
    planted = PointwiseKernel(compiled.residual_function, compiled.residual_native.outputs)
    namespace = {"sqrt": np.sqrt, "pi": np.pi, "nan": np.nan}
    exec(source.replace("out[3, i] = ", "out[3, i] = 1e-15 + ", 1), namespace)  # noqa: S102 - the package's own kernel, planted
    planted.budget = jit.Budget(lambda: jit.njit(namespace["kernel"], "void(float64[:, ::1], float64[:, ::1])"))
    assert not _same(compiled.residual_function, planted, np.random.default_rng(0))
    assert _same(compiled.residual_function, compiled.residual_native, np.random.default_rng(0))


def test_what_numpy_computes_differently_keeps_the_numpy_function():
    x, y = sp.symbols("x y")
    assert kernel_source(numpy_function(sp.exp(x) + y, (x, y))) is None         # NumPy's exp is not libm's
    assert kernel_source(numpy_function(x ** sp.Rational(1, 3), (x,))) is None    # nor its pow
    out = sp.Symbol("out")
    assert kernel_source(numpy_function(out + y, (out, y))) is None                # a name the kernel uses
    source = kernel_source(numpy_function([sp.Max(0, 1 - x) + sp.Abs(y) + sp.sqrt(x) + 1 / x,
                                           sp.Piecewise((x, x > 1), (y, True))], (x, y)))
    assert "max(0, 1 - x)" in source and "abs(y)" in source and "sqrt(x)" in source
    assert " if x > 1 else y" in source.replace("(", "").replace(")", "")
    kernel = PointwiseKernel(numpy_function([sp.Max(0, 1 - x) + sp.Abs(y) + sp.sqrt(x) + 1 / x,
                                             sp.Piecewise((x, x > 1), (y, True))], (x, y)), 2)
    rows = [np.array([0.5, 2.0, 0.0, 4.0]), np.array([-1.0, 3.0, 2.0, -0.0])]
    with np.errstate(all="ignore"):
        expected = np.array([np.maximum(0, 1 - rows[0]) + np.abs(rows[1]) + np.sqrt(rows[0]) + 1 / rows[0],
                             np.where(rows[0] > 1, rows[0], rows[1])])
    assert np.array_equal(_kernel_outputs(kernel, rows, 4), expected)          # 1/0 = inf, as NumPy's


def test_no_kernel_without_numba(monkeypatch):
    monkeypatch.setattr(jit, "installed", lambda: False)
    assert pointwise_kernel(numpy_function(sp.Symbol("x") + 1, (sp.Symbol("x"),)), 1) is None


def test_a_solve_is_the_same_with_kernels_as_without(monkeypatch):
    """The solver with every kernel compiled returns the same unknowns and observables, bit for bit (the kernels of
    the elimination too, symrmt.solve.batched, whose own test compares it alone), when the step logic and the
    Woodbury form stay NumPy code: compiled too, they solve the small systems themselves and agree to round-off
    (tests/solve/test_native_path.py)."""
    from symrmt import solve_attention
    from symrmt.solve import exact, observe, path

    monkeypatch.setattr(path, "native_path", lambda compiled: None)
    monkeypatch.setattr(exact, "native_path", lambda compiled: None)
    monkeypatch.setattr(observe, "WOODBURY", jit.Budget(lambda: None, seconds=float("inf")))

    rng = np.random.default_rng(3)
    n = 300
    frames = rng.standard_normal((n, 3, 3))
    vectors = frames / np.linalg.norm(frames, axis=-1, keepdims=True) * rng.uniform(0, 1.5, (n, 3, 1))
    gram = np.einsum("nik,njk->nij", vectors, vectors)
    gram = dict(theta=gram[:, 0, 0], alpha_K=gram[:, 0, 1], alpha_Q=gram[:, 0, 2], omega_KK=gram[:, 1, 1],
                omega_QQ=gram[:, 2, 2], omega_KQ=gram[:, 1, 2])
    args = ((0.6057055, 0.3942945), rng.uniform(0.3, 3.0, n), 10 ** rng.uniform(-3, 1, n))
    d = rng.uniform(-0.5, 0.5, n)
    results = []
    for rule in ("never", "always"):
        with jit.mode(rule):
            results.append(solve_attention(*args, d=d, gram=gram, form="algebraic"))
    for name in ("error", "phi", "unknowns", "residual"):
        assert np.array_equal(getattr(results[0], name), getattr(results[1], name), equal_nan=True), name
