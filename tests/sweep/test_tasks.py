"""symrmt.sweep.tasks: the seed of a point, geometry entries, unreachable gamma, rank two, methods."""
from __future__ import annotations

import hashlib
import json

import numpy as np
import pytest

from _support.sweep import ALIGNED, SPEC
from symrmt.geometry import Geometry
from symrmt.sweep import compute_point, parse_spec
from symrmt.sweep.tasks import monte_carlo_task, theory_task


def test_the_seed_of_a_point_is_the_documented_hash(local_run):
    spec, _, _, records = local_run
    record = records[0]
    point = {k: record[k] for k in ("f", "center", "c", "d", "geometry", "n", "seed")}
    key = hashlib.sha256(json.dumps(point, sort_keys=True, separators=(",", ":")).encode()).hexdigest()
    assert record["key"] == key
    from symrmt.simulation import simulate_once
    from symrmt.sweep.tasks import model_geometry

    rng = np.random.default_rng(np.random.SeedSequence(int(key, 16)))
    attention, linear = simulate_once(np.tanh, record["n"], record["c"], record["gamma"],
                                      d=record["d"], rng=rng, **model_geometry(record["geometry"]))
    # np.tanh against the generated tanh of the sweep: equal to round-off.
    np.testing.assert_allclose(record["mc"]["attention"], attention, rtol=1e-12)
    np.testing.assert_allclose(record["mc"]["linear"], linear, rtol=1e-12)


def test_a_gram_matrix_and_the_equivalent_dict_give_the_same_model():
    geometry = Geometry(**ALIGNED | {"mu_norm": 1.3, "cos_mu_wq": 0.6, "cos_wk_wq": 0.6})
    as_dict, as_gram = geometry.as_dict(), geometry.gram().tolist()
    theory = {"a1": 0.6057055, "nu": 0.3942945, "c": 1.0, "d": 0.2, "gamma": [0.1, 1.0]}
    t_dict, t_gram = theory_task(theory | {"geometry": as_dict}), theory_task(theory | {"geometry": as_gram})
    np.testing.assert_allclose(t_dict["attention"], t_gram["attention"], rtol=1e-12)
    np.testing.assert_allclose(t_dict["linear"], t_gram["linear"], rtol=1e-12)
    mc = {"f": "tanh(x)", "a0": 0.0, "n": 32, "c": 1.0, "d": 0.2, "gamma": [0.1, 1.0], "method": None,
          "key": "ab" * 32}   # the same key, hence the same draw, for both geometries
    m_dict, m_gram = monte_carlo_task(mc | {"geometry": as_dict}), monte_carlo_task(mc | {"geometry": as_gram})
    # Norms and cosines recovered from the Gram matrix differ from the originals by round-off only.
    np.testing.assert_allclose(m_dict["attention"], m_gram["attention"], rtol=1e-10)


def test_a_gamma_the_solver_cannot_reach_is_null_and_the_others_are_kept():
    theory = theory_task({"a1": 0.6057055, "nu": 0.3942945, "c": 1.0, "d": 0.0, "geometry": {},
                          "gamma": [1e-14, 0.1]})   # at c = 1 below what either form resolves (the quadrature
    # stops near 1e-10, the algebraic form, which the default form="auto" uses, near 1e-12)
    assert theory["attention"][0] is None and theory["attention"][1] == pytest.approx(0.4532, abs=1e-4)
    assert theory["error"].startswith("attention at gamma = 1e-14: ")


def test_a_rank_two_gram_matrix_runs():
    vectors = np.random.default_rng(0).standard_normal((5, 8)) / np.sqrt(8)   # mu, w_K^(1,2), w_Q^(1,2)
    spec = parse_spec(SPEC | {"c": [1.0], "n": [24], "seeds": 1, "geometry": [(vectors @ vectors.T).tolist()]})
    record = compute_point(spec, spec.points()[0])
    assert record["theory"]["error"] is None and len(record["mc"]["attention"]) == 3


def test_a_monte_carlo_method_is_passed_through():
    spec = parse_spec(SPEC | {"c": [1.0], "n": [24], "seeds": 1, "geometry": [ALIGNED], "method": "exact"})
    assert compute_point(spec, spec.points()[0])["method"] == "exact"
