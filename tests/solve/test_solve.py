"""symrmt.solve: the solver takes a compiled system and arrays keyed by its symbols; it knows no model."""
import pathlib
import re
import subprocess
import sys

import mpmath
import numpy as np
import pytest

from symrmt.codegen import compile_system
from symrmt.derive import attention_system, linear_system
from symrmt.derive import symbols as S
from symrmt.derive.attention import ERROR, PHI
from symrmt.errors import ParameterError
import symrmt.solve as solve_module
from symrmt.solve import solve
from symrmt.solve.settings import REFINEMENTS

TANH = (0.6057055, 0.3942945)


def test_the_solver_and_the_numpy_layers_load_without_sympy():
    code = "import sys, symrmt.solve, symrmt.simulation, symrmt.geometry; print('sympy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


@pytest.mark.parametrize("token", ["t_11", "tau_11", "a_1", "theta", "alpha_K", "alpha_Q", "omega", "gamma",
                                   "attention", "kernel"])
def test_no_trace_of_the_model_in_the_solver_source(token):
    solver = pathlib.Path(__file__).parent.parent.parent / "symrmt" / "solve"
    for path in solver.glob("*.py"):
        assert token not in _without_examples(path.read_text()), f"{token!r} appears in {path.name}"


def _without_examples(source: str) -> str:
    """The source less its docstrings' Examples sections: those show the solver called on a model, as a user does."""
    return re.sub(r"\n\s*Examples\n\s*-{8}\n.*?(?=\"\"\")", "\n", source, flags=re.S)


def test_only_the_examples_are_left_out_of_the_source_check():
    planted = 'def f():\n    """Doc.\n\n    Examples\n    --------\n    >>> f(gamma=1)\n    """\n    return theta\n'
    assert "gamma" not in _without_examples(planted) and "theta" in _without_examples(planted)


def test_quadrature_refinement_converges_at_small_gamma():
    # The embedded error estimate must push small gamma at c = 1 to enough nodes: compare two start levels.
    params = {S.c: 1.0, S.gamma: np.array([1e-3, 1e-2]), S.a1: TANH[0], S.b: np.sqrt(TANH[1] - TANH[0] ** 2), S.d: 0.0,
              S.theta: 1.0, S.alpha_K: 0.5, S.alpha_Q: 0.5, S.omega_KK: 1.0, S.omega_QQ: 1.0, S.omega_KQ: 1.0}
    system = compile_system(attention_system())
    coarse, fine = solve(system, params, nodes=48), solve(system, params, nodes=1296)
    assert np.allclose(coarse[ERROR], fine[ERROR], atol=1e-8)


def _cubic_error(nu: float, c: float, gamma: float) -> float:
    """E at a1 = d = 0 from the cubic nu x^2 (x + c - 1) = c gamma (1 - x) (docs/theory.md section 12), 40 digits."""
    mpmath.mp.dps = 40
    nu, c, gamma = mpmath.mpf(nu), mpmath.mpf(c), mpmath.mpf(gamma)
    roots = mpmath.polyroots([nu, nu * (c - 1), c * gamma, -c * gamma], maxsteps=200, extraprec=200)
    x = max(mpmath.re(r) for r in roots if abs(mpmath.im(r)) < 1e-30 and max(0, 1 - c) < mpmath.re(r) < 1)
    return float(x - c * gamma * (1 - x) / (nu * (3 * x * x + 2 * (c - 1) * x) + c * gamma))


@pytest.mark.parametrize("refinements, reaches_round_off", [(REFINEMENTS, True), (0, False)])
def test_the_small_unknowns_reach_round_off_at_a_small_ridge(monkeypatch, refinements, reaches_round_off):
    # Newton stops relative to the largest unknown (t_11 ~ 1/gamma = 100 here), which left t_22 ~ 2e-3 and E
    # 5.5e-8 off the cubic in a CI run (nu = 4.25, c = 0.503, gamma = 0.01). One refinement step takes E to
    # round-off (measured 5e-16); 1e-12 is far above that and far below the 5.5e-8 of the planted run without it.
    monkeypatch.setattr(solve_module, "REFINEMENTS", refinements)
    nu, c, gamma = 4.25, 0.5028315779709409, 0.01
    system = compile_system(attention_system())
    params = {S.c: c, S.gamma: np.array([gamma]), S.a1: 0.0, S.b: np.sqrt(nu), S.d: 0.0, S.theta: 0.0,
              S.alpha_K: 0.0, S.alpha_Q: 0.0, S.omega_KK: 0.0, S.omega_QQ: 0.0, S.omega_KQ: 0.0}
    gap = abs(solve(system, params)[ERROR][0] - _cubic_error(nu, c, gamma))
    assert (gap <= 1e-12) == reaches_round_off, gap


def test_parameters_and_results_are_keyed_by_the_systems_symbols():
    system = compile_system(linear_system())
    result = solve(system, {S.c: 1.0, S.gamma: np.array([1.0, 2.0]), S.theta: 0.0})
    assert np.isclose(result[ERROR][0], 1 / np.sqrt(5)) and result[PHI].shape == (2,)
    assert result.unknown_keys == () and set(result.observables) == {PHI, ERROR}
    with pytest.raises(ParameterError, match=r"one array per parameter symbol \['c', 'gamma', 'theta'\]"):
        solve(system, {"c": 1.0, "gamma": 1.0, "theta": 0.0})
    with pytest.raises(ParameterError, match=r"missing \['theta'\]"):
        solve(system, {S.c: 1.0, S.gamma: 1.0})
    with pytest.raises(ParameterError, match=r"gamma = 0: must be in \(0, 1e\+12\]"):
        solve(system, {S.c: 1.0, S.gamma: 0.0, S.theta: 0.0})


def test_only_a_compiled_system_is_solved():
    with pytest.raises(TypeError, match="compile_system"):
        solve(linear_system(), {S.c: 1.0, S.gamma: 1.0, S.theta: 0.0})


def test_a_malformed_thread_count_is_one_clear_refusal(monkeypatch):
    from symrmt.solve import _threads

    monkeypatch.setenv("SYMRMT_THREADS", "two")
    with pytest.raises(ParameterError, match="SYMRMT_THREADS='two'.*positive integer"):
        _threads()
    monkeypatch.setenv("SYMRMT_THREADS", " 3 ")
    assert _threads() == 3
