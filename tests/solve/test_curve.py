"""The one-curve continuation of a costly system (symrmt.solve.curve): the path general M and numeric models take."""
import numpy as np
import pytest

from symrmt.errors import ConvergenceError, ParameterError
from symrmt.solve.curve import CurvePoint, Newton, follow, newton_step


class Quadratic:
    """t (v + t) = 1: the physical root t = (sqrt(v^2 + 4) - v)/2 ~ 1/v at large v (the other is ~ -v)."""

    name, variable = "quadratic", "v"

    def __init__(self, guess=lambda v: 1.0 / v):
        self.guess, self.evaluations = guess, 0

    def evaluate(self, t, v):
        self.evaluations += 1
        return t * (v + t) - 1.0, np.array([[v + 2 * t[0]]]), t.copy()

    def initial(self, v):
        return np.array([self.guess(v)])


def _root(v):
    return (np.sqrt(v * v + 4) - v) / 2


def test_follow_reaches_every_target_on_the_physical_branch_with_its_rate():
    targets = np.array([1e-3, 5.0, 0.1, 1.0])
    system = Quadratic()
    points = list(follow(system, targets))
    assert [p.index for p in points] == [1, 3, 2, 0]                   # from the largest target down
    t = np.array([p.t[0] for p in sorted(points, key=lambda p: p.index)])
    # Newton stops at a residual of 1e-12 relative to max(1, |t|), and t (v + t) - 1 has slope >= 1 there
    assert np.allclose(t, _root(targets), rtol=0, atol=1e-12)
    rate = np.array([p.rate[0] for p in sorted(points, key=lambda p: p.index)])
    exact = (targets / np.sqrt(targets**2 + 4) - 1) / 2                # dt/dv of the closed form
    assert np.allclose(rate, exact, rtol=1e-10, atol=0)
    # the path: 250 down to 1e-3 at most 2.5 apart, 15 points; the quintic predictor lands close enough for two
    # Newton steps and the check (a predictor gone wrong, such as an Euler step, needs several more per point)
    assert system.evaluations <= 4 * 15


def test_a_start_off_the_physical_branch_is_followed_there_and_caught():
    # planted: a start guess near the other root (-v) takes the continuation down the wrong branch
    points = list(follow(Quadratic(guess=lambda v: -v), np.array([1.0])))
    assert not np.allclose(points[0].t[0], _root(1.0), atol=1e-3)


class Fold:
    """t^2 = v - 1: solvable above v = 1 only, so a path to v = 0.5 must fail."""

    name, variable = "fold", "v"

    def evaluate(self, t, v):
        return t * t - (v - 1.0), np.array([[2 * t[0]]]), np.array([-1.0])

    def initial(self, v):
        return np.array([np.sqrt(v)])


def test_a_path_that_cannot_be_followed_is_a_convergence_error_not_a_parameter_error():
    with pytest.raises(ConvergenceError, match=r"the fold fixed point did not converge at v = ") as caught:
        list(follow(Fold(), np.array([0.5])))
    assert not isinstance(caught.value, ParameterError)


def test_a_singular_jacobian_is_a_convergence_error():
    class Singular(Quadratic):
        def evaluate(self, t, v):
            return np.array([1.0]), np.zeros((1, 1)), np.zeros(1)

    with pytest.raises(ConvergenceError, match="did not converge"):
        Newton(Singular())(np.array([0.5]), 1.0)


def test_newton_step_is_the_step_and_the_rate_of_one_solve():
    jacobian = np.array([[[2.0, 1.0], [0.0, 4.0]]])
    step, rate = newton_step(np.array([[3.0], [4.0]]), jacobian, np.array([[1.0], [2.0]]))
    assert np.allclose(step[:, 0], np.linalg.solve(jacobian[0], [3.0, 4.0]), rtol=1e-15)
    assert np.allclose(rate[:, 0], -np.linalg.solve(jacobian[0], [1.0, 2.0]), rtol=1e-15)


def test_the_batched_path_takes_the_same_newton_step():
    import symrmt.solve.path as path

    assert path.newton_step is newton_step
    assert CurvePoint.__module__ == "symrmt.solve.curve"
