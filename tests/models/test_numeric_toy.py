"""A toy model registered from the tests whose numeric solver follows its own system through symrmt.solve.curve.

The toy: one unknown t(gamma) on the physical root of t (gamma + c t) = 1, t = (sqrt(gamma^2 + 4c) - gamma)/(2c)
(the other root is negative), and the observable E = -gamma^2 dt/dgamma, which the continuation's rate gives
without differencing. Like general M, it is a system of its own (not a derived one) handed to the package's
one-curve continuation; the registry, solve_model, the command line and the LaTeX printer must treat it as
they treat the package's numeric models.
"""
import json

import numpy as np
import pytest

import symrmt
from symrmt import models
from symrmt.cli import main
from symrmt.errors import ConvergenceError, ParameterError
from symrmt.solve.curve import follow


class _Root:
    name, variable = "toy curve", "gamma"

    def __init__(self, c: float):
        self.c = c

    def evaluate(self, t, gamma):
        return t * (gamma + self.c * t) - 1.0, np.array([[gamma + 2 * self.c * t[0]]]), t.copy()

    def initial(self, gamma):
        return np.array([1.0 / gamma])                  # t ~ 1/gamma at a large gamma: the physical root


def _toy_curve_solver(c, gamma, *, form="auto", partial=False):
    """The solve hook: one continuation per value of c, down the user's gammas."""
    from symrmt.derive.symbols import ERROR
    from symrmt.theory import RidgeSolution
    from symrmt.validate import positive_array

    c, gamma = np.broadcast_arrays(positive_array("c", c), positive_array("gamma", gamma))
    t, error = np.empty(gamma.shape), np.empty(gamma.shape)
    for value in np.unique(c):
        where = np.flatnonzero(c.ravel() == value)
        for point in follow(_Root(float(value)), gamma.ravel()[where]):
            k = where[point.index]
            t.flat[k], error.flat[k] = point.t[0], -point.v**2 * point.rate[0]
    return RidgeSolution({ERROR: error}, t[None], np.zeros(gamma.shape), ("t",), np.zeros(gamma.shape, bool), ())


def _toy_statement() -> str:
    """The latex hook: the toy's own equation and observable (it has no derived system to print)."""
    return r"t\,(\gamma + c\,t) = 1, \qquad E = -\gamma^2\,\frac{dt}{d\gamma}"


def toy_curve_model(statement: bool = False) -> models.Model:
    """The toy numeric model, not yet registered; with ``statement``, its latex hook (tests/sweep registers it in a
    sweep's workers too)."""
    return models.Model(name="toy_curve", summary="t (gamma + c t) = 1 through symrmt.solve.curve",
                        solver=_toy_curve_solver, observables=("E",), latex=_toy_statement if statement else None)


@pytest.fixture
def toy_curve():
    model = models.register(toy_curve_model())
    yield model
    models.unregister(model.name)


def _exact(c, gamma):
    root = np.sqrt(gamma**2 + 4 * c)
    return -gamma**2 * (gamma / root - 1) / (2 * c)        # -gamma^2 dt/dgamma of the closed form


def test_a_numeric_toy_runs_through_solve_model(toy_curve):
    c, gamma = np.array([0.5, 2.0]), np.geomspace(1e-3, 10, 6)[:, None]
    solution = symrmt.theory.solve_model("toy_curve", c=c, gamma=gamma)
    # Newton stops at a residual of 1e-12 (relative to max(1, t)), and the residual's slope in t, sqrt(gamma^2 + 4c),
    # is at least sqrt(2) here: t is good to 1e-12, and E, the rate at the converged point, to about 1e-11
    assert solution.error.shape == (6, 2)
    assert np.allclose(solution.error, _exact(c, gamma), rtol=1e-9, atol=0)
    planted = _exact(c, gamma) * (1 + 1e-8)                   # an error of 1e-8 would be seen
    assert not np.allclose(solution.error, planted, rtol=1e-9, atol=0)
    with pytest.raises(ParameterError, match="c = -1"):
        symrmt.theory.solve_model("toy_curve", c=-1.0, gamma=0.1)


def test_a_numeric_toy_runs_through_the_cli(toy_curve, capsys):
    assert main(["theory", "--kind", "toy_curve", "--c", "0.5", "--gamma", "0.1,1", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["kind"] == "toy_curve"
    assert np.allclose(out["E"], _exact(0.5, np.array([0.1, 1.0])), rtol=1e-9, atol=0)


def test_latex_refuses_a_numeric_model_without_a_statement_in_one_line(toy_curve, capsys):
    with pytest.raises(ParameterError, match="the toy_curve model is solved numerically .* no printed statement") \
            as caught:
        symrmt.latex(kind="toy_curve")
    assert "\n" not in str(caught.value)
    # the command line: the same line and exit 2, not argparse's "invalid choice" (every registered model is a choice)
    assert main(["latex", "--kind", "toy_curve"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "solved numerically" in err[0] and "no printed statement" in err[0], err
    assert "invalid choice" not in err[0]


@pytest.fixture
def toy_statement():
    model = models.register(toy_curve_model(statement=True))
    yield model
    models.unregister(model.name)


def test_latex_prints_the_statement_of_a_numeric_model_with_a_latex_hook(toy_statement, capsys):
    assert symrmt.latex(kind="toy_curve") == _toy_statement()
    assert main(["latex", "--kind", "toy_curve"]) == 0
    assert capsys.readouterr().out.strip() == _toy_statement()
    assert main(["latex", "--kind", "toy_curve", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["kind"] == "toy_curve" and out["latex"] == _toy_statement()
    # an option the hook does not take would change nothing: refused in one line, in Python and on the command line
    with pytest.raises(ParameterError, match="prints its statement without solver_data"):
        symrmt.latex(kind="toy_curve", solver_data=True)
    assert main(["latex", "--kind", "toy_curve", "--solver-data"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "without solver_data" in err[0], err


def test_a_numeric_toy_that_cannot_follow_its_path_is_a_convergence_error(toy_curve, monkeypatch):
    monkeypatch.setattr(_Root, "initial", lambda self, gamma: np.array([np.nan]))     # planted: no start
    with pytest.raises(ConvergenceError, match="toy curve fixed point did not converge"):
        symrmt.theory.solve_model("toy_curve", c=1.0, gamma=0.1)
