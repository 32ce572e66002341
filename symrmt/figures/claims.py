r"""The claims the figures make, each with the region where it holds and a check against the theory.

A :class:`Claim` is one row of a small table: the figure it belongs to, the title the figure
carries, the statement, the region where the statement holds (and where it does not), and a
check that recomputes the theory's numbers behind the words, at the settings the figure module
draws. :func:`symrmt.figures.build` gives each figure its title and the first sentence of its
caption from :data:`CLAIMS` (:meth:`Claim.title_for`, :meth:`Claim.sentence_for`), the README quotes the
random-input claim and the scale law next to it, and ``tests/validation/test_claims.py`` runs every check and looks for the
text in the README: the words and the numbers cannot drift apart.

The checks use the deterministic equivalents only (:func:`symrmt.attention_error`,
:func:`symrmt.linear_error`); what the finite model does at a given n is the business of the
Monte Carlo markers and of each caption's finite-size sentence.

>>> sorted(CLAIMS)
['alignment', 'linear_component', 'paper_fig1', 'phase_diagram', 'random_inputs', 'rank', 'real_weights', 'scale_law']
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

import symrmt  # the facade, read at call time: a theory planted on it reaches every figure

from .. import Geometry
from . import alignment, linear_component, paper_fig1, phase_diagram, rank, real_weights
from .nonlinearities import DEFAULT_F, NONLINEAR, ZOO, FigureF, figure_f

__all__ = ["Claim", "CLAIMS", "claim", "claims_of"]


@dataclass(frozen=True)
class Claim:
    """One claim: the figure's title, the statement, the region where it holds, and its check.

    ``check()`` raises :class:`AssertionError` naming the numbers when the theory disagrees.
    """

    figure: str
    title: str
    statement: str
    region: str
    check: Callable[[], None]

    @property
    def sentence(self) -> str:
        """The statement and its region, as the caption and the README print them."""
        return f"{self.statement} {self.region}"

    def title_for(self, f: FigureF | None = None) -> str:
        """The figure's title: the claim's for the default f (``None``), else the figure's name and f (no claim
        asserted)."""
        return self.title if f is None or f.default else f"{self.figure}, f = {f.text}"

    def sentence_for(self, f: FigureF | None = None) -> str:
        """The caption's first sentence: the claim with its region for the default f (``None``), else what f is."""
        if f is None or f.default:
            return self.sentence
        return f"The figure's claim is made for f = {DEFAULT_F} and is not asserted for this f."


def _require(condition: bool, message: str) -> None:
    if not condition:
        raise AssertionError(message)


def _first_crossing(gamma: np.ndarray, gap: np.ndarray) -> float:
    """The gamma where ``gap`` turns negative and stays so (NaN if it never does)."""
    negative = gap < 0
    if not negative[-1]:
        return float("nan")
    start = len(negative) - int(np.argmin(negative[::-1])) if not negative.all() else 0
    return float(gamma[start])


# --------------------------------------------------------------------------- random inputs

def _check_random_inputs() -> None:
    gamma = np.geomspace(1e-2, 1e2, 17)
    for name in NONLINEAR:
        h = ZOO[name].hermite()
        large_c = np.geomspace(1.0, 3.0, 9)[:, None]
        gap = symrmt.attention_error(h, large_c, gamma) - symrmt.linear_error(large_c, gamma)
        _require(np.all(gap > 0), f"{name}: attention beats regression at c >= 1 (min gap {gap.min():.3g})")
        small_c = np.array([0.05, 0.1, 0.15])[:, None]
        gap = symrmt.attention_error(h, small_c, gamma) - symrmt.linear_error(small_c, gamma)
        _require(np.all(gap < 0), f"{name}: attention loses at c <= 0.15 (max gap {gap.max():.3g})")
        middle = symrmt.attention_error(h, 0.5, [0.1, 100.0]) - symrmt.linear_error(0.5, [0.1, 100.0])
        _require(middle[0] > 0 > middle[1], f"{name}: at c = 0.5 the order does not flip with gamma ({middle})")
    example = (float(symrmt.attention_error(ZOO["tanh"].hermite(), 0.15, 1.0)), float(symrmt.linear_error(0.15, 1.0)))
    _require(np.allclose(example, (0.859, 0.892), atol=5e-4), f"the example quoted: {example}")
    margins = (symrmt.linear_error(0.15, [0.01, 0.1, 1.0])
               - symrmt.attention_error(ZOO["tanh"].hermite(), 0.15, [0.01, 0.1, 1.0]))
    _require(np.allclose(margins, (2.0e-5, 1.5e-3, 0.033), rtol=0.03), f"the margins quoted: {margins}")
    energies = [ZOO[name].hermite().nu for name in NONLINEAR]
    _require((round(min(energies), 2), round(max(energies), 2)) == (0.34, 0.46), f"the energies quoted: {energies}")


RANDOM_INPUTS = Claim(
    "random_inputs",
    "Pure noise: nonlinear attention interpolates worse than linear regression when p ≥ n, better when p ≪ n",
    "On pure-noise inputs nonlinear attention (tanh, centred ReLU, erf, sin, centred GELU) interpolates worse "
    "than linear regression",
    "for c = p/n ≥ 1 at every ridge 0.01 ≤ γ ≤ 100, each f taken as written, not rescaled (its energy "
    "E f(ξ)² is 0.34 for centred ReLU to 0.46 for erf). Below c = 1 it does better at a large enough ridge. For "
    "c ≤ 0.15 the theory puts it ahead at every ridge, but at small ridges by a margin no finite model resolves, "
    "since both errors tend to 1 − c as γ → 0: at c = 0.15 for tanh, E_lin − E_attn = 2.0e-5 at γ = 0.01 "
    "(0.850004 against 0.850024), 1.5e-3 at γ = 0.1 and 0.033 at γ = 1 (0.859 against 0.892; panel c).",
    _check_random_inputs)


# --------------------------------------------------------------------------- the scale law (random inputs)

def _scaled(h, k: float) -> dict:
    """The Hermite data of k f: a_1 and nu scale as k and k^2."""
    return {"a1": k * h.a1, "nu": k**2 * h.nu}


def _check_scale_law() -> None:
    h = ZOO["tanh"].hermite()
    gamma = np.geomspace(1e-2, 1e2, 9)
    for c in (0.5, 1.0, 2.0):
        scaled, shifted = symrmt.attention_error(_scaled(h, 2.0), c, gamma), symrmt.attention_error(h, c, gamma / 4)
        _require(np.allclose(scaled, shifted, rtol=1e-9, atol=1e-12),
                 f"c = {c}: E(2 tanh, gamma) - E(tanh, gamma/4) = {np.max(np.abs(scaled - shifted)):.3g}")
    at = np.array([10.0, 100.0])
    gap = symrmt.attention_error(_scaled(h, 2.0), 1.0, at) - symrmt.linear_error(1.0, at)
    _require(np.all(np.round(gap, 3) == (-0.026, -0.027)), f"2 tanh at c = 1, gamma = 10, 100: E_attn - E_lin = {gap}")
    plain = symrmt.attention_error(h, 1.0, at) - symrmt.linear_error(1.0, at)
    _require(np.all(plain > 0), f"tanh as written wins at c = 1, gamma = 10 or 100 ({plain})")
    grid = np.geomspace(1.0, 100.0, 401)
    unit = symrmt.attention_error(_scaled(h, 1 / np.sqrt(h.nu)), 1.0, grid) - symrmt.linear_error(1.0, grid)
    crossing = _first_crossing(grid, unit)
    _require(11.0 <= crossing <= 13.0, f"tanh at unit energy wins from gamma = {crossing:.3g}")


SCALE_LAW = Claim(
    "random_inputs",
    "",
    "Which side wins depends on the scale of f: E_attn(ς f, γ) = E_attn(f, γ/ς²) exactly for every scale ς > 0, while E_lin(γ) does not "
    "move,",
    "so a larger f wins at a large ridge even for c ≥ 1: 2 tanh at c = 1 beats linear regression at γ = 10 and 100 "
    "(E_attn − E_lin = −0.026 and −0.027), and tanh rescaled to E f(ξ)² = 1 does from γ ≈ 12 (docs/theory.md, "
    "section 12, Scale).",
    _check_scale_law)


# --------------------------------------------------------------------------- alignment

def _check_alignment() -> None:
    h = figure_f().h
    angles = np.array([0.0, 90.0])
    shrink = []
    for c in alignment.GAP_CS:
        for w in alignment.W_NORMS:
            gram = alignment._gram(w, angles)
            attention = symrmt.attention_error(h, c, alignment.GAMMA, gram=gram)
            gap = attention - symrmt.linear_error(c, alignment.GAMMA, gram=gram)
            _require(attention[0] < attention[1], f"c = {c}, |w| = {w}: aligning does not lower E_attn")
            _require(0 < gap[0] < gap[1], f"c = {c}, |w| = {w}: the gap {gap} does not narrow without closing")
            shrink.append(1 - gap[0] / gap[1])
    _require(round(100 * min(shrink)) == 17 and round(100 * max(shrink)) == 48,
             f"the gap narrows by {min(shrink):.1%} to {max(shrink):.1%}")
    gamma = np.geomspace(0.5, 100.0, 400)
    w = max(alignment.W_NORMS)
    for angle, low, high in ((0.0, 2.2, 2.4), (90.0, 6.5, 7.5)):
        geometry = alignment._geometry(w, angle)
        gap = symrmt.attention_error(h, 1.0, gamma, geometry) - symrmt.linear_error(1.0, gamma, geometry)
        crossing = _first_crossing(gamma, gap)
        _require(low <= crossing <= high, f"angle {angle}: attention wins from gamma = {crossing:.3g}")


ALIGNMENT = Claim(
    "alignment",
    "Aligning w_K = w_Q with the signal narrows the gap to linear regression; only a large ridge reverses it",
    "Turning w_K = w_Q = w from orthogonal to aligned with μ lowers E_attn and narrows its gap to linear regression",
    "at ‖μ‖ = 1, γ = 0.1, ‖w‖ ∈ {1, 2} and c ∈ {0.25, 0.5, 1, 2}: by 17% to 48% of the gap (most at small c), "
    "without closing it. At c = 1 attention beats linear regression only at a large ridge: from γ ≈ 2.3 with "
    "aligned weights (‖w‖ = 2), from γ ≈ 7 with orthogonal ones (panel c).",
    _check_alignment)


# --------------------------------------------------------------------------- phase diagram

def _check_phase_diagram() -> None:
    h = figure_f().h
    theta = np.linspace(0.0, 4.0, 17)[:, None]
    loses = phase_diagram._difference(h, np.geomspace(0.21, 3.0, 12)[None, :], theta, 1.0)
    _require(np.all(loses > 0), f"attention wins somewhere at c >= 0.21 (min {loses.min():.3g})")
    _require(round(loses.max(), 2) == 0.32, f"the largest loss is {loses.max():.3g}")
    wins = phase_diagram._difference(h, np.geomspace(0.05, 0.18, 8)[None, :], theta, 1.0)
    _require(np.all(wins < 0), f"attention loses somewhere at c <= 0.18 (max {wins.max():.3g})")
    _require(wins.min() > -0.003, f"the largest win is {-wins.min():.3g}")
    c = phase_diagram.C_FIXED
    theta_b = np.linspace(0.5, 2.0, 7)[:, None]
    misaligned = phase_diagram._difference(h, c, theta_b, np.linspace(0.0, 0.95, 20)[None, :])
    aligned = phase_diagram._difference(h, c, theta_b, np.array([0.98, 1.0])[None, :])
    _require(np.all(misaligned > 0) and np.all(aligned < 0),
             f"at c = {c} the sign does not turn between cos 0.95 and 0.98")


PHASE_DIAGRAM = Claim(
    "phase_diagram",
    "Attention with aligned weights beats linear regression only when p/n ≲ 0.2, and then by at most 0.003",
    "With weights aligned with the signal (w = 2μ/‖μ‖, γ = 0.1) attention beats linear regression only when p is "
    "much smaller than n",
    "(c ≲ 0.2 at every ‖μ‖² ≤ 4, panel a), and then by at most 0.003 (hatched); at c = 0.2 only when "
    "cos∠(w, μ) ≥ 0.97 (panel b). Everywhere else on the maps it loses, by up to 0.32.",
    _check_phase_diagram)


# --------------------------------------------------------------------------- linear component

def _check_linear_component() -> None:
    lc = linear_component
    theta = np.linspace(0.0, 4.0, 9)[:, None]
    c = np.geomspace(0.2, 4.0, 7)[None, :]
    error = symrmt.attention_error((0.0, 1.0), c, lc.GAMMA, gram=lc._gram(theta))
    _require(np.allclose(error, error[0], rtol=1e-9, atol=1e-12),
             f"with a_1 = 0 E_attn moves with the signal by {np.ptp(error, axis=0).max():.3g}")
    a1 = np.linspace(0.0, 1.0, 21)
    rising, flat = a1 <= 0.7, a1 >= 0.7
    for value in (1.0, 4.0):
        curve = symrmt.attention_error({"a1": a1, "nu": np.ones_like(a1)}, lc.C_FIXED, lc.GAMMA, gram=lc._gram(value))
        _require(np.all(np.diff(curve[rising]) < 0), f"|mu|^2 = {value}: E_attn does not fall for a_1 <= 0.7")
        _require(np.ptp(curve[flat]) < 0.003, f"|mu|^2 = {value}: E_attn moves by {np.ptp(curve[flat]):.4f} "
                 "beyond a_1 = 0.7")


LINEAR_COMPONENT = Claim(
    "linear_component",
    "Without a linear component (a_1 = 0) the limit n → ∞ ignores the signal; the finite model does not",
    "Without a linear component (a_1 = 0, d = 0) the deterministic equivalent of E_attn depends neither on the "
    "signal nor on the weights",
    "at every ‖μ‖² ≤ 4 and 0.2 ≤ c ≤ 4 (panels a, b); with ‖μ‖² ≥ 1 the error falls as a_1 grows to 0.7 and stays within 0.003 beyond (panel c). This "
    "is a statement about the limit n → ∞ at fixed ‖μ‖: at finite n the simulated attention does use the signal "
    "(panel d).",
    _check_linear_component)


# --------------------------------------------------------------------------- rank

def _check_rank() -> None:
    h = figure_f().h
    gamma = np.geomspace(1e-3, 1e2, 26)
    ranks = (1, 2, 3, 4)
    spread = np.array([symrmt.attention_error(h, rank.C_FIXED, gamma, gram=rank.gram_matrix(r, "spread"))
                       for r in ranks])
    half = np.array([symrmt.attention_error(h, rank.C_FIXED, gamma, gram=rank.gram_matrix(r, "half aligned"))
                     for r in ranks])
    _require(np.all(np.diff(spread, axis=0) > 0), "spread: E_attn does not grow with r at every gamma")
    _require(np.all(half > spread), "half aligned is not above spread everywhere")
    at = [float(symrmt.attention_error(h, rank.C_FIXED, rank.GAMMA, gram=rank.gram_matrix(r, p)))
          for p in ("spread", "half aligned") for r in (1, 4)]
    _require(round(at[1] - at[0], 3) == 0.008, f"spread, gamma = {rank.GAMMA}: r = 1 -> 4 adds {at[1] - at[0]:.4f}")
    _require(round(np.ptp(spread[:, -1]), 2) == 0.23, f"spread, gamma = 100: r = 1 -> 4 adds {np.ptp(spread[:, -1]):.3f}")
    flat = [float(symrmt.attention_error(h, rank.C_FIXED, rank.GAMMA, gram=rank.gram_matrix(r, "half aligned")))
            for r in ranks]
    _require(np.ptp(flat) < 0.002, f"half aligned, gamma = {rank.GAMMA}: spread over r {np.ptp(flat):.4f}")


RANK = Claim(
    "rank",
    "At equal total strength, splitting the weights over r > 1 directions never lowers E_attn",
    "At equal total strength, rank-r weights interpolate no better than rank-1 weights",
    "(c = 1, ‖μ‖ = 1, Σ‖w^(k)‖² = 4, r ≤ 4, 0.001 ≤ γ ≤ 100): with μ spread over the span E_attn grows with r at "
    "every ridge, by 0.008 from r = 1 to 4 at γ = 0.1 and by up to 0.23 at γ = 100; with half of μ outside the span "
    "it is higher still and, at γ = 0.1, flat in r (within 0.002).",
    _check_rank)


# --------------------------------------------------------------------------- the paper's ridge-regression figure

def _check_paper_fig1() -> None:
    ridgeless = 1e-7        # E_RR(gamma) - E_RR(0+) is O(gamma) at c < 1 and O(gamma^2) at c > 1
    c = np.array([1 / 16, 0.25, 0.5, 0.75, 1.5, 2.0, 4.0])
    for theta in (0.0, 0.5, paper_fig1.MU2, 4.0):
        value = symrmt.linear_error(c, ridgeless, Geometry(mu_norm=np.sqrt(theta)))
        closed = np.clip(1 - c, 0, None) / (1 + theta)
        _require(np.allclose(value, closed, atol=1e-5), f"|mu|^2 = {theta}: E_RR(0+) = {value}, not {closed}")
    a = symrmt.linear_error(paper_fig1.A_P / paper_fig1.A_N, np.array([0.1, 100.0]),
                            Geometry(mu_norm=np.sqrt(paper_fig1.MU2)))
    _require(a[0] < 1e-3 and round(float(a[1]), 2) == 0.91, f"panel (a): E_RR(0.1), E_RR(100) = {a}")
    b = symrmt.linear_error(np.array([0.25, 1.0]), paper_fig1.B_GAMMA, Geometry(mu_norm=np.sqrt(paper_fig1.MU2)))
    _require(np.allclose(b, (0.375, 7.9e-4), rtol=1e-2), f"panel (b): E_RR at p = n/4, p = n: {b}")


PAPER_FIG1 = Claim(
    "paper_fig1",
    "Ridge regression on the tokens at the paper's settings: E_RR(0+) = (1 − p/n)₊ / (1 + ‖μ‖²)",
    "At a vanishing ridge linear regression's interpolation error is E_RR(0+) = (1 − c)₊/(1 + ‖μ‖²), c = p/n:",
    "it falls linearly in p to 0 at p = n (panel b, γ = 1e-5: 0.375 at p = n/4, 7.9e-4 at p = n, where the "
    "ridge still counts) and as 1/(1 + ‖μ‖²) with the signal (panel c). At p = 4n (panel a) it is below 1e-3 "
    "up to γ = 0.1 and 0.91 at γ = 100.",
    _check_paper_fig1)


# --------------------------------------------------------------------------- real weights (MiniLM-L6)

def _check_real_weights() -> None:
    layer = real_weights.layer_analysis(real_weights.LAYER)
    gamma = np.geomspace(1e-2, 10.0, 13)
    above, below = [], []
    for fit in (layer.matrix, real_weights.chosen_heads(layer)[0]):
        for signal in real_weights.SIGNALS:
            theory = real_weights.three_theories(fit, real_weights.F, real_weights.C, gamma, signal)
            above.append(theory["fit"] - theory["general"])
            below.append(theory["general"] - theory["elliptic"])
    above, below = np.concatenate(above), np.concatenate(below)
    _require(above.min() >= 0.01 and round(above.max(), 2) == 0.59,
             f"the fit's theory is above the general-M theory by {above.min():.4f} to {above.max():.4f}")
    _require(round(below.min(), 2) == 0.04 and round(below.max(), 2) == 0.39,
             f"the elliptic model is below the general-M theory by {below.min():.4f} to {below.max():.4f}")
    head = real_weights.chosen_heads(layer)[0].head
    _require(head == 2, f"the head of smallest stable rank of layer 0 is {head}")


REAL_WEIGHTS = Claim(
    "real_weights",
    "MiniLM-L6: the exact general-M theory against the I + low-rank fit and the elliptic model",
    "On MiniLM-L6's layer 0 and its head of smallest stable rank (head 2), the theory of the fitted I + rank 8 lies "
    "above the exact general-M theory and the elliptic model below it",
    "at f = tanh, c = 1 and every 0.01 ≤ γ ≤ 10: by 0.01 to 0.59 (noise only, μ along the top singular vector or a "
    "random direction), and by 0.04 to 0.39 (the same panels; the elliptic model at rank 0, three numbers of M).",
    _check_real_weights)


#: claim name -> claim. A figure's main claim carries the figure's name (its title comes from it); a figure
#: may make further claims under other names (``scale_law`` belongs to ``random_inputs``).
CLAIMS: dict[str, Claim] = {**{c.figure: c for c in (RANDOM_INPUTS, ALIGNMENT, PHASE_DIAGRAM, LINEAR_COMPONENT,
                                                     RANK, PAPER_FIG1, REAL_WEIGHTS)},
                            "scale_law": SCALE_LAW}


def claim(figure: str) -> Claim:
    """The main claim of ``figure`` (KeyError for a figure that makes none, e.g. ``validation``)."""
    return CLAIMS[figure]


def claims_of(figure: str) -> list[Claim]:
    """Every claim ``figure`` makes, its main claim first (its caption states each with its region)."""
    return [c for c in CLAIMS.values() if c.figure == figure]
