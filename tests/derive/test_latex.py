"""symrmt.derive.latex: the printed system, solver data included."""
import sympy as sp

from symrmt.derive import attention_system, linear_system
from symrmt.derive import symbols as S
from symrmt.derive.density import density_system
from symrmt.derive.latex import system_latex
from symrmt.derive.registry import hermite_substitution


def test_latex_with_exact_hermite_data():
    text = system_latex(attention_system(), hermite_substitution(2 / sp.sqrt(3 * sp.pi),
                                                                2 / sp.pi * sp.asin(sp.Rational(2, 3))))
    assert r"\operatorname{asin}" in text and r"E_\mathrm{attn}(\gamma)" in text and "a_{1}" not in text
    assert r"\mathsf{G}" in text and r"t_{11} &= \frac{\tau_{11}}{c}" in text
    assert r"R(\lambda) &= M(\lambda)^{-1}" in text
    assert text.count(r"\begin{aligned}") == text.count(r"\end{aligned}") >= 4


def test_the_solver_data_are_printed_as_the_solver_reads_them():
    # Everything the solver consumes besides the equations: domains, start, initial values, branch, ranges.
    text = system_latex(attention_system())
    start = attention_system().continuation.start
    assert r"\gamma_{0} &= " + sp.latex(start) in text
    assert r"c t_{11} > 0,\ c \gamma t_{11} \leq 1" in text and r"\text{(physical branch)}" in text
    assert r"0 \le \Phi(\gamma) &\le \frac{1}{\gamma}" in text and "accuracy relative" in text
    assert r"0 \le E_\mathrm{attn}(\gamma) &\le 1" in text
    assert r"\gamma \in \left(0, \infty\right)" in text and r"\omega_{KQ} \in \mathbb{R}" in text
    density = system_latex(density_system("kernel"))
    assert r"\eta_{0} &= " in density and r"predictor in } \eta" in density
    assert r"\rho_\eta(x) &\ge 0" in density and r"\operatorname{im}{\left(t_{11}\right)} \geq 0" in density


def test_a_substitution_reaches_the_solver_data_too():
    text = system_latex(attention_system(), {S.a1: 0, S.b: 1, S.d: 0})
    assert r"\gamma_{0} &= 20 \left(1 + \frac{1}{c}\right) \left(c + 1\right)" in text
    assert r"a_{1} \in" not in text                      # substituted parameters leave the domains


def test_every_block_is_an_aligned_environment():
    for system in (attention_system(), linear_system(), density_system("gram")):
        blocks = system_latex(system).split("\n\n")
        assert len(blocks) >= 5
        assert all(b.startswith(r"\begin{aligned}") and b.endswith(r"\end{aligned}") for b in blocks)
