"""The algebraic form against the quadrature form on random points (tests/test_forms.py, benchmarks/agreement.py).

Points span rank 1, 2 and 3, c in [0.05, 20] and gamma in [1e-6, 1e3] (log-uniform), d != 0, and
Hermite data with a_1 of either sign, exactly 0 at a few points and tiny at a few others. The
reference is the quadrature form with the error E also measured relative to its value (the system's
own range measures it absolutely), at a tightened tolerance; where the quadrature cannot certify that
tolerance, at its default. Both forms are solved by ``symrmt.theory.forms.solve_in_form``.
"""
from __future__ import annotations

import dataclasses
from functools import lru_cache

import numpy as np

from symrmt.errors import ConvergenceError
from symrmt.theory.forms import solve_in_form
from symrmt.solve import solve

#: The tightened quadrature tolerances of the reference (the first it certifies), and the agreement asked
#: there and at its default.
TIGHT = (1e-10, 1e-9)
AGREEMENT, DEFAULT_AGREEMENT = 1e-9, 1e-8
#: E (in [0, 1], its accuracy measured absolutely by the systems) also agrees when it differs by less than this.
TINY = 1e-10


def random_points(rng: np.random.Generator, size: int, rank: int) -> dict:
    """Parameters of the attention system of ``rank`` (keyed by its symbols) at ``size`` random points."""
    from symrmt.derive import symbols as S
    from symrmt.derive.symbols import gram_positions

    vectors = rng.standard_normal((size, 1 + 2 * rank, 1 + 2 * rank))
    vectors *= rng.uniform(0, 1.5 / np.sqrt(1 + 2 * rank), (size, 1 + 2 * rank, 1))
    gram = np.einsum("nik,njk->nij", vectors, vectors)
    a1 = rng.uniform(-1.5, 1.5, size)
    special = rng.uniform(size=size)
    a1[special < 0.03] = 0.0                                    # f with no linear part (He_3, ...)
    tiny = (special >= 0.03) & (special < 0.05)
    a1[tiny] = 10 ** rng.uniform(-8, -2, tiny.sum())           # below and above symrmt.theory.forms.A1_FLOOR
    d = rng.uniform(0.05, 1.0, size) * rng.choice([-1, 1], size)
    params = {S.c: 10 ** rng.uniform(np.log10(0.05), np.log10(20), size), S.gamma: 10 ** rng.uniform(-6, 3, size),
              S.a1: a1, S.b: rng.uniform(0, 1.5, size), S.d: d}
    params.update({symbol: gram[:, i, j] for symbol, (i, j) in gram_positions(rank).items()})
    return params


@lru_cache(maxsize=None)
def reference(rank: int):
    """The quadrature form of the attention system with Phi and E both measured relatively (compiled)."""
    from symrmt.codegen import compile_system
    from symrmt.derive import attention_system
    from symrmt.derive.attention import ERROR, PHI
    from symrmt.derive.components import Admissible

    system = attention_system(rank)
    relative = {key: Admissible(bounds.lower, bounds.upper, "relative") for key, bounds in system.admissible.items()}
    assert set(relative) == {PHI, ERROR}
    return compile_system(dataclasses.replace(system, admissible=relative))


def _quadrature(rank: int, points: dict, tolerance: float, relative: bool = True) -> tuple:
    """(Phi, E, refused indices) by the quadrature at ``tolerance`` (E measured relatively if ``relative``, as in
    :func:`reference`); a refused batch is halved until the refusals are single points."""
    from symrmt.codegen import compile_system
    from symrmt.derive import attention_system
    from symrmt.derive.attention import ERROR, PHI

    system = reference(rank) if relative else compile_system(attention_system(rank))
    size = len(next(iter(points.values())))
    phi, error, refused = np.full(size, np.nan), np.full(size, np.nan), []
    pending = [np.arange(start, min(start + 256, size)) for start in range(0, size, 256)]
    while pending:
        batch = pending.pop()
        try:
            result = solve(system, {k: v[batch] for k, v in points.items()}, quadrature_tolerance=tolerance)
            phi[batch], error[batch] = result[PHI], result[ERROR]
        except ConvergenceError:
            if batch.size == 1:
                refused.append(int(batch[0]))
            else:
                pending += [batch[: batch.size // 2], batch[batch.size // 2:]]
    return phi, error, sorted(refused)


def _algebraic(rank: int, points: dict) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict]:
    """(Phi, E, unknowns t, {index: refusal}) of the algebraic form, point by point where a batch is refused."""
    from symrmt.derive.attention import ERROR, PHI

    size = len(next(iter(points.values())))
    try:
        result = solve_in_form("attention", rank, points, "algebraic")
        return np.asarray(result[PHI]), np.asarray(result[ERROR]), np.real(result.unknowns), {}
    except ConvergenceError:
        pass
    phi, error, unknowns, refused = np.full(size, np.nan), np.full(size, np.nan), np.full((3, size), np.nan), {}
    for i in range(size):
        try:
            result = solve_in_form("attention", rank, {k: v[i] for k, v in points.items()}, "algebraic")
            phi[i], error[i], unknowns[:, i] = result[PHI], result[ERROR], np.real(result.unknowns)
        except ConvergenceError as refusal:
            refused[i] = str(refusal)
    return phi, error, unknowns, refused


def agree(a: np.ndarray, q: np.ndarray, tolerance: float, absolute: bool = False) -> np.ndarray:
    """``|a - q| <= tolerance |q|``, or (``absolute``: for E, whose accuracy the systems measure absolutely)
    ``|a - q| <= TINY``."""
    difference = np.abs(np.asarray(a) - np.asarray(q))
    return (difference <= tolerance * np.abs(q)) | (absolute & (difference <= TINY))


def compare(rank: int, points: dict) -> tuple[list[dict], dict]:
    """Every point where the forms disagree or one refuses (values, unknowns, which tolerance decided), and the
    largest differences among the points where both answer."""
    phi_a, error_a, unknowns, refused_a = _algebraic(rank, points)
    phi_t, error_t, refused_t = _quadrature(rank, points, TIGHT[0], relative=False)
    if refused_t:
        again = {k: v[refused_t] for k, v in points.items()}
        phi_r, error_r, refused_r = _quadrature(rank, again, TIGHT[1], relative=False)
        phi_t[refused_t], error_t[refused_t] = phi_r, error_r
        refused_t = [refused_t[j] for j in refused_r]
    phi_d, error_d, refused_d = _quadrature(rank, points, 1e-6, relative=False)
    both = np.isfinite(phi_a) & np.isfinite(phi_t)
    statistics = {"both answer": int(both.sum()),
                  "max relative difference of Phi": float(np.max(np.abs(phi_a / phi_t - 1)[both], initial=0)),
                  "max absolute difference of E": float(np.max(np.abs(error_a - error_t)[both], initial=0))}
    records = []
    for i in range(len(phi_a)):
        tight = i not in refused_t
        phi_q, error_q = (phi_t[i], error_t[i]) if tight else (phi_d[i], error_d[i])
        tolerance = AGREEMENT if tight else DEFAULT_AGREEMENT
        checks = {"Phi": (phi_a[i], phi_q), "E": (error_a[i], error_q)}
        default_ok = i in refused_d or all(agree(v[0], q, DEFAULT_AGREEMENT, key == "E")
                                           for (key, v), q in zip(checks.items(), (phi_d[i], error_d[i])))
        ok = i not in refused_a and all(agree(a, q, tolerance, key == "E") for key, (a, q) in checks.items())
        if ok and tight and default_ok:
            continue
        records.append({
            "rank": rank, "point": {str(k): float(v[i]) for k, v in points.items()},
            "algebraic": None if i in refused_a else {"Phi": float(phi_a[i]), "E": float(error_a[i])},
            "algebraic_refusal": refused_a.get(i), "unknowns": [float(u) for u in unknowns[:3, i]],
            "quadrature_tight": None if not tight else {"Phi": float(phi_t[i]), "E": float(error_t[i])},
            "quadrature_default": None if i in refused_d else {"Phi": float(phi_d[i]), "E": float(error_d[i])},
            "agrees": bool(ok), "agrees_with_default": bool(default_ok),
        })
    return records, statistics


def compare_auto(rank: int, points: dict) -> tuple[list[dict], dict]:
    """``form="auto"`` against the tightened quadrature (the default where that refuses), and where they disagree
    against the 40-digit solution: every point where auto is off from the reference, and the statistics (how
    many points auto answers algebraically, its largest differences there)."""
    from _support.mp_reference import reference as mp_reference
    from symrmt.derive import attention_system
    from symrmt.derive import symbols as S
    from symrmt.derive.attention import ERROR, PHI
    from symrmt.theory.forms import A1_FLOOR, answered_algebraically

    auto = solve_in_form("attention", rank, points, "auto", partial=True)
    algebraic = solve_in_form("attention", rank, points, "algebraic", partial=True)
    general = np.abs(points[S.a1]) >= A1_FLOOR * np.hypot(points[S.a1], points[S.b])
    algebraically = answered_algebraically("attention", rank, points)
    phi_q, error_q, refused = _quadrature(rank, points, TIGHT[0], relative=False)
    tolerance = np.full(len(phi_q), AGREEMENT)
    if refused:
        phi_q[refused], error_q[refused], _ = _quadrature(rank, {k: v[refused] for k, v in points.items()}, 1e-6,
                                                          relative=False)
        tolerance[refused] = DEFAULT_AGREEMENT
    phi_a, error_a = np.asarray(auto[PHI]), np.asarray(auto[ERROR])
    ok = agree(phi_a, phi_q, tolerance) & agree(error_a, error_q, tolerance, True)
    records = []
    for i in np.flatnonzero(~ok & np.isfinite(phi_q) & np.isfinite(phi_a)):
        point = {k: float(v[i]) for k, v in points.items()}
        start = dict(zip(attention_system(rank).unknowns, np.real(auto.unknowns[:, i])))
        phi, error = mp_reference(attention_system(rank), point, start)
        right = bool(agree(phi_a[i], phi, AGREEMENT) and agree(error_a[i], error, AGREEMENT, True))
        records.append({"rank": rank, "point": {str(k): v for k, v in point.items()},
                        "auto": {"Phi": float(phi_a[i]), "E": float(error_a[i])}, "reference": {"Phi": phi, "E": error},
                        "quadrature": {"Phi": float(phi_q[i]), "E": float(error_q[i])},
                        "algebraically": bool(algebraically[i]), "auto agrees with the reference": right,
                        "residual": float(algebraic.residual[i])})
    exact = np.isfinite(phi_q) & np.isfinite(phi_a) & ok & algebraically & (tolerance == AGREEMENT)
    statistics = {"points": len(phi_a), "answered algebraically": int(algebraically.sum()),
                  "referred by the error estimate": int((general & ~algebraic.failed & ~algebraically).sum()),
                  "algebraic failures": int((general & algebraic.failed).sum()), "not general": int((~general).sum()),
                  "auto failures": int(auto.failed.sum()),
                  "max relative difference of Phi (algebraically, agreeing with the tightened quadrature)":
                      float(np.max(np.abs(phi_a / phi_q - 1)[exact], initial=0)),
                  "max absolute difference of E (algebraically, agreeing with the tightened quadrature)":
                      float(np.max(np.abs(error_a - error_q)[exact], initial=0)),
                  "auto off the reference": sum(not r["auto agrees with the reference"] for r in records),
                  "auto off the reference, algebraically": sum(not r["auto agrees with the reference"]
                                                               and r["algebraically"] for r in records),
                  "max relative difference of Phi from the reference (listed, algebraically)":
                      max((abs(r["auto"]["Phi"] / r["reference"]["Phi"] - 1) for r in records if r["algebraically"]),
                          default=0.0)}
    return records, statistics

