"""symrmt.theory.forms: the algebraic form agrees with the quadrature form, and each form is used where it holds.

The default suite compares 300 random points (tests/_support/forms.py) with the quadrature at a
tightened tolerance, to 1e-9; benchmarks/agreement.py runs 10^4 points, also against the quadrature
at its default tolerance and, where they disagree, an independent 40-digit solution
(tests/data/algebraic_disagreements.json lists and explains every exception).
"""
import json
import pathlib

import numpy as np
import pytest

from _support.forms import AGREEMENT, TIGHT, _quadrature, agree, random_points
from _support.mp_reference import reference as mp_reference
from symrmt.derive import attention_system
from symrmt import attention_error, linear_error, spectral_density
from symrmt.derive import symbols as S
from symrmt.derive.attention import ERROR, PHI
from symrmt.errors import ConvergenceError, ParameterError
from symrmt.theory.forms import A1_FLOOR, solve_in_form
from symrmt.solve import solve

TANH = (0.6057055, 0.3942945)


def _quadrature_where_it_certifies(rank: int, points: dict, tolerance: float = TIGHT[1]):
    """The quadrature form (E measured absolutely, as the system says) at ``tolerance``; NaN where it refuses."""
    return _quadrature(rank, points, tolerance, relative=False)


@pytest.mark.parametrize("rank", [1, 2, 3])
def test_the_forms_agree_on_random_points(rank):
    rng = np.random.default_rng(100 + rank)
    points = random_points(rng, 70, rank)
    points[S.a1][np.abs(points[S.a1]) < A1_FLOOR * np.hypot(points[S.a1], points[S.b])] = 0.5   # auto's quadrature
    algebraic = solve_in_form("attention", rank, points, "algebraic")
    phi, error, refused = _quadrature_where_it_certifies(rank, points)
    certified = np.ones(len(phi), bool)
    certified[refused] = False
    # The tightened quadrature refuses where its nodes run out: small gamma (the spectrum or a root of
    # det M reaches 0).
    assert certified.mean() > 0.8 and np.all(points[S.gamma][~certified] < 1e-3)
    # Phi to 1e-9 relative; E to 1e-9 relative or 1e-10 absolute (the systems measure E absolutely).
    ok = certified.copy()
    for a, q, absolute in ((algebraic[PHI], phi, False), (algebraic[ERROR], error, True)):
        ok &= agree(np.asarray(a), q, AGREEMENT, absolute)
    # Where they do not, the tightened quadrature is the one off (its estimate bounds its coarse rule, not
    # always its own error at 1e-9): an independent 40-digit solution decides, and must side with the
    # algebraic form.
    disputed = np.flatnonzero(certified & ~ok)
    assert disputed.size <= 3
    for i in disputed:
        point = {k: float(v[i]) for k, v in points.items()}
        start = dict(zip(attention_system(rank).unknowns, np.real(algebraic.unknowns[:, i])))
        exact_phi, exact_error = mp_reference(attention_system(rank), point, start)
        assert agree(algebraic[PHI][i], exact_phi, AGREEMENT) and agree(algebraic[ERROR][i], exact_error, AGREEMENT, True)
        assert not agree(phi[i], exact_phi, AGREEMENT) or not agree(error[i], exact_error, AGREEMENT, True)


def test_a_wrong_branch_would_be_seen():
    # The power of the comparison: the same points with Phi from a neighbouring gamma disagree.
    rng = np.random.default_rng(7)
    points = random_points(rng, 40, 1)
    points[S.a1] = np.full(40, 0.6)
    moved = {**points, S.gamma: points[S.gamma] * (1 + 1e-6)}
    a = solve_in_form("attention", 1, moved, "algebraic")[PHI]
    phi, _, refused = _quadrature_where_it_certifies(1, points)
    keep = np.setdiff1d(np.arange(40), refused)
    assert not agree(np.asarray(a)[keep], phi[keep], AGREEMENT).all()


def test_each_form_where_it_holds():
    c, gamma = 1.0, np.array([0.01, 0.1, 1.0])
    expected = attention_error(TANH, c, gamma, form="quadrature")
    for form in ("auto", "algebraic"):
        assert np.allclose(attention_error(TANH, c, gamma, form=form), expected, rtol=1e-9, atol=0)
    # a_1 = 0 (He_3) has its own algebraic system; 0 < |a_1| < A1_FLOOR sqrt(nu) is the quadrature's.
    he3 = (0.0, 6.0)
    assert np.allclose(attention_error(he3, c, gamma, d=0.3, form="algebraic"),
                       attention_error(he3, c, gamma, d=0.3, form="quadrature"), rtol=1e-9)
    tiny = (1e-6, 1.0)
    assert np.allclose(attention_error(tiny, c, gamma), attention_error(tiny, c, gamma, form="quadrature"))
    with pytest.raises(ConvergenceError, match="loses digits"):
        attention_error(tiny, c, gamma, form="algebraic")
    with pytest.raises(ParameterError, match="form"):
        attention_error(TANH, c, gamma, form="fast")
    assert np.allclose(linear_error(c, gamma, form="algebraic"), linear_error(c, gamma, form="quadrature"),
                       rtol=1e-12)


def test_kernel_ridge_in_both_forms():
    """Kernel ridge's algebraic form (on request) agrees with its quadrature form; auto is the quadrature."""
    from symrmt.theory import kernel_ridge_error

    c, gamma = np.array([0.3, 1.0, 4.0]), np.array([1e-3, 0.1, 10.0])
    expected = kernel_ridge_error("tanh(x)", c, gamma, d=0.2, form="quadrature")
    algebraic = kernel_ridge_error("tanh(x)", c, gamma, d=0.2, form="algebraic")
    assert np.allclose(algebraic, expected, rtol=1e-9, atol=1e-10) and not np.allclose(algebraic, 0.99 * expected)
    assert np.array_equal(kernel_ridge_error("tanh(x)", c, gamma, d=0.2), expected)


def test_auto_solves_only_the_failed_point_by_quadrature(monkeypatch):
    """A planted failure of the algebraic solver at one gamma of eight: that point alone goes to quadrature."""
    import dataclasses

    import symrmt.theory.forms as forms
    from symrmt.solve import PointFailure

    gamma = np.geomspace(0.01, 10, 8)
    calls = []

    def solve_failing_one(compiled, params, **options):
        result = solve(compiled, params, **options)
        algebraic = compiled.law is None                                   # no spectral average
        calls.append((algebraic, np.size(params[S.gamma])))
        if not algebraic:
            return result
        failed = np.isin(params[S.gamma], gamma[5])
        phi = np.where(failed, np.nan, result[PHI])
        return dataclasses.replace(result, observables={**result.observables, PHI: phi}, failed=failed,
                                   failures=(PointFailure((5,), {}, "planted"),))

    monkeypatch.setattr(forms, "solve", solve_failing_one)
    auto = attention_error(TANH, 1.0, gamma, form="auto")
    assert [size for algebraic, size in calls if not algebraic] == [1]           # one point by quadrature
    with pytest.raises(ConvergenceError, match="planted"):
        attention_error(TANH, 1.0, gamma, form="algebraic")
    assert np.ma.getmaskarray(attention_error(TANH, 1.0, gamma, form="algebraic", partial=True))[5]
    monkeypatch.undo()
    assert np.allclose(auto, attention_error(TANH, 1.0, gamma, form="quadrature"), rtol=1e-9, atol=0)


def test_results_carry_the_quadrature_unknowns():
    from symrmt.theory import solve_attention

    for form in ("algebraic", "quadrature"):
        solution = solve_attention(TANH, 1.0, [0.1, 1.0], form=form)
        assert solution.unknown_names == ("t_11", "t_12", "t_22") and solution.unknowns.shape == (3, 2)
    a, q = (solve_attention(TANH, 1.0, [0.1, 1.0], form=f).unknowns for f in ("algebraic", "quadrature"))
    assert np.allclose(a, q, rtol=1e-9)


@pytest.mark.parametrize("matrix, c, x", [("gram", 0.5, np.linspace(0.05, 5, 40)), ("gram", 2.0, np.linspace(0.05, 5, 40)),
                                          ("kernel", 2.0, np.linspace(-1.5, 2.5, 40))])
@pytest.mark.parametrize("eta", [0.0, 0.05])
def test_densities_and_atoms_agree(matrix, c, x, eta):
    algebraic = spectral_density(TANH, c, x, eta=eta, matrix=matrix, form="algebraic")
    quadrature = spectral_density(TANH, c, x, eta=eta, matrix=matrix, form="quadrature")
    # Absolute: the density is O(1) and exactly 0 outside the support at eta = 0.
    assert np.allclose(algebraic.density, quadrature.density, rtol=1e-8, atol=1e-10)
    assert abs(algebraic.atom - quadrature.atom) < 1e-9


def test_the_solver_of_an_algebraic_system_uses_no_quadrature():
    from symrmt.codegen import compile_system
    from symrmt.derive import attention_system

    compiled = compile_system(attention_system(2, "algebraic"))
    assert compiled.law is None and compiled.averages_count == 0
    points = random_points(np.random.default_rng(3), 5, 2)
    points[S.a1] = np.full(5, 0.7)
    assert np.isfinite(solve(compiled, points)[ERROR]).all()


DATA = pathlib.Path(__file__).parent / "data" / "algebraic_disagreements.json"
#: Points of the data file compared by benchmarks/agreement.py (of the 10^4 drawn).
COMPARED = 10_000


def test_every_listed_point_of_the_comparison_is_explained():
    """The data file of benchmarks/agreement.py: 10^4 points drawn, the first COMPARED of them compared (the
    run's time on a shared machine; docs/performance.md says how many), every listed one explained."""
    data = json.loads(DATA.read_text())
    statistics, explanations = data["statistics"], data["explanations"]
    assert statistics["drawn"] == 10_000 and set(statistics["by rank"]) == {"1", "2", "3"}
    assert statistics["points"] == sum(rank["points"] for rank in statistics["by rank"].values()) >= COMPARED
    assert sum(statistics["categories"].values()) == len(data["points"])
    for record in data["points"]:
        assert record["category"] in explanations
        if record["category"] == "quadrature off":        # decided by the 40-digit solution, for the algebraic form
            exact = record["reference"]
            assert agree(record["algebraic"]["Phi"], exact["Phi"], AGREEMENT)
            assert agree(record["algebraic"]["E"], exact["E"], AGREEMENT, True)
    # The algebraic form stays within the measured bounds (Phi relative to the 40-digit solution: up to 1e-8 where
    # it is off alone, 3.3e-8 where both are; form="auto" refers the former or holds FLOOR_AGREEMENT, see below).
    bounds = {"algebraic off": 2e-8, "both off": 5e-8, "quadrature off": AGREEMENT}
    for record in data["points"]:
        if record["category"] in bounds:
            phi, exact = record["algebraic"]["Phi"], record["reference"]["Phi"]
            assert abs(phi / exact - 1) <= bounds[record["category"]], record["point"]
    # Where both forms answer, the largest differences (all points, listed ones included).
    for rank in statistics["by rank"].values():
        assert rank["both answer"] > 0.9 * rank["points"]


#: Where the largest unknown is at least this (t ~ 1/gamma at c < 1 and gamma < 1e-5, Phi ~ 1e4 to 1e6 a
#: difference of terms of that size), float64 leaves more than 1e-9 in Phi in either form: the quadrature form
#: is off by up to 6e-8 at such points of the data file ("both off"), and at rank 3 either form by up to 8.7e-7
#: at Phi = 1.3e5 (docs/theory.md, the float64 floor of the algebraic form). Which digits of that floor come out
#: depends on the round-off of the NumPy and BLAS in use (one rank-3 point of the file, Phi = 1.8e5, moved from
#: 2.7e-8 to 1.3e-7 with NumPy 2.4.6), so auto is held to the floor, FLOOR_AGREEMENT, instead of 1e-9 there.
FLOOR_UNKNOWN, FLOOR_AGREEMENT = 1e5, 1e-6


def _by_rank(records: list) -> dict:
    """``{rank: (records, points)}``: the parameters of each rank's records as arrays keyed by its symbols."""
    from symrmt.derive.symbols import gram_positions

    out = {}
    for rank in sorted({r["rank"] for r in records}):
        chosen = [r for r in records if r["rank"] == rank]
        names = {str(k): k for k in [S.c, S.gamma, S.a1, S.b, S.d, *gram_positions(rank)]}
        out[rank] = chosen, {names[k]: np.array([r["point"][k] for r in chosen]) for k in chosen[0]["point"]}
    return out


def _unexplained_by_auto(records: list) -> list:
    """The records where ``form="auto"`` neither refers the point to the quadrature form (the estimated error of
    the algebraic unknowns above NEWTON_ERROR_CEILING, or its solver failing) nor agrees with the 40-digit
    reference to 1e-9 (FLOOR_AGREEMENT where the largest unknown is at least FLOOR_UNKNOWN)."""
    from symrmt.theory.forms import answered_algebraically

    unexplained = []
    for rank, (chosen, points) in _by_rank(records).items():
        auto = solve_in_form("attention", rank, points, "auto", partial=True)
        referred = ~answered_algebraically("attention", rank, points)
        largest = np.max(np.abs(auto.unknowns), axis=0)
        for i, record in enumerate(chosen):
            exact = record["reference"]
            tolerance = FLOOR_AGREEMENT if largest[i] >= FLOOR_UNKNOWN else AGREEMENT
            if not (referred[i] or (agree(auto[PHI][i], exact["Phi"], tolerance)
                                    and agree(auto[ERROR][i], exact["E"], tolerance, True))):
                unexplained.append(record["point"])
    return unexplained


def _algebraic_off() -> list:
    """The points of the data file where the algebraic form is off from the 40-digit solution (a_1 != 0)."""
    return [r for r in json.loads(DATA.read_text())["points"] if r["category"] in ("algebraic off", "both off")]


def test_auto_refers_the_points_where_the_algebraic_form_is_off():
    """Where the algebraic form is off, auto refers the point to the quadrature form, or is within 1e-9 of the
    40-digit solution (within FLOOR_AGREEMENT where float64 cannot give 1e-9 in either form)."""
    records = _algebraic_off()
    assert len(records) >= 5
    assert _unexplained_by_auto(records) == []


def test_without_its_criterion_auto_would_answer_them_wrongly(monkeypatch):
    """The power of the test above: with NEWTON_ERROR_CEILING out of the way, auto answers points algebraically
    that are off by more than 1e-9 (N's complex pair nearly repeated, the residual stuck at 5e-10 to 2e-8)."""
    import symrmt.theory.forms as forms

    monkeypatch.setattr(forms, "NEWTON_ERROR_CEILING", np.inf)
    assert len(_unexplained_by_auto(_algebraic_off())) >= 2


AUTO_DATA = DATA.with_name("auto_agreement.json")


@pytest.mark.parametrize("name", ["auto_agreement.json", "auto_agreement_compiled.json"])
def test_the_measured_auto_holds_1e9_except_at_the_float64_floor(name):
    """tests/data/auto_agreement.json (benchmarks/agreement.py 10000 2027 --auto, 10^4 fresh points, the NumPy code)
    and auto_agreement_compiled.json (the same points with --jit always: the compiled code of symrmt[fast]): auto
    refers under 1% of the points by its estimate, and where it is off the 40-digit solution it answered at the
    floor (Phi ~ 1/gamma at least 1e4, c < 1), within FLOOR_AGREEMENT."""
    data = json.loads(AUTO_DATA.with_name(name).read_text())
    ranks = data["statistics"]["by rank"].values()
    points = sum(rank["points"] for rank in ranks)
    assert points == data["statistics"]["drawn"] == 10_000
    assert sum(rank["referred by the error estimate"] for rank in ranks) < 0.01 * points
    assert sum(rank["answered algebraically"] for rank in ranks) > 0.9 * points
    assert max(rank["max relative difference of Phi (algebraically, agreeing with the tightened quadrature)"]
               for rank in ranks) <= AGREEMENT
    off = [r for r in data["points"] if not r["auto agrees with the reference"]]
    assert len(off) <= 10
    for record in off:
        exact = record["reference"]
        assert exact["Phi"] >= 1e4 and record["point"]["c"] < 1, record["point"]
        assert agree(record["auto"]["Phi"], exact["Phi"], FLOOR_AGREEMENT), record["point"]


@pytest.mark.slow
def test_a_rerun_lists_no_point_the_file_does_not():
    """The first 300 points of rank 1 of the same draw: every point listed now is listed in the file, or is one
    where the 40-digit solution sides with the algebraic form ("quadrature off": the reference moved, not the
    form under test).

    The second case arose when the solver began to refine every quadrature target (symrmt.solve.settings.
    REFINEMENTS): at c = 0.31, gamma = 2.5e-6 (Phi = 1.5e5) the tightened quadrature, which refused the point
    before, now certifies it and is 4.6e-10 off in E, the float64 floor of a Phi of that size, while the
    algebraic form is within 1.8e-11 of the 40-digit solution.
    """
    from _support.forms import compare

    data = json.loads(DATA.read_text())
    rank = data["statistics"]["by rank"]["1"]
    sample = random_points(np.random.default_rng([data["statistics"]["seed"], 1]), rank["drawn"], 1)
    listed, _ = compare(1, {k: v[:min(300, rank["points"])] for k, v in sample.items()})
    known = {json.dumps(record["point"], sort_keys=True) for record in data["points"] if record["rank"] == 1}
    names = {str(k): k for k in attention_system(1).parameters}
    for record in listed:
        if json.dumps(record["point"], sort_keys=True) in known:
            continue
        assert record["algebraic"] is not None, record
        start = dict(zip(attention_system(1).unknowns, record["unknowns"]))
        phi, error = mp_reference(attention_system(1), {names[k]: v for k, v in record["point"].items()}, start)
        assert agree(record["algebraic"]["Phi"], phi, AGREEMENT) and agree(record["algebraic"]["E"], error,
                                                                           AGREEMENT, True), record


#: Two of 10^4 fresh rank-2 points (benchmarks/agreement.py --auto, seed 2027) where the continuation of the
#: algebraic form ended on the other root of the transform's equation at a complex pair of eigenvalues of N near
#: the bulk, and Phi by the 40-digit solution there.
OTHER_ROOT = [
    ({"c": 1.0057570149743826, "gamma": 0.010681304532475955, "a_1": 0.18768762382026227, "b": 0.12511768736341894,
      "d": -0.42027936662745846, "theta": 0.06474004021809657, "alpha_K_1": -0.01541387812719297,
      "alpha_K_2": 0.03048604189550823, "alpha_Q_1": 0.0697716413223372, "alpha_Q_2": -0.1288699153599158,
      "omega_KK_11": 0.17085852373568677, "omega_KK_12": 0.034159741693352036, "omega_KK_22": 0.06330246263818604,
      "omega_QQ_11": 0.11091419838282925, "omega_QQ_12": -0.033177623737795744, "omega_QQ_22": 1.5765705779196475,
      "omega_KQ_11": -0.06277473838264391, "omega_KQ_12": -0.07226020614155401, "omega_KQ_21": 0.0038368578884252803,
      "omega_KQ_22": -0.10445401049262049}, 23.593880860625806),
    ({"c": 0.3545721596817601, "gamma": 0.00011126372847358772, "a_1": -0.10874526156261921, "b": 0.029266112699973368,
      "d": 0.7613136951402365, "theta": 1.1474093201904725, "alpha_K_1": -0.6542887518450218,
      "alpha_K_2": -0.22860295439241268, "alpha_Q_1": -0.8087606107816853, "alpha_Q_2": -0.05488074999133899,
      "omega_KK_11": 1.3398058597238132, "omega_KK_12": 0.24393380103106027, "omega_KK_22": 0.12006935765787703,
      "omega_QQ_11": 0.633465636903051, "omega_QQ_12": 0.19292709102660643, "omega_QQ_22": 0.7357120633275454,
      "omega_KQ_11": 0.5439927591214547, "omega_KQ_12": 0.5206424313473782, "omega_KQ_21": 0.11258770661332261,
      "omega_KQ_22": -0.04556654357550749}, 2788.968720001878),
]


def test_the_branch_condition_keeps_the_transform_on_its_physical_root(monkeypatch):
    """With Q < 0 (symrmt.derive.algebraic._divided_differences) the algebraic form agrees with the 40-digit
    solution at both points; with the condition planted away it ends on the other root, off by 4% and 77%."""
    import symrmt.derive.algebraic as algebraic
    from symrmt.codegen import compile_system

    records = [{"rank": 2, "point": point, "reference": {"Phi": phi}} for point, phi in OTHER_ROOT]
    (_, points), = _by_rank(records).values()
    exact = np.array([phi for _, phi in OTHER_ROOT])

    def phi() -> np.ndarray:
        system = compile_system(algebraic.algebraic_form(attention_system(2)))
        return np.asarray(solve(system, points, partial=True)[PHI])
    assert agree(phi(), exact, AGREEMENT).all()
    monkeypatch.setattr(algebraic, "_divided_differences", lambda k: ())
    assert np.all(np.abs(phi() / exact - 1) > 0.01)


def _linear_fails_where_attention_solves(c, gamma) -> np.ndarray:
    from symrmt import solve_attention, solve_linear

    attention = solve_attention("tanh(x)", c, gamma, partial=True)
    linear = solve_linear(c, gamma, partial=True)
    return np.asarray(linear.failed) & ~np.asarray(attention.failed)


def test_linear_regression_solves_wherever_attention_does(monkeypatch):
    """On c in [1e-6, 1e4] (C_RANGE up to 1e4) and gamma in [1e-10, 1e12], every point attention solves linear
    regression solves too: its quadrature form fails at small gamma (c = 1, gamma = 1e-10: the spectral average does
    not converge), and "auto" solves those points again in the algebraic form. Shown to catch the old behaviour (no
    second try). Not yet at c >= 1e5 with gamma <= 1e-4, where the algebraic form of linear regression fails too,
    nor at c = 1, gamma = 1e-12, where its answer is ill-conditioned (6% off sqrt(gamma)/2) and refused."""
    from symrmt.theory import forms

    c = np.array([1e-6, 1e-3, 0.5, 1.0, 2.0, 1e2, 1e4])[:, None]
    gamma = np.logspace(-10, 12, 12)[None, :]
    assert not _linear_fails_where_attention_solves(c, gamma).any()
    rescued = linear_error(1.0, 1e-10)
    # at c = 1 the Marchenko-Pastur resolvent gives E_lin ~ sqrt(gamma) / 2 as gamma -> 0 (1e-5 relative here)
    assert rescued == pytest.approx(np.sqrt(1e-10) / 2, rel=1e-3)
    monkeypatch.setattr(forms, "_rescued", lambda model, rank, system, params, result: forms.FormResult(
        **vars(result), form_used=np.full(params.shape, forms.Route.QUADRATURE.value)))
    assert _linear_fails_where_attention_solves(np.array([1.0]), np.array([1e-10])).all()
