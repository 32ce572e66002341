"""The engine's contract: the printed system is the solved one, the solver knows no model, rank-r is one derivation."""
import dataclasses
import pathlib
import subprocess
import sys

import numpy as np
import pytest
import sympy as sp

from symrmt.derive import attention_system, linear_system
from symrmt.derive import symbols as S
from symrmt.derive.attention import DYSON, PHI
from symrmt.derive.latex import system_latex
from symrmt.geometry import Geometry
from symrmt.solve import solve
from symrmt.theory import attention_error, gram_parameters, linear_error

TANH = (0.6057055, 0.3942945)
POINT = dict(c=1.3, gamma=np.array([0.05, 0.5, 5.0]), a_1=TANH[0], b=np.sqrt(TANH[1] - TANH[0] ** 2), d=0.2,
             theta=1.0, alpha_K=0.4, alpha_Q=-0.3, omega_KK=1.2, omega_QQ=0.8, omega_KQ=0.1)


def test_perturbing_one_printed_residual_moves_the_numbers_and_the_latex():
    system = attention_system()
    t12 = S.trace_symbol(1, 2)
    perturbed = dataclasses.replace(system, residuals={**system.residuals,
                                                       t12: system.residuals[t12] + sp.Rational(1, 1000)})
    before, after = solve(system, POINT)["E"], solve(perturbed, POINT)["E"]
    assert np.all(np.abs(after - before) > 1e-6)
    assert system_latex(perturbed) != system_latex(system)
    assert r"\frac{1}{1000}" in system_latex(perturbed)


def test_perturbing_the_printed_dyson_matrix_or_woodbury_form_moves_the_numbers():
    system = attention_system()
    dyson = system.definitions[DYSON].copy()
    dyson[2, 2] = dyson[2, 2] * sp.Rational(1001, 1000)
    form = system.observables[PHI]
    halved = dataclasses.replace(form, core=form.core / 2)
    base = solve(system, POINT)["E"]
    for mutant in (dataclasses.replace(system, definitions={**system.definitions, DYSON: dyson}),
                   dataclasses.replace(system, observables={**system.observables, PHI: halved})):
        assert np.all(np.abs(solve(mutant, POINT)["E"] - base) > 1e-6)


def test_the_solver_and_the_numpy_layers_load_without_sympy():
    code = "import sys, symrmt.solve, symrmt.simulation, symrmt.geometry; print('sympy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


@pytest.mark.parametrize("token", ["t_11", "tau_11", "a_1", "theta", "alpha_K", "alpha_Q", "omega", "gamma",
                                   "attention", "kernel"])
def test_no_trace_of_the_model_in_the_solver_source(token):
    solver = pathlib.Path(__file__).parent.parent / "symrmt" / "solve"
    for path in solver.glob("*.py"):
        assert token not in path.read_text(), f"{token!r} appears in {path.name}"


def _random_gram(rng, rank, size=()):
    vectors = rng.standard_normal((*size, 1 + 2 * rank, 6)) * rng.uniform(0.2, 1.0, (*size, 1 + 2 * rank, 1))
    return np.einsum("...ik,...jk->...ij", vectors, vectors)


def test_rank_one_gram_matrix_reproduces_the_six_named_entries():
    rng = np.random.default_rng(1)
    G = _random_gram(rng, 1, (40,))
    c, gamma, d = rng.uniform(0.3, 3, 40), 10 ** rng.uniform(-2, 1, 40), rng.uniform(-0.5, 0.5, 40)
    named = dict(theta=G[:, 0, 0], alpha_K=G[:, 0, 1], alpha_Q=G[:, 0, 2], omega_KK=G[:, 1, 1],
                 omega_QQ=G[:, 2, 2], omega_KQ=G[:, 1, 2])
    assert np.allclose(attention_error(TANH, c, gamma, d=d, gram=G), attention_error(TANH, c, gamma, d=d, gram=named),
                       rtol=0, atol=1e-10)
    g = Geometry(1.2, 0.8, 1.1, 0.3, -0.5, 0.2)
    assert np.isclose(attention_error(TANH, 0.7, 0.3, d=0.1, gram=g.gram()), attention_error(TANH, 0.7, 0.3, g, d=0.1),
                      rtol=0, atol=1e-12)


def test_rank_two_with_a_zero_pair_is_rank_one_and_pairs_commute():
    rng = np.random.default_rng(2)
    G1 = _random_gram(rng, 1)
    G2 = np.zeros((5, 5))
    idx = [0, 1, 3]                                   # mu, w_K^(1), w_Q^(1) in rank-2 order (mu, K1, K2, Q1, Q2)
    G2[np.ix_(idx, idx)] = G1
    gamma = np.array([0.03, 0.3, 3.0])
    assert np.allclose(attention_error(TANH, 1.4, gamma, d=0.3, gram=G2),
                       attention_error(TANH, 1.4, gamma, d=0.3, gram=G1), rtol=0, atol=1e-10)
    G = _random_gram(rng, 2)
    swap = [0, 2, 1, 4, 3]                            # exchange the two (w_K, w_Q) pairs
    assert np.allclose(attention_error(TANH, 0.8, gamma, gram=G), attention_error(TANH, 0.8, gamma,
                                                                                   gram=G[np.ix_(swap, swap)]),
                       rtol=0, atol=1e-10)


def test_gram_matrices_broadcast_and_bad_ones_are_refused():
    from symrmt.errors import ParameterError

    rng = np.random.default_rng(3)
    G = _random_gram(rng, 3, (4,))
    values = attention_error(TANH, 1.0, np.array([[0.1], [1.0]]), gram=G)
    assert values.shape == (2, 4)
    with pytest.raises(ParameterError, match="not both"):
        attention_error(TANH, 1.0, 0.1, geometry=Geometry(), gram=G[0])
    with pytest.raises(ParameterError, match="shape"):
        attention_error(TANH, 1.0, 0.1, gram=np.eye(4))
    with pytest.raises(ParameterError, match="positive semi-definite"):
        attention_error(TANH, 1.0, 0.1, gram=-np.eye(3))
    with pytest.raises(ParameterError, match="symmetric"):
        attention_error(TANH, 1.0, 0.1, gram=np.triu(np.ones((3, 3))))
    rank, params = gram_parameters(gram=G[0])
    assert rank == 3 and len(params) == len(S.gram_symbols(3))


def test_linear_regression_reads_only_the_signal_norm():
    G = _random_gram(np.random.default_rng(4), 2)
    assert np.isclose(linear_error(1.2, 0.2, gram=G), linear_error(1.2, 0.2, Geometry(mu_norm=np.sqrt(G[0, 0]))))
    assert [p.name for p in linear_system().parameters] == ["c", "gamma", "theta"]


def test_rank_one_keeps_the_parameter_names():
    assert [p.name for p in attention_system().parameters] == [
        "c", "gamma", "a_1", "b", "d", "theta", "alpha_K", "alpha_Q", "omega_KK", "omega_QQ", "omega_KQ"]


def test_rank_one_through_a_gram_matrix_reproduces_the_previous_engine():
    # 60 random points solved by the rank-1 engine as it was before the FixedPointSystem contract
    # (commit 2b93bc9, stored in tests/data): the new engine, fed the 3 x 3 Gram matrix, agrees to 1e-10.
    import json

    data = json.loads((pathlib.Path(__file__).parent / "data" / "rank1_reference.json").read_text())
    a1, nu, c, gamma, d = (np.array(data[k]) for k in ("a1", "nu", "c", "gamma", "d"))
    G = np.array(data["gram"])
    assert np.allclose(attention_error((a1, nu), c, gamma, d=d, gram=G), data["attention"], rtol=0, atol=1e-10)
    assert np.allclose(linear_error(c, gamma, gram=G), data["linear"], rtol=0, atol=1e-10)


def test_f_with_symbolic_parameters_through_theory_latex_and_cli(capsys):
    import json as _json

    import symrmt
    from symrmt.cli import main

    s = np.array([0.5, 1.0, 2.0])
    values = attention_error("erf(s*x)", 1.0, 0.1, params={"s": s})
    one_by_one = [attention_error(f"erf({v}*x)", 1.0, 0.1) for v in s]
    assert np.allclose(values, one_by_one, atol=1e-12)
    text = symrmt.latex("erf(s*x)", parameters=["s"])
    assert r"\operatorname{asin}" in text and " s" in text
    assert main(["theory", "--f", "tanh(s*x)", "--c", "1", "--gamma", "0.1,1", "--param", "s=0.5:2:4", "--json"]) == 0
    out = _json.loads(capsys.readouterr().out)
    assert np.array(out["attention"]).shape == (4, 2)
    assert np.isclose(out["attention"][1][0], attention_error("tanh(x)", 1.0, 0.1), atol=1e-9)
    assert main(["theory", "--f", "tanh(s*x)", "--c", "1", "--gamma", "0.1"]) == 2
