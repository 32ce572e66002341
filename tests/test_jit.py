"""symrmt.runtime.jit: when a kernel is compiled (ski rental), the rules, and that NumPy stays correct without Numba."""
from __future__ import annotations

import numpy as np
import pytest

from symrmt.runtime import jit
from symrmt.errors import ParameterError


def _budget(seconds=1.0):
    built = []

    def build():
        built.append(1)
        return lambda: "compiled"
    return jit.Budget(build, seconds), built


@pytest.fixture
def numba_present(monkeypatch):
    monkeypatch.setattr(jit, "_numba", lambda: object())        # the rules only, no compilation


def test_auto_compiles_only_once_the_numpy_code_has_cost_the_budget(numba_present):
    budget, built = _budget(1.0)
    with jit.mode("auto"):
        assert budget.native() is None
        budget.spend(0.6)
        assert budget.native() is None and not built
        budget.spend(0.5)                       # 1.1 s >= 1 s: now it pays
        assert budget.native()() == "compiled"
        assert budget.native()() == "compiled" and built == [1]        # once


def test_by_default_the_kernels_share_the_process_ledger(numba_present, monkeypatch):
    """Kernels without a ledger of their own compile once the process has spent COMPILE_SECONDS in any of them."""
    monkeypatch.setattr(jit._Ledger, "seconds", 0.0)
    residual, built_residual = _budget(None)
    observable, built_observable = _budget(None)
    with jit.mode("auto"):
        residual.spend(jit.COMPILE_SECONDS - 0.5)
        assert observable.native() is None and residual.native() is None
        residual.spend(0.5)
        assert observable.native() is not None and not built_residual   # each compiles at its own next use
        assert residual.native() is not None and built_residual == [1] and built_observable == [1]
    assert jit.spent() == jit.COMPILE_SECONDS


def test_always_compiles_at_first_use_and_never_does_not_compile(numba_present):
    budget, built = _budget(1e9)
    with jit.mode("never"):
        budget.spend(1e10)
        assert budget.native() is None and not built
    with jit.mode("always"):
        assert budget.native() is not None and built == [1]
    with jit.mode("never"):                     # a compiled kernel is not used under "never" either
        assert budget.native() is None


def test_without_numba_nothing_is_compiled(monkeypatch):
    monkeypatch.setattr(jit, "_numba", lambda: None)
    budget, built = _budget(0.0)
    with jit.mode("always"):
        assert not jit.available() and budget.native() is None and not built


def test_a_kernel_that_fails_to_compile_leaves_numpy_in_use(numba_present):
    def build():
        raise TypeError("unsupported")
    budget = jit.Budget(build, 0.0)
    with jit.mode("always"):
        assert budget.native() is None and budget.native() is None


def test_an_unknown_rule_is_refused_with_the_fix(monkeypatch):
    monkeypatch.setenv("SYMRMT_JIT", "sometimes")
    with pytest.raises(ParameterError, match="SYMRMT_JIT='sometimes'.*auto, always, never"):
        jit.current_mode()
    with pytest.raises(ValueError, match="one of auto, always, never"):
        with jit.mode("sometimes"):
            pass


def test_the_environment_sets_the_rule(monkeypatch):
    monkeypatch.setenv("SYMRMT_JIT", " Never ")
    assert jit.current_mode() == "never" and not jit.available()
    with jit.mode("always"):
        assert jit.current_mode() == "always"


def test_njit_compiles_ieee_arithmetic_with_numpys_error_model():
    pytest.importorskip("numba")

    def divide(x, out):
        for i in range(x.shape[0]):
            out[i] = 1.0 / x[i] + 0.1 * x[i]
    kernel = jit.njit(divide, "void(float64[::1], float64[::1])")
    x = np.array([0.0, 3.0, -7.5e-300, 1e308])
    out = np.empty(4)
    kernel(x, out)
    with np.errstate(all="ignore"):
        expected = 1.0 / x + 0.1 * x
    assert np.array_equal(out, expected)        # 1/0 = inf, not ZeroDivisionError; the same roundings
