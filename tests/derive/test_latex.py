"""symrmt.derive.latex: the printed system, solver data included."""
import re

import pytest
import sympy as sp

from symrmt.derive import attention_system, linear_system
from symrmt.derive import symbols as S
from symrmt.derive.density import density_system
from symrmt.derive.latex import system_latex
from symrmt.derive.registry import hermite_substitution
from symrmt.errors import SymrmtInputError


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
    assert r"\gamma \in \left(0, 10^{12}\right]" in text and r"\omega_{KQ} \in \mathbb{R}" in text
    density = system_latex(density_system("kernel"))
    assert r"\eta_{0} &= " in density and r"predictor in } \eta" in density
    assert r"\rho_\eta(x) &\ge 0" in density and r"\operatorname{Im} t_{11} \geq 0" in density


def test_a_substitution_reaches_the_solver_data_too():
    text = system_latex(attention_system(), {S.a1: 0, S.b: 1, S.d: 0})
    assert r"\gamma_{0} &= 20 \left(1 + \frac{1}{c}\right) \left(c + 1\right)" in text
    assert r"a_{1} \in" not in text                      # substituted parameters leave the domains


def test_every_block_is_an_aligned_environment():
    for system in (attention_system(), linear_system(), density_system("gram")):
        blocks = system_latex(system).split("\n\n")
        assert len(blocks) >= 5
        assert all(b.startswith(r"\begin{aligned}") and b.endswith(r"\end{aligned}") for b in blocks)


# --------------------------------------------------------------------------- a paper's appendix


def _equations_and_where(text: str) -> tuple[str, str]:
    equations, where = text.rsplit("\n\n", 1)
    assert r"\text{where }" in where
    return equations, where


def test_hermite_data_are_symbols_given_once():
    # f = x exp(-x^2/2): a_1 and b stay symbols in the equations, their values are given once in the where block
    from symrmt import latex

    equations, where = _equations_and_where(latex("x*exp(-x**2/2)"))
    assert r"\sqrt{3}" not in equations and r"\sqrt{2}" not in equations and equations.count("b^{2}") >= 3
    assert r"a_{1} \left(\lambda - 1\right) - b^{2} t_{12} + d" in equations      # collected, a_1 factored
    assert r"a_{1} = \mathbb{E}[\xi f(\xi)] = \frac{\sqrt{2}}{4}" in where
    assert r"\nu = \mathbb{E}[f(\xi)^2] = \frac{\sqrt{3}}{9}" in where
    assert r"b^{2} = \nu - a_1^2 = \frac{\sqrt{3}}{9} - \frac{1}{8}" in where
    assert r"f(x) = x e^{- \frac{x^{2}}{2}}" in where
    # b = 0 is put in: f = x has no Wigner part, so the t's leave M(lambda)
    linear_f, _ = _equations_and_where(latex("x"))
    assert "b^{2}" not in linear_f and r"M(\lambda) &= \begin{pmatrix}\gamma & a_{1} \left(\lambda - 1\right) + d" in linear_f


def test_b_squared_of_a_leaky_relu_is_factored():
    # the new user's example: lambda (s/2 + 1/2) - s/2 - 1/2 and b^2 = (-2 (s-1)^2 + pi (2 s^2 - (s+1)^2 + 2))/(4 pi)
    from symrmt import latex

    text = latex("leaky_relu(x, s)", center=True)
    equations, where = _equations_and_where(text)
    assert r"\frac{s}{2}" not in equations and r"a_{1} \left(\lambda - 1\right)" in equations
    assert r"a_{1} = \mathbb{E}[\xi f(\xi)] = \frac{s + 1}{2}" in where
    assert r"b^{2} = \nu - a_1^2 = \frac{\left(\pi - 2\right) \left(s - 1\right)^{2}}{4 \pi}" in where
    numeric = latex("leaky_relu(x, s)", center=True, params={"s": 0.5}, numeric=True)
    assert "0.75" in _equations_and_where(numeric)[0]                # --numeric: the numbers in the equations


def test_derivatives_use_an_upright_d():
    text = system_latex(attention_system())
    assert r"\frac{\mathrm{d}}{\mathrm{d}\gamma} \Phi" in text and r"\frac{d}" not in text


def test_every_printed_vector_and_woodbury_object_is_defined():
    _, where = _equations_and_where(system_latex(attention_system(rank=2)))
    for needle in (r"y \in \{\pm 1\}^n", r"s = Z^\top \mu", r"k_{1} = Z^\top w_K^{(1)}", r"q_{2} = Z^\top w_Q^{(2)}",
                   r"\mathsf{G} = \mathcal{U}^\top H_N^{-1}\,\mathcal{U}/n", r"g = \mathcal{U}^\top H_N^{-1} e/n",
                   r"\mathsf{C} = n\,\mathcal{C}", r"e = y \text{ in pencil block } 1", r"Z \in \mathbb{R}^{p \times n}",
                   r"W_K^\top W_Q = I_p + \sum_{h=1}^{2} w_K^{(h)} w_Q^{(h)\top}"):
        assert needle in where, needle


def test_a_parameter_named_like_a_vector_renames_the_vector():
    from symrmt import latex

    text = latex("tanh(s*x)")
    equations, where = _equations_and_where(text)
    assert r"u^{(1)} = (y, z_{\mu}, q)" in equations and r"z_{\mu} = Z^\top \mu" in where
    assert r"s = Z^\top" not in text and r"f(x) = \tanh{\left(s x \right)}" in where
    assert r"a_{1} = \mathbb{E}[\xi f(\xi)] = a_{1}(s)" in where and r"\nu = \mathbb{E}[f(\xi)^2] = \nu(s)" in where
    both = latex("tanh(k*x) + y*x**3")
    assert r"u^{(2)} = (\boldsymbol{y}, z_{\mu}, z_{K})" not in both          # s is free: only k and y move
    assert r"u^{(2)} = (\boldsymbol{y}, s, z_{K})" in both and r"z_{K} = Z^\top w_K" in both


def test_a_parameter_named_like_a_scalar_gets_a_tilde():
    from symrmt import latex

    equations, where = _equations_and_where(latex("erf(d*x)", numeric=True))
    assert r"\tilde{d}" in where and r"+ d" in equations        # the user's d and the diagonal d
    assert r"f(x) = \operatorname{erf}{\left(\tilde{d} x \right)}" in where
    assert r"d = K_{ii}" in where


def test_digits_round_closed_forms_only_when_numeric():
    from symrmt import latex

    exact = latex("erf(x)")
    numeric = latex("erf(x)", digits=4, numeric=True)
    with pytest.raises(SymrmtInputError, match="f's data are exact, so no number is printed to round"):
        latex("erf(x)", digits=4)                                   # digits would change nothing: refused
    assert r"\sqrt{\pi}" in exact and r"\sqrt{\pi}" not in numeric and "0.6515" in numeric
    equations, where = _equations_and_where(latex("tanh(x)"))
    assert "0.605706" not in equations and "0.605706" in where      # 0.6057055096..., rounded in decimal, once
    assert "0.605706" in _equations_and_where(latex("tanh(x)", numeric=True))[0]


def test_long_lists_of_vectors_are_split():
    text = system_latex(attention_system(rank=12))
    lines = [line for line in text.splitlines() if "u^{(1)} = (" in line or line.startswith(r"& \qquad")]
    assert len(lines) >= 2 and all(len(line) < 120 for line in lines)
    assert r"u^{(1)} = (y, s, q_{1}, q_{2}, q_{3}, q_{4}, q_{5}, q_{6}," in text


def test_document_numbers_and_labels_every_equation():
    from symrmt import latex

    document = latex("tanh(x)", document=True)
    assert document.startswith(r"\documentclass") and document.rstrip().endswith(r"\end{document}")
    assert r"\begin{aligned}" not in document and document.count(r"\begin{align}") == 3
    labels = re.findall(r"\\label\{([^}]*)\}", document)
    assert len(labels) == len(set(labels)) >= 20
    assert {"attention:Mlambda", "attention:t11", "attention:tauij", "attention:G", "attention:barEattngamma",
            "attention:main", "attention:A1"} <= set(labels)
    assert r"\text{where }" not in document and r"\paragraph{Definitions.}" in document
    assert latex("tanh(x)", body=True) in document                   # the document is the body in a preamble
