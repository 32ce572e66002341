"""Third round, the contract (issue 38 items 1-2, issue 40 items 6, 8, 9): every theory refuses as the main path.

Each case failed on main before this change: the general-M path accepted what the main path refuses (or raised
a raw error), the registry took anything, and ``theory --weights`` ignored flags in silence.
"""
import dataclasses

import numpy as np
import pytest

import symrmt
from symrmt import models
from symrmt.errors import ConvergenceError, ParameterError, ParameterTypeError
from symrmt.solve.parameters import check_parameters
from tests.hostile.harness import Case, run_case

M = np.eye(16) + np.random.default_rng(0).standard_normal((16, 16)) / 8

#: (f, c, gamma, d): arguments the main path refuses; the general-M path must refuse them word for word.
REFUSED = {
    "gamma-true": ("tanh(x)", 1.0, True, 0.0),
    "gamma-text": ("tanh(x)", 1.0, "0.1", 0.0),
    "gamma-huge": ("tanh(x)", 1.0, 1e13, 0.0),
    "c-huge": ("tanh(x)", 1e7, 0.1, 0.0),
    "d-huge": ("tanh(x)", 1.0, 0.1, 500.0),
    "gamma-empty": ("tanh(x)", 1.0, [], 0.0),
    "not-centred": ("cosh(x)", 1.0, 0.1, 0.0),
}


def _refusal(call):
    with pytest.raises(ValueError) as caught:
        call()
    return type(caught.value), str(caught.value)


@pytest.mark.parametrize("name", REFUSED)
def test_general_m_refuses_as_the_main_path(name):
    f, c, gamma, d = REFUSED[name]
    main = _refusal(lambda: symrmt.attention_error(f, c, gamma, d=d))
    assert _refusal(lambda: symrmt.attention_error(f, c, gamma, d=d, weights=M)) == main
    assert _refusal(lambda: symrmt.general.attention_error_elliptic(f, c, gamma, M, d=d)) == main
    assert "\n" not in main[1]


def test_summed_heads_and_softmax_refuse_gamma_and_d_as_the_main_path():
    gram = np.diag([1.0, 1.0, 0.5, 1.0, 0.5])
    for gamma in (True, "0.1", 1e13, []):
        main = _refusal(lambda: symrmt.attention_error("tanh(x)", 1.0, gamma))
        assert _refusal(lambda: symrmt.summed_heads_error("tanh(x)", 1.0, gamma, gram, heads=2)) == main
    main = _refusal(lambda: symrmt.attention_error("tanh(x)", 1.0, 0.1, d=500.0))
    assert _refusal(lambda: symrmt.summed_heads_error("tanh(x)", 1.0, 0.1, gram, heads=2, d=500.0)) == main
    for gamma in (True, "0.1", []):
        main = _refusal(lambda: symrmt.attention_error("tanh(x)", 1.0, gamma))
        assert _refusal(lambda: symrmt.softmax_error(1.0, gamma)) == main


def test_general_m_non_convergence_is_the_solvers_failure():
    """A Newton that cannot converge is a ConvergenceError (as the main path's), not a ParameterError."""
    from symrmt.solve.curve import Newton

    class Never:                                   # a system whose residual never shrinks
        name, variable = "general-M", "gamma"

        def evaluate(self, t, v):
            return np.ones(6), np.eye(6), np.ones(6)

    with pytest.raises(ConvergenceError, match="general-M fixed point did not converge at gamma = 0.1"):
        Newton(Never())(np.zeros(6), 0.1, maxit=3)


# The registry (issue 40 items 6 and 9).

def test_register_refuses_what_is_not_a_model():
    with pytest.raises(ParameterTypeError, match="register takes a symrmt.models.Model"):
        models.register(object())


@pytest.mark.parametrize("name, kind", [("", ParameterError), (3, ParameterTypeError),
                                        ("a\x1b[31m", ParameterError), ("two words", ParameterError)])
def test_register_refuses_bad_names(name, kind):
    with pytest.raises(kind) as caught:
        models.register(dataclasses.replace(models.LINEAR, name=name))
    assert "\n" not in str(caught.value) and "\x1b" not in str(caught.value)


def test_a_clash_is_one_clear_line_and_built_ins_stay():
    with pytest.raises(ParameterError, match="registered already: choose another name"):
        models.register(dataclasses.replace(models.LINEAR, name="attention"))
    for name in ("attention", "softmax", "attention_general"):
        with pytest.raises(ParameterError, match="cannot be unregistered"):
            models.unregister(name)
        assert name in models.names()


def test_unknown_arguments_have_their_own_message():
    with pytest.raises(ParameterTypeError, match="the attention model takes no argument 'bogus': it takes f, c"):
        symrmt.solve_model("attention", f="tanh(x)", c=1.0, gamma=0.1, bogus=1)
    with pytest.raises(ParameterTypeError, match="the softmax model takes no argument 'f'"):
        symrmt.solve_model("softmax", f="tanh(x)", c=1.0, gamma=0.1)


def test_a_model_without_theory_says_so():
    with pytest.raises(ParameterError, match="concatenated_heads model has no deterministic equivalent"):
        symrmt.solve_model("concatenated_heads", c=1.0, gamma=0.1)


@pytest.mark.parametrize("keep, kind", [(5, ParameterError), (np.array([True]), ParameterError),
                                        ("a", ParameterTypeError), (np.array([-1]), ParameterError)])
def test_parameters_subset_refuses_instead_of_an_index_error(keep, kind):
    parameters = check_parameters(("u",), {"u": (0, 10, True, False)}, {"u": [1.0, 2.0]})
    with pytest.raises(kind, match="subset"):
        parameters.subset(keep)
    assert parameters.subset(np.array([1])).flat["u"].tolist() == [2.0]


# theory --weights: no flag ignored in silence (issue 40 item 8).

_WEIGHTS = ["theory", "--weights", "minilm", "--layer", "0", "--c", "1", "--gamma", "0.1"]
CASES = [
    Case("weights-form", [*_WEIGHTS, "--f", "tanh(x)", "--form", "quadrature"], "--form"),
    Case("weights-temperature", [*_WEIGHTS, "--f", "tanh(x)", "--temperature", "2"], "--temperature"),
    Case("weights-mu-norm-without-signal", [*_WEIGHTS, "--f", "tanh(x)", "--mu-norm", "2"], "--signal"),
    Case("weights-mu-norm-negative", [*_WEIGHTS, "--f", "tanh(x)", "--signal", "top", "--mu-norm", "-1"],
         "--mu-norm"),
    Case("weights-scale-overflow", [*_WEIGHTS, "--f", "tanh(x)", "--weights-scale", "1e305"], "--weights-scale"),
    Case("weights-no-f", _WEIGHTS, "--f"),
    Case("kind-takes-no-flag", ["theory", "--kind", "linear", "--f", "tanh(x)", "--c", "1", "--gamma", "0.1"],
         "--kind linear takes no --f"),
    Case("kind-without-theory", ["theory", "--kind", "concatenated_heads", "--c", "1", "--gamma", "0.1"],
         "invalid choice"),
]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_refused(case, tmp_path, capsys):
    run_case(case, tmp_path, capsys)


@pytest.mark.parametrize("name, value", [("c", 1e7), ("c", 2e6), ("d", 500.0), ("gamma", 1e13), ("gamma", "0.1"),
                                         ("gamma", float("nan")), ("gamma", 0.0), ("gamma", [])])
def test_the_monte_carlo_refuses_c_d_and_gamma_in_the_theorys_words(name, value):
    arguments = {"c": 1.0, "gamma": 0.1, "d": 0.0, name: value}
    theory = _refusal(lambda: symrmt.attention_error("tanh(x)", arguments["c"], arguments["gamma"], d=arguments["d"]))
    simulated = _refusal(lambda: symrmt.simulate("tanh(x)", 16, arguments["c"], arguments["gamma"], d=arguments["d"],
                                                 seeds=2))
    assert simulated == theory
