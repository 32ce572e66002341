"""symrmt.solve.native_path and native_woodbury: the exact systems' solve as machine code, against the NumPy code.

The compiled path takes each point's decisions with the NumPy code's arithmetic, but solves every Newton system
itself (the NumPy code calls LAPACK where a row exchange is needed or a batch is small), and the compiled
Woodbury form sums its small products in its own order. So the two agree to round-off, which Newton removes
except where float64 itself is the limit: at the floor points of tests/test_forms.py (an unknown of 1e5 or
more, Phi ~ 1/gamma at c < 1 and gamma < 1e-5), where either form is off the 40-digit solution by up to 3e-8.
"""
from __future__ import annotations

import numpy as np
import pytest

from _support.forms import AGREEMENT, agree, random_points
from symrmt.runtime import jit
from symrmt.derive.attention import ERROR, PHI
from symrmt.derive import symbols as S
from symrmt.models import ATTENTION
from symrmt.theory.forms import NEWTON_ERROR_CEILING
from symrmt.solve import native_path as native
from symrmt.solve import solve
from symrmt.solve.exact import newton_error

pytest.importorskip("numba")

#: Where the largest unknown reaches this (tests/test_forms.py FLOOR_UNKNOWN), float64 is the limit of either form...
FLOOR_UNKNOWN = 1e5
#: ... and the two codes are held to this there. Measured at the rank-3 point of seed 7 (c = 0.179, gamma = 4.5e-6,
#: Phi = 1.3e5, t_11 = 1.0e6): the 40-digit Phi is 131023.3229; the NumPy code's algebraic form is off by 8.7e-7, the
#: quadrature form by 8.2e-7, the compiled code by 1.3e-7 (so they differ by 7.4e-7).
FLOOR_AGREEMENT = 1e-5
#: Points per rank: every regime of random_points (c from 0.05 to 20, gamma from 1e-6 to 1e3, a_1 = 0, tiny a_1).
POINTS = 300


def _general_points(rank: int, seed: int) -> dict:
    """POINTS random points of ``rank`` with a linear part (a_1 = 0 and tiny a_1 are other systems or refused)."""
    points = random_points(np.random.default_rng([seed, rank]), POINTS, rank)
    general = np.abs(points[S.a1]) >= 1e-2
    return {k: v[general] for k, v in points.items()}


def _disagreements(rank: int, seed: int = 7) -> dict:
    """How the compiled path's solve of the algebraic form differs from the NumPy code's at random points.

    Phi and E are compared where form="auto" would answer algebraically: the NumPy code's solution has an estimated
    error (:func:`~symrmt.solve.exact.newton_error`) within the ceiling, so both roots are known to that accuracy.
    """
    compiled = ATTENTION.compiled(rank, "algebraic")
    points = _general_points(rank, seed)
    results = []
    for rule in ("never", "always"):
        with jit.mode(rule), np.errstate(all="ignore"):
            results.append(solve(compiled, points, partial=True))
    numpy_code, machine = results
    with jit.mode("never"), np.errstate(all="ignore"):
        conditioned = newton_error(compiled, points, numpy_code.unknowns) <= NEWTON_ERROR_CEILING
    both = ~numpy_code.failed & ~machine.failed & conditioned
    floor = np.max(np.abs(numpy_code.unknowns), axis=0) >= FLOOR_UNKNOWN
    tolerance = np.where(floor, FLOOR_AGREEMENT, AGREEMENT)[both]
    return {
        "compared": int(both.sum()),
        "failed differently": int(np.sum(numpy_code.failed != machine.failed)),
        "Phi off": int(np.sum(~agree(machine[PHI][both], numpy_code[PHI][both], tolerance))),
        "E off": int(np.sum(~agree(machine[ERROR][both], numpy_code[ERROR][both], tolerance, True))),
        "bit for bit": float(np.mean(np.all(numpy_code.unknowns[:, both] == machine.unknowns[:, both], axis=0)))
        if both.any() else 0.0,
    }


@pytest.mark.parametrize("rank", [1, 2, 3])
def test_the_compiled_path_agrees_with_the_numpy_code(rank):
    """Same failures; Phi and E within 1e-9 (1e-7 at the float64 floor) wherever the error estimate is within
    form="auto"'s ceiling. A quarter of the points or more are bit for bit the NumPy code's (measured: a third; those
    whose Newton systems never went to LAPACK there): the compiled loop takes the same steps with the same
    arithmetic, not merely the same root."""
    found = _disagreements(rank)
    assert found["compared"] >= 0.8 * POINTS, found
    assert found["failed differently"] == 0 and found["Phi off"] == 0 and found["E off"] == 0, found
    assert found["bit for bit"] >= 0.25, found


def test_a_planted_error_in_the_compiled_branch_conditions_is_seen(monkeypatch):
    """The power of the comparison: the compiled path with its branch comparisons turned around (> for <) fails
    points the NumPy code solves."""
    path = native.native_path(ATTENTION.compiled(1, "algebraic"))
    monkeypatch.setattr(path, "relations", (path.relations + 2) % 4)
    assert _disagreements(1)["failed differently"] > 0


def test_the_compiled_newton_error_is_the_numpy_one_to_round_off():
    """The error estimate of form="auto" by the compiled loop: the same where it is above round-off (1e-9), and
    the same decade or two where it is round-off itself; so the same points are referred but for those within
    round-off of the ceiling."""
    compiled = ATTENTION.compiled(1, "algebraic")
    points = _general_points(1, 11)
    with jit.mode("never"), np.errstate(all="ignore"):
        unknowns = solve(compiled, points, partial=True).unknowns
    # At the solution the estimate is round-off (compared in decades); 1e-6 away from it, it is the distance (1e-6).
    moved = unknowns * (1 + 1e-6 * np.random.default_rng(12).choice([-1.0, 1.0], unknowns.shape))
    estimates = []
    for rule in ("never", "always"):
        with jit.mode(rule), np.errstate(all="ignore"):
            estimates.append([newton_error(compiled, points, t) for t in (unknowns, moved)])
    (numpy_root, numpy_moved), (machine_root, machine_moved) = estimates
    assert np.all((numpy_moved > 1e-7) & (numpy_moved < 1e-5))
    assert np.allclose(machine_moved, numpy_moved, rtol=1e-4)
    assert np.all(numpy_root < 1e-9)
    positive = numpy_root > 0
    assert np.all(np.abs(np.log10(np.maximum(machine_root[positive], 1e-30) / numpy_root[positive])) < 2)


def test_the_compiled_woodbury_form_agrees_on_the_quadrature_form():
    """The compiled Woodbury form serves the quadrature form as well (its averages are real): Phi and E of a gamma
    curve agree with the NumPy code's to 1e-12."""
    from symrmt import attention_error
    from symrmt.geometry import Geometry

    gamma = np.geomspace(1e-3, 1e2, 40)
    geometry = Geometry(1.5, 1.0, 1.0, 1.0, 1.0, 1.0)
    values = []
    for rule in ("never", "always"):
        with jit.mode(rule):
            values.append(attention_error((0.6057055, 0.3942945), 1.0, gamma, geometry, form="quadrature"))
    assert np.allclose(values[0], values[1], rtol=1e-12, atol=0)


def test_the_loops_are_compiled_once_the_numpy_step_logic_has_cost_as_much(monkeypatch):
    """Ski rental with a ledger of their own: the NumPy step logic's time is recorded towards the loops, which
    are compiled at the first solve after it reaches their budget, and not before (SYMRMT_JIT=auto)."""
    compiled = ATTENTION.compiled(1, "algebraic")
    path = native.NativePath(compiled)
    path.budget = jit.Budget(path._build, 1e9)
    monkeypatch.setitem(native._PATHS, compiled, path)
    points = {k: v[:20] for k, v in _general_points(1, 5).items()}
    with jit.mode("auto"), np.errstate(all="ignore"):
        solve(compiled, points, partial=True)
        assert not path.budget.ready and path.budget._spent > 0
        path.budget.spend(1e9)
        solve(compiled, points, partial=True)
        assert path.budget.ready
