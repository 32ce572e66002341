"""symrmt.geometry: the one owner of Gram matrices, their conversions and their checks.

The last test is the contract of that ownership: theory, spectra, simulation and sweep
specs accept and refuse exactly the same geometries.
"""
import numpy as np
import pytest

import symrmt
from symrmt.errors import ParameterError, SymrmtInputError
from symrmt.geometry import (GRAM_RTOL, MAX_NORM, RANK1_ENTRIES, Geometry, check_gram, entries_of, gram_of_entries,
                             realize, resolve_gram, symmetric_kernel)

MIXED = Geometry(mu_norm=1.2, wk_norm=1.5, wq_norm=0.8, cos_mu_wk=0.6, cos_mu_wq=-0.3, cos_wk_wq=0.2)


def _rank2(seed: int = 0) -> np.ndarray:
    V = np.random.default_rng(seed).standard_normal((5, 9)) / 3
    return V @ V.T


def test_geometry_gram_entries_and_back():
    G = MIXED.gram()
    assert G.shape == (3, 3) and np.allclose(G, G.T)
    entries = entries_of(G)
    assert set(entries) == set(RANK1_ENTRIES)
    for name in RANK1_ENTRIES:
        assert np.isclose(entries[name], getattr(MIXED, name))
    np.testing.assert_allclose(gram_of_entries(entries), G, rtol=0, atol=1e-15)
    back = Geometry.from_gram(G)
    for field, value in MIXED.as_dict().items():
        assert np.isclose(getattr(back, field), value, atol=1e-12)


def test_named_entries_broadcast_into_a_stack():
    G = gram_of_entries({"theta": np.array([1.0, 2.0, 4.0]), "alpha_K": 0.5, "omega_KK": 1.0})
    assert G.shape == (3, 3, 3) and np.all(G[:, 0, 1] == 0.5) and np.all(G[:, 1, 0] == 0.5)
    assert check_gram(G).shape == (3, 3, 3)


def test_from_gram_with_zero_norms_has_zero_cosines():
    g = Geometry.from_gram(np.diag([1.0, 0.0, 2.0]))
    assert (g.mu_norm, g.wk_norm, g.cos_mu_wk, g.cos_wk_wq) == (1.0, 0.0, 0.0, 0.0)


@pytest.mark.parametrize("seed", range(3))
def test_realize_reproduces_the_gram_matrix(seed):
    G = _rank2(seed)
    rng = np.random.default_rng(seed)
    for frame in (None, rng):
        V = realize(G, 20, frame)
        assert V.shape == (5, 20)
        np.testing.assert_allclose(V @ V.T, G, atol=1e-12)


def test_realize_ties_equal_pairs_exactly():
    V = np.random.default_rng(1).standard_normal((3, 7))
    V[2] = V[1]                      # w_Q = w_K
    V3 = realize(V @ V.T, 7, np.random.default_rng(2))
    assert np.array_equal(V3[1], V3[2])


def test_realize_compressed_leaves_zero_vectors_out():
    G = np.zeros((5, 5))
    G[0, 0] = G[1, 1] = G[3, 3] = G[1, 3] = G[3, 1] = 1.0     # mu, w_K^(1) = w_Q^(1); pair 2 zero
    V = realize(G, 4, None, compress=True)
    assert not V[2].any() and not V[4].any() and np.array_equal(V[1], V[3])


@pytest.mark.parametrize("gram, match", [
    (np.eye(4), "shape"), (np.ones((3, 2)), "shape"), (np.zeros((0, 3, 3)), "empty"),
    ([[1.0, 2.0, 0.0], [2.0, 1.0, 0.0], [0.0, 0.0, 1.0]], "positive semi-definite"),
    ([[1.0, 0.5, 0.0], [0.4, 1.0, 0.0], [0.0, 0.0, 1.0]], "symmetric"),
    (np.diag([1.0, np.nan, 1.0]), "finite"), (np.eye(3) * 1j, "complex"), ("identity", "nested list"),
    (np.diag([MAX_NORM**2 * 4, 0.0, 0.0]), "order 1"), (np.diag([1e308, 1.0, 1.0]), "order 1"),
])
def test_check_gram_refuses(gram, match):
    with pytest.raises(ParameterError, match=match):
        check_gram(gram)


def test_check_gram_has_one_tolerance_and_no_overflow():
    G = MIXED.gram()
    nudged = G.copy()
    nudged[0, 1] += 0.1 * GRAM_RTOL          # inside the tolerance: accepted and symmetrized
    assert np.array_equal(check_gram(nudged), check_gram(nudged).T)
    nudged[0, 1] += 10 * GRAM_RTOL * np.abs(G).max()
    with pytest.raises(ParameterError, match="symmetric"):
        check_gram(nudged)
    # Huge but allowed entries: the eigenvalue check runs on the scaled matrix (no LinAlgError).
    assert check_gram(np.diag([MAX_NORM**2, MAX_NORM**2, 0.0])).shape == (3, 3)


@pytest.mark.parametrize("name, gram, symmetric", [
    ("no weights", np.diag([1.0, 0.0, 0.0]), True),
    ("w_Q = 0", np.diag([1.0, 1.0, 0.0]), True),
    ("w_Q = w_K", np.array([[1.0, 0.5, 0.5], [0.5, 1.0, 1.0], [0.5, 1.0, 1.0]]), True),
    ("w_Q = -w_K", np.array([[1.0, 0.5, -0.5], [0.5, 1.0, -1.0], [-0.5, -1.0, 1.0]]), True),
    ("w_K orthogonal to w_Q", np.diag([1.0, 1.0, 1.0]), False),
    ("w_Q = 2 w_K", np.array([[0.0, 0.0, 0.0], [0.0, 1.0, 2.0], [0.0, 2.0, 4.0]]), True),
])
def test_symmetric_kernel_rank_one(name, gram, symmetric):
    assert bool(symmetric_kernel(gram)) is symmetric


def test_symmetric_kernel_swapped_pairs_matches_the_explicit_matrix():
    """w_K^(1) = w_Q^(2), w_K^(2) = w_Q^(1): B = a b^T + b a^T is symmetric though no pair is equal."""
    rng = np.random.default_rng(3)
    a, b, mu = rng.standard_normal((3, 6))
    for V in (np.array([mu, a, b, b, a]), np.array([mu, a, b, a, rng.standard_normal(6)])):
        B = np.outer(V[1], V[3]) + np.outer(V[2], V[4])
        assert bool(symmetric_kernel(V @ V.T)) is bool(np.allclose(B, B.T))


def test_resolve_gram_forms_agree_and_conflict_is_refused():
    G = MIXED.gram()
    by_entries = resolve_gram(gram={name: getattr(MIXED, name) for name in RANK1_ENTRIES})
    np.testing.assert_allclose(resolve_gram(MIXED), G, atol=1e-15)
    np.testing.assert_allclose(by_entries, G, atol=1e-15)
    assert not resolve_gram().any() and resolve_gram().shape == (3, 3)
    with pytest.raises(ParameterError, match="both"):
        resolve_gram(MIXED, G)
    with pytest.raises(ParameterError, match="Geometry"):
        resolve_gram({"mu_norm": 1.0})


# ---------------------------------------------------------------------------
# One rule in every layer
# ---------------------------------------------------------------------------

_V = np.random.default_rng(5).standard_normal((5, 8)) / 3
GEOMETRIES = {
    "rank 1": MIXED.gram().tolist(),
    "rank 2": (_V @ _V.T).tolist(),
    "not symmetric": [[1.0, 0.5, 0.0], [0.4, 1.0, 0.0], [0.0, 0.0, 1.0]],
    "barely not symmetric": [[1.0, 0.5, 0.0], [0.5 + 1e-7, 1.0, 0.0], [0.0, 0.0, 1.0]],
    "round-off asymmetry": [[1.0, 0.5, 0.0], [0.5 + 1e-13, 1.0, 0.0], [0.0, 0.0, 1.0]],
    "not psd": [[1.0, 2.0, 0.0], [2.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
    "barely not psd": [[1.0, 1.0 + 1e-7, 0.0], [1.0 + 1e-7, 1.0, 0.0], [0.0, 0.0, 0.0]],
    "round-off psd": [[1.0, 1.0 + 1e-13, 0.0], [1.0 + 1e-13, 1.0, 0.0], [0.0, 0.0, 0.0]],
    "huge norm": np.diag([1e62, 0.0, 0.0]).tolist(),
    "norm above the bound": np.diag([(1.01 * MAX_NORM) ** 2, 0.0, 0.0]).tolist(),
    "large allowed norm": np.diag([MAX_NORM**2, 0.0, 0.0]).tolist(),
    "even size": np.eye(4).tolist(),
    "nan": [[1.0, float("nan"), 0.0], [float("nan"), 1.0, 0.0], [0.0, 0.0, 1.0]],
}


def _accepts(call) -> bool:
    try:
        call()
    except SymrmtInputError:
        return False
    return True


@pytest.mark.parametrize("name", GEOMETRIES)
def test_theory_simulation_and_sweep_accept_and_refuse_the_same_geometries(name):
    from symrmt import sweep, theory
    from symrmt.simulation import setup as simulation

    G = GEOMETRIES[name]
    verdicts = {
        "geometry": _accepts(lambda: resolve_gram(gram=G)),
        "theory": _accepts(lambda: theory.gram_parameters(gram=np.asarray(G))),
        "simulation": _accepts(lambda: simulation.resolve_geometry(None, np.asarray(G))),
        "sweep": _accepts(lambda: sweep.parse_spec({"f": ["tanh(x)"], "c": [1.0], "n": [16], "gamma": [0.1],
                                                    "seeds": 1, "geometry": [G]})),
    }
    assert len(set(verdicts.values())) == 1, verdicts
    expected = name in ("rank 1", "rank 2", "round-off asymmetry", "round-off psd", "large allowed norm")
    assert verdicts["geometry"] is expected


def test_the_kernel_rule_is_the_same_for_theory_and_simulation():
    """Swapped rank-2 pairs: K is symmetric; both the density and the simulated spectrum accept them."""
    rng = np.random.default_rng(7)
    a, b, mu = rng.standard_normal((3, 6)) / 3
    V = np.array([mu, a, b, b, a])
    G = V @ V.T
    assert symmetric_kernel(G)
    symrmt.spectral_density((0.6, 0.4), c=1.0, x=[0.5], matrix="kernel", gram=G, eta=0.1)
    eigenvalues = symrmt.simulate_spectrum(np.tanh, 30, 1.0, "kernel", gram=G, progress=False)
    assert eigenvalues.shape == (30,) and np.all(np.isfinite(eigenvalues))
    asymmetric = np.array([mu, a, b, a, rng.standard_normal(6) / 3])
    for call in (lambda g: symrmt.spectral_density((0.6, 0.4), 1.0, [0.5], matrix="kernel", gram=g, eta=0.1),
                 lambda g: symrmt.simulate_spectrum(np.tanh, 30, 1.0, "kernel", gram=g, progress=False)):
        with pytest.raises(ParameterError, match="symmetric attention matrix K"):
            call(asymmetric @ asymmetric.T)
