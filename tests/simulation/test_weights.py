"""simulate(..., weights=M): any p x p attention weights, dense or factored, on the same routes and checks."""
from __future__ import annotations

import math

import numpy as np
import pytest

from symrmt.errors import ParameterError
from symrmt.geometry import Geometry, realize
from symrmt.simulation import (WeightMatrix, align_signal, memory, memory_estimate, simulate, simulate_once,
                               simulate_spectrum)
from symrmt.simulation import model as sim_model
from symrmt.simulation import api, setup
from symrmt.simulation.model import BLOCK_ROWS
from symrmt.weight_matrix import read_weight_matrix

from .reference import GAMMAS, RANK2, reference_errors


def nonsymmetric(p, seed=0):
    """A real p x p matrix far from symmetric, at the score scale of I (||M||_F = sqrt(p))."""
    M = np.random.default_rng(seed).standard_normal((p, p))
    M += np.triu(M, 1)                                  # push the upper triangle: M != M^T by a lot
    return M * math.sqrt(p) / np.linalg.norm(M)


def explicit_draw(f, n, p, mu_norm, M, d, rng):
    """One draw written from the documented model: y, Z, mu = |mu| e_1, S = X^T M X / sqrt(p), K by hand."""
    y = (2 * rng.integers(0, 2, size=n) - 1).astype(float)
    X = rng.standard_normal((p, n))
    X[0] += mu_norm * y
    S = np.einsum("ai,ab,bj->ij", X, M, X) / math.sqrt(p)           # S_ij = x_i^T M x_j, i the key
    K = f(S) / math.sqrt(p)
    np.fill_diagonal(K, d)
    return X, K, y


# --------------------------------------------------------------------------- orientation


def test_orientation_against_an_explicit_computation():
    """S_ij = x_i^T M x_j / sqrt(p): E_attn of simulate_once equals the slow reference on the same draw."""
    n, p, d = 48, 36, 0.2
    M = nonsymmetric(p)
    expected = reference_errors(*explicit_draw(np.tanh, n, p, 1.3, M, d, np.random.default_rng(5)), GAMMAS)
    got = simulate_once(np.tanh, n, p / n, GAMMAS, Geometry(mu_norm=1.3), d, np.random.default_rng(5),
                        weights=M, method="exact")
    np.testing.assert_allclose(got[0], expected[0], rtol=1e-9)
    np.testing.assert_allclose(got[1], expected[1], rtol=1e-9)
    # The test can see the orientation: the transposed matrix gives other errors on the same draw.
    transposed = reference_errors(*explicit_draw(np.tanh, n, p, 1.3, M.T, d, np.random.default_rng(5)), GAMMAS)
    assert np.max(np.abs(transposed[0] - expected[0]) / expected[0]) > 1e-3


@pytest.mark.parametrize("method", ["exact", "tridiagonal", "lanczos", "auto"])
def test_every_route_takes_the_weights(method):
    """The dense scores feed the same routes: all methods agree with "exact" (their promise: 1e-6, the Lanczos
    bracket's half-width LANCZOS_RTOL / 2 and rounding)."""
    n, p = 40, 60
    M = nonsymmetric(p, seed=1)
    runs = {m: simulate(np.tanh, n, p / n, GAMMAS, Geometry(mu_norm=1.0), weights=M, seeds=2, method=m,
                        progress=False) for m in ("exact", method)}
    np.testing.assert_allclose(runs[method].attention_per_seed, runs["exact"].attention_per_seed, rtol=1e-6)
    np.testing.assert_allclose(runs[method].linear_per_seed, runs["exact"].linear_per_seed, rtol=1e-6)


def test_dense_scores_by_blocks_equal_the_product(monkeypatch):
    """Several row blocks and a ragged last one give X^T M X / sqrt(p) (and C = X^T X / n when kept)."""
    monkeypatch.setattr(sim_model, "BLOCK_ROWS", 7)
    rng = np.random.default_rng(3)
    p, n = 20, 45
    X, M = rng.standard_normal((p, n)), nonsymmetric(p, seed=2)
    S, C = sim_model.scores(X, np.zeros((3, p)), True, WeightMatrix(p, matrix=M))
    np.testing.assert_allclose(S, X.T @ M @ X / math.sqrt(p), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(C, X.T @ X / n, rtol=1e-13, atol=1e-13)


# --------------------------------------------------------------------------- the factored form and the Gram path


def test_factored_form_equals_the_dense_matrix():
    """(s, w_K, w_Q) and the dense s I + w_K^T w_Q give the same errors on the same draws."""
    rng = np.random.default_rng(4)
    n, p, r = 50, 40, 3
    s, keys, queries = -0.7, rng.standard_normal((r, p)) / 2, rng.standard_normal((r, p)) / 2
    dense = s * np.eye(p) + keys.T @ queries
    kwargs = dict(geometry=Geometry(mu_norm=1.1), seeds=3, method="exact", progress=False)
    factored = simulate(np.tanh, n, p / n, GAMMAS, weights=(s, keys, queries), **kwargs)
    full = simulate(np.tanh, n, p / n, GAMMAS, weights=dense, **kwargs)
    # Scores differ by round-off (eps * |S|); E moves by far less than 1e-10 relative.
    np.testing.assert_allclose(factored.attention_per_seed, full.attention_per_seed, rtol=1e-10)
    np.testing.assert_array_equal(factored.linear_per_seed, full.linear_per_seed)
    assert factored.weights == {"form": "factored", "p": p, "frobenius_norm": pytest.approx(np.linalg.norm(dense)),
                                "rank": r, "shift": s}
    assert full.weights["form"] == "dense" and full.weights["frobenius_norm"] == pytest.approx(np.linalg.norm(dense))


def _pure_weights_gram():
    """RANK2 with mu removed: the weights alone (mu = 0), so both paths draw the same X."""
    gram = RANK2.copy()
    gram[0, :] = gram[:, 0] = 0.0
    return gram


def test_identity_plus_spikes_reproduces_the_gram_path_bit_for_bit():
    """M = I + sum_k w_K w_Q^T as (1, w_K, w_Q): the same operations as the Gram path, so the same bits."""
    n, c = 40, 1.0
    gram = _pure_weights_gram()
    vectors = realize(gram, round(c * n))                        # what the Gram path draws (no random frame)
    kwargs = dict(seeds=3, progress=False)
    by_gram = simulate(np.tanh, n, c, GAMMAS, gram=gram, **kwargs)
    by_weights = simulate(np.tanh, n, c, GAMMAS, weights=(1.0, vectors[1:3], vectors[3:5]), **kwargs)
    np.testing.assert_array_equal(by_weights.attention_per_seed, by_gram.attention_per_seed)
    np.testing.assert_array_equal(by_weights.linear_per_seed, by_gram.linear_per_seed)


def test_identity_plus_spikes_as_a_dense_matrix_reproduces_the_gram_path():
    """The same M as a dense p x p array: another product order, so equal to round-off (1e-12)."""
    n, c = 40, 1.0
    gram = _pure_weights_gram()
    p = round(c * n)
    vectors = realize(gram, p)
    M = np.eye(p) + vectors[1:3].T @ vectors[3:5]
    kwargs = dict(seeds=3, progress=False, method="exact")
    by_gram = simulate(np.tanh, n, c, GAMMAS, gram=gram, **kwargs)
    by_weights = simulate(np.tanh, n, c, GAMMAS, weights=M, **kwargs)
    np.testing.assert_allclose(by_weights.attention_per_seed, by_gram.attention_per_seed, rtol=1e-12)
    np.testing.assert_array_equal(by_weights.linear_per_seed, by_gram.linear_per_seed)


def test_with_a_signal_the_dense_scores_equal_the_gram_path_scores():
    """With mu != 0 (the Gram path places mu with the spikes): on the same X, the same scores to 1e-12."""
    from .test_model import built

    model = built(40, 1.0, gram=RANK2)
    _, X, vectors = sim_model.draw(model, np.random.default_rng(6))
    M = np.eye(40) + vectors[1:3].T @ vectors[3:5]
    by_gram, _ = sim_model.scores(X, vectors, keep_gram=False)
    by_weights, _ = sim_model.scores(X, vectors, keep_gram=False, weights=WeightMatrix(40, matrix=M))
    np.testing.assert_allclose(by_weights, by_gram, rtol=1e-12, atol=1e-12)


# --------------------------------------------------------------------------- the signal's direction


def test_the_signal_goes_along_the_first_axis_or_a_random_one():
    """weights= with Geometry(mu_norm): mu = |mu| e_1 (not where Geometry.vectors puts it), or a Haar
    direction per seed with random_frame."""
    p = 30

    def mu(random_frame, seed):
        model = setup.with_f(setup.validated_model(25, p / 25, Geometry(mu_norm=2.0), None, 0.0, random_frame,
                                       weights=np.eye(p))[0], np.tanh)
        return sim_model.draw(model, np.random.default_rng(seed))[2][0]

    np.testing.assert_array_equal(mu(False, 0), 2.0 * np.eye(p)[0])
    assert not np.array_equal(Geometry(mu_norm=2.0).vectors(p)[0], 2.0 * np.eye(p)[0])   # the test can fail
    directions = [mu(True, k) for k in range(2)]
    assert all(np.linalg.norm(v) == pytest.approx(2.0) and abs(v[0]) < 1.9 for v in directions)
    assert abs(directions[0] @ directions[1]) < 3.9


@pytest.mark.parametrize("form", ["dense", "factored"])
def test_align_signal_is_the_same_model_in_a_rotated_frame(form):
    """Scores of (M, mu = a u, Z) equal those of (H M H, mu = a e_1, H Z): the law is the same."""
    rng = np.random.default_rng(7)
    p, n, a = 24, 30, 1.7
    u = rng.standard_normal(p)
    u /= np.linalg.norm(u)
    keys, queries = rng.standard_normal((2, p)), rng.standard_normal((2, p))
    M = 0.3 * np.eye(p) + keys.T @ queries
    weights = M if form == "dense" else (0.3, keys, queries)
    rotated = read_weight_matrix(align_signal(weights, 3.0 * u), p)      # only the direction of u counts
    assert rotated.form == form
    y = np.sign(rng.standard_normal(n))
    Z = rng.standard_normal((p, n))
    H = np.eye(p) - 2 * np.outer(u - np.eye(p)[0], u - np.eye(p)[0]) / np.linalg.norm(u - np.eye(p)[0]) ** 2
    np.testing.assert_allclose(H @ u, np.eye(p)[0], atol=1e-14)
    original, _ = sim_model.scores(Z + a * np.outer(u, y), np.zeros((3, p)), False, WeightMatrix(p, matrix=M))
    moved, _ = sim_model.scores(H @ Z + a * np.outer(np.eye(p)[0], y), np.zeros((3, p)), False, rotated)
    np.testing.assert_allclose(moved, original, rtol=1e-11, atol=1e-11)


def test_align_signal_along_the_first_axis_changes_nothing():
    M = nonsymmetric(5)
    np.testing.assert_array_equal(align_signal(M, [2.0, 0, 0, 0, 0]), M)
    with pytest.raises(ParameterError, match="nonzero vector of length p = 5"):
        align_signal(M, np.zeros(5))


# --------------------------------------------------------------------------- checks and refusals

P = 16


@pytest.mark.parametrize("weights, message", [
    (np.full((P, P), np.nan), r"weights: every entry must be finite \(nan at index \(0, 0\)\)"),
    (np.diag(np.r_[np.inf, np.ones(P - 1)]), "every entry must be finite"),
    (np.eye(P) * 1j, "must be real, not complex"),
    (np.eye(P, dtype=bool), "not real numbers"),
    ("eye", "give the p x p matrix"),
    ([[1.0, 2.0], [3.0]], "ragged or mixed"),
    (np.eye(P)[:, :-1], r"shape \(16, 15\): not a square matrix"),
    (np.ones((2, P, P)), r"shape \(2, 16, 16\): not a square matrix"),
    (np.eye(P + 1), r"weights are 17 x 17 but p = round\(c\*n\) = round\(1\*16\) = 16: .*c = 17/n"),
    (np.eye(P) * 1e31, "above 1e\\+30"),
    ((1.0, np.ones((2, P)), np.ones((2, P)), np.ones((2, P))), "a sequence of 4 items"),
    ((np.ones((2, P)), np.ones((3, P))), r"w_K has shape \(2, 16\) and w_Q \(3, 16\)"),
    ((np.nan, np.ones(P), np.ones(P)), "shift s of weights"),
    ((1.0, np.ones((2, P)), np.ones((3, P))), r"w_K has shape \(2, 16\) and w_Q \(3, 16\)"),
    ((1.0, np.ones(P + 1), np.ones(P + 1)), "weights are 17 x 17 but p"),
    ((1.0, np.ones(P), np.full(P, np.inf)), "w_Q: every entry must be finite"),
])
def test_bad_weights_are_refused_in_one_line(weights, message):
    with pytest.raises(ParameterError, match=message) as caught:
        simulate(np.tanh, P, 1.0, 0.1, weights=weights, seeds=2, progress=False)
    text = str(caught.value)
    assert "\n" not in text and len(text) < 300              # one line; never the matrix itself


def test_weight_vectors_in_the_geometry_are_refused_next_to_weights():
    with pytest.raises(ParameterError, match="give only mu in the geometry"):
        simulate(np.tanh, P, 1.0, 0.1, geometry=Geometry(mu_norm=1.0, wk_norm=0.5, wq_norm=0.5), weights=np.eye(P))
    with pytest.raises(ParameterError, match="give only mu in the geometry"):
        simulate_once(np.tanh, P, 1.0, 0.1, None, 0.0, np.random.default_rng(0), gram=RANK2, weights=np.eye(P))


def test_the_matrix_is_read_only_and_not_duplicated():
    """A float64 matrix is viewed, not copied (p x p counted once); float32 is converted; neither is writable."""
    M = np.eye(P)
    resolved = read_weight_matrix(M, P)
    assert np.shares_memory(resolved.matrix, M) and not resolved.matrix.flags.writeable
    converted = read_weight_matrix(M.astype(np.float32), P)
    assert converted.matrix.dtype == np.float64 and not converted.matrix.flags.writeable
    assert M.flags.writeable                                     # the caller's array is left as it was


def test_kernel_spectrum_needs_symmetric_weights():
    """matrix='kernel' reads one triangle of K: a non-symmetric M is refused, a symmetric one accepted."""
    with pytest.raises(ParameterError, match="symmetric weights"):
        simulate_spectrum(np.tanh, P, 1.0, "kernel", weights=nonsymmetric(P))
    with pytest.raises(ParameterError, match="symmetric weights"):
        simulate_spectrum(np.tanh, P, 1.0, "kernel", weights=(1.0, np.eye(P)[:1], np.eye(P)[1:2]))
    w = np.random.default_rng(0).standard_normal(P) / 4
    gram = np.zeros((3, 3))
    gram[1:, 1:] = w @ w
    vectors = realize(gram, P, compress=False)             # a 3 x 3 Gram matrix is drawn as Geometry.vectors
    by_gram = simulate_spectrum(np.tanh, P, 1.0, "kernel", gram=gram, seeds=2, progress=False)
    by_weights = simulate_spectrum(np.tanh, P, 1.0, "kernel", seeds=2, progress=False,
                                   weights=np.eye(P) + np.outer(vectors[1], vectors[2]))
    np.testing.assert_allclose(by_weights, by_gram, rtol=1e-10, atol=1e-12)


# --------------------------------------------------------------------------- memory


def test_memory_counts_the_dense_matrix_and_one_block():
    n, p = 512, 1024
    base = memory_estimate(n, p, 2, 10)
    dense = memory_estimate(n, p, 2, 10, weights="dense")
    assert dense - base == pytest.approx(1.05 * (8.0 * p * p + 8.0 * p * BLOCK_ROWS), abs=2)
    factored = memory_estimate(n, p, 2, 10, weights="factored", weight_rank=8)
    assert factored - base == pytest.approx(1.05 * 16.0 * 8 * (p + n), abs=2)
    with pytest.raises(ParameterError, match="'dense' or 'factored'"):
        memory_estimate(n, p, 2, 10, weights="sparse")


def test_memory_refusal_counts_the_weights(monkeypatch):
    """Room for the run without M but not with it: refused before anything is drawn."""
    n = p = 1500
    without = memory_estimate(n, p, 2, 1)
    monkeypatch.setattr(memory, "available_memory", lambda: without + 2**20)
    for module in (api, setup):
        monkeypatch.setattr(module, "draw", lambda *a: (_ for _ in ()).throw(AssertionError("drew")))
    with pytest.raises(ParameterError, match="GiB"):
        simulate(np.tanh, n, 1.0, [0.1], seeds=2, weights=np.eye(p), progress=False)


def test_result_reports_the_weights():
    result = simulate(np.tanh, P, 1.0, [0.1, 1.0], geometry=Geometry(mu_norm=1.0), weights=np.eye(P) * 2, seeds=2,
                      progress=False)
    assert result.as_dict()["weights"] == {"form": "dense", "p": P, "frobenius_norm": pytest.approx(8.0)}
    assert result.geometry == Geometry(mu_norm=1.0)
    assert "weights_form" in result.to_csv().splitlines()[0]
    assert "dense 16 x 16" in result._repr_html_()
