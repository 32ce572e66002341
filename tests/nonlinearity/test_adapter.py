"""symrmt.nonlinearity.adapter: every kind of f becomes one checked, vectorized float64 NumPy function."""
from __future__ import annotations

import math
import subprocess
import sys

import numpy as np
import pytest
import sympy as sp

from symrmt.errors import NonlinearityError, ParseError, SymrmtInputError
from symrmt import nonlinearity as nl
from symrmt.nonlinearity import X, numpy_callable, parse_nonlinearity


PTS = np.linspace(-3, 3, 7)


@pytest.mark.parametrize("f", ["tanh(x)", sp.tanh(X), sp.tanh(sp.Symbol("x")), sp.tanh, np.tanh,
                               lambda t: np.tanh(t)])
def test_every_kind_of_f_gives_the_same_function(f):
    g = numpy_callable(f)
    out = g(PTS.reshape(7, 1))
    assert out.dtype == np.float64 and out.shape == (7, 1)
    np.testing.assert_allclose(out.ravel(), np.tanh(PTS), rtol=1e-15)


def test_constant_expression_and_integer_input():
    assert numpy_callable(sp.Integer(0))(np.ones((2, 3))).shape == (2, 3)
    assert numpy_callable(lambda t: 2)(np.ones(4)).tolist() == [2.0] * 4
    assert numpy_callable("x")(np.arange(3)).dtype == np.float64
    assert not hasattr(nl, "numeric_callable")            # the earlier alias is gone: one name, numpy_callable


def test_complex_values_are_refused_not_truncated():
    with pytest.raises(NonlinearityError, match="complex"):
        numpy_callable(lambda t: np.exp(1j * t))(PTS)
    with pytest.raises(NonlinearityError, match="complex"):
        numpy_callable(sp.exp(sp.I * X))(PTS)
    assert numpy_callable(lambda t: t + 0j)(PTS).dtype == np.float64      # zero imaginary part is fine


@pytest.mark.parametrize("f, error, match", [
    ("os.system", ParseError, "allowed"),
    (sp.Symbol("x") + sp.Symbol("y"), SymrmtInputError, "besides x"),
    (3.0, NonlinearityError, "vectorized NumPy function"),
    (sp.Eq(X, 1), NonlinearityError, "SymPy expression"),
    (None, NonlinearityError, "formula"),
])
def test_refusals(f, error, match):
    with pytest.raises(error, match=match):
        numpy_callable(f)


def test_non_entrywise_callables_are_refused():
    with pytest.raises(NonlinearityError, match="entrywise"):
        numpy_callable(lambda t: t[:2])(PTS)
    with pytest.raises(NonlinearityError, match="non-numeric"):
        numpy_callable(lambda t: np.array(["a"] * t.size))(PTS)


def test_simulation_uses_the_adapter_and_stays_free_of_sympy():
    from symrmt.simulation import setup

    model = setup.with_f(setup.validated_model(20, 1.0, None, None, 0.0, False)[0], "relu(x)")
    np.testing.assert_array_equal(model.f(np.array([-1.0, 2.0])), [0.0, 2.0])
    assert model.label == "relu(x)" and setup.numpy_callable is numpy_callable
    code = ("import sys, numpy as np, symrmt.simulation as s; from symrmt.nonlinearity import numpy_callable; "
            "numpy_callable(np.tanh); s.simulate(np.tanh, 20, 1.0, 0.1, seeds=2); print('sympy' in sys.modules)")
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip() == "False"


def test_what_a_callable_raises_becomes_one_nonlinearity_error():
    with pytest.raises(NonlinearityError, match=r"f = <lambda>: calling it on an array failed \(ZeroDivisionError"):
        numpy_callable(lambda t: 1 / 0)(PTS)
    with pytest.raises(NonlinearityError, match="entrywise.*math.tanh"):
        numpy_callable(math.tanh)(PTS)
    with pytest.raises(MemoryError):                       # not the user's fault: passed through
        numpy_callable(lambda t: (_ for _ in ()).throw(MemoryError()))(PTS)


def test_numpy_callable_is_vectorized_float64_and_matches_sympy():
    pts = np.linspace(-3, 3, 13)
    for f in ["tanh(x)", "relu(x) - 1/sqrt(2*pi)", "gelu(x)", "erf(x)", "Heaviside(x) - 1/2", "sign(x)", "elu(x)"]:
        g = numpy_callable(f)
        out = g(pts)
        assert out.dtype == np.float64 and out.shape == pts.shape
        expr = parse_nonlinearity(f)
        ref = np.array([float(expr.subs(X, sp.Float(float(t), 30)).evalf(30)) for t in pts])
        np.testing.assert_allclose(out, ref, rtol=1e-14, atol=1e-15)
        assert g(pts.reshape(13, 1)).shape == (13, 1)
    assert numpy_callable("x")(np.zeros((2, 3), dtype=np.float32)).dtype == np.float64
    assert numpy_callable("x")(1.5).shape == ()
    sig = numpy_callable("sigmoid(x)")(np.array([-1000.0, 0.0, 1000.0]))
    np.testing.assert_array_equal(sig, [0.0, 0.5, 1.0])  # exp overflow is silent and gives the limit
    with pytest.raises(SymrmtInputError):
        numpy_callable("os.system")
