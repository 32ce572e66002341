"""symrmt.nonlinearity.callables: numeric Hermite data of Python callables, with error estimates."""
from __future__ import annotations

import math

import numpy as np
import pytest

from symrmt.errors import NonlinearityError
from symrmt.nonlinearity import hermite


def test_numpy_ufunc_and_lambda_give_numeric_data_with_error_estimates():
    h = hermite(np.tanh)
    ref = hermite("tanh(x)")
    assert h.source == {k: "numeric" for k in ("a0", "a1", "a2", "nu")} and h.f is np.tanh
    for key in ("a1", "nu"):
        assert abs(getattr(h, key) - getattr(ref, key)) <= max(h.error[key], 1e-15) * 10 and h.error[key] < 1e-9
    relu = hermite(lambda t: np.maximum(t, 0), center=True)
    assert math.isclose(relu.a1, 0.5, rel_tol=1e-9) and math.isclose(relu.centered_by, 1 / math.sqrt(2 * math.pi))
    assert math.isclose(relu.nu, 0.5 - 1 / (2 * math.pi), rel_tol=1e-9) and relu.a0 == 0.0
    np.testing.assert_allclose(relu.f(np.array([-1.0, 1.0])), [-relu.centered_by, 1 - relu.centered_by])
    assert relu.numeric()["a1"] == relu.a1


@pytest.mark.parametrize("f, match", [
    (np.log, "not finite"),
    (lambda t: np.exp(t**2), "not square-integrable|not finite"),
    (math.tanh, "calling it on an array"),
    (lambda t: 0 * t, "zero"),
    (lambda t: np.exp(1j * t), "complex"),
    (lambda t: t[:3], "entrywise"),
])
def test_bad_callables_are_refused(f, match):
    with pytest.raises(NonlinearityError, match=match):
        hermite(f)


def test_an_uncentered_callable_reports_a0_and_is_refused_only_where_centering_is_needed():
    h = hermite(lambda t: t**2)
    assert math.isclose(h.a0, 1.0, rel_tol=1e-9) and math.isclose(h.nu, 3.0, rel_tol=1e-9) and h.centered_by == 0.0
    with pytest.raises(NonlinearityError, match="not centered"):
        h.require_centered()
    hermite(np.tanh).require_centered()         # a0 within its error estimate of 0
