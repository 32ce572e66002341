"""symrmt.derive.paper: the body of a paper; what is printed is proven equal to what is compiled and solved."""
from __future__ import annotations

import re

import pytest
import sympy as sp

from symrmt.derive import symbols as S
from symrmt.derive.components import WoodburyForm
from symrmt.derive.latex import system_latex
from symrmt.derive.paper import hermite_given, system_body
from symrmt.derive.simplify import Ledger, common_factor, simplest
from symrmt import models

#: Every kind, ranks 1-3 where the rank exists, both printed forms.
SYSTEMS = [(kind, rank, form) for form in ("quadrature", "algebraic")
           for kind, ranks in (("attention", (1, 2, 3)), ("kernel_ridge", (1, 2, 3)), ("linear", (1,)),
                               ("gram_density", (1,)), ("kernel_density", (1,)))
           for rank in ranks]
#: All of them take about 25 s: the default suite proves the first (attention, rank 1, quadrature), CI all.
CASES = [SYSTEMS[0], *(pytest.param(*case, marks=pytest.mark.slow) for case in SYSTEMS[1:])]


def _compiled(system) -> list[sp.Expr]:
    """Every expression the solver compiles: residuals, definitions, integrands, observables, start, initial values."""
    out = [t - r if t not in sp.expand(t - r).free_symbols else r for t, r in system.residuals.items()]
    for value in system.definitions.values():
        out += list(value) if isinstance(value, sp.MatrixBase) else []
    out += [a.integrand for a in system.averages.values()]
    for value in system.observables.values():
        out += [e for e in value.entries() if e != 0] if isinstance(value, WoodburyForm) else [value]
    out += [system.continuation.start, *system.continuation.initial.values()]
    return [e for e in out if isinstance(e, sp.Expr) and not e.is_Atom]


def _unproven(ledger: Ledger) -> list[tuple]:
    """The printed expressions that SymPy cannot prove equal to the system's (simplify(printed - source) != 0)."""
    return [(source, printed) for source, printed in ledger.pairs
            if printed != source and sp.simplify(printed - source) != 0]


@pytest.mark.parametrize("kind, rank, form", CASES, ids=lambda v: str(v))
def test_printed_equals_solved(kind, rank, form):
    """Each printed expression equals the compiled one (sympy.simplify of the difference is 0), and none is missed."""
    system = models.get(kind).system(rank, form)
    for write in (lambda ledger: system_body(system, solver_data=True, ledger=ledger),
                  lambda ledger: system_latex(system, solver_data=True, ledger=ledger)):
        ledger = Ledger()
        write(ledger)
        assert not _unproven(ledger)
        missing = [e for e in _compiled(system) if e not in ledger.sources()]
        assert not missing, missing[:3]


def test_printed_equals_solved_for_an_f_without_a_linear_part():
    # a_1 = 0 is put in, and its algebraic form is its own system (the general one divides by a_1)
    system = models.ATTENTION.system(1, "algebraic", without_linear_part=True)
    ledger = Ledger()
    system_body(system, solver_data=True, ledger=ledger)
    assert not _unproven(ledger) and all(e in ledger.sources() for e in _compiled(system))


def test_the_printed_equals_solved_check_has_power(monkeypatch):
    """A simplifier that drops one term of one expression (the a_1 lambda of M) is caught."""
    import symrmt.derive.latex_printer as printing

    def wrong(expr, unknowns=()):
        return simplest(expr, unknowns).subs(S.lam, 1) if hasattr(expr, "has") and expr.has(S.b) else \
            simplest(expr, unknowns)

    monkeypatch.setattr(printing, "simplest", wrong)
    ledger = Ledger()
    system_body(models.ATTENTION.system(1, "quadrature"), ledger=ledger)
    assert _unproven(ledger)


def test_simplest_factors_and_collects():
    assert simplest(S.a1 * S.lam - S.a1 + S.d) == S.a1 * (S.lam - 1) + S.d
    s = sp.Symbol("s", real=True)
    t12 = S.trace_symbol(1, 1)
    messy = S.lam * (s / 2 + sp.Rational(1, 2)) - s / 2 - sp.Rational(1, 2) - S.b**2 * t12
    assert simplest(messy, [t12]) == (s + 1) * (S.lam - 1) / 2 - S.b**2 * t12
    b2 = (-2 * (s - 1)**2 + sp.pi * (2 * s**2 - (s + 1)**2 + 2)) / (4 * sp.pi)
    assert simplest(b2) == (sp.pi - 2) * (s - 1)**2 / (4 * sp.pi)
    assert {abs(f) for f in simplest(0.605706 * S.lam - 0.605706).atoms(sp.Float)} == {sp.Float(0.605706)}


def test_common_factor_of_a_matrix():
    k, m = common_factor(sp.Matrix([[S.a1 * S.theta / S.c, S.a1 / S.c], [0, S.a1 * S.alpha_K / S.c]]))
    assert k == S.a1 / S.c and m == sp.Matrix([[S.theta, 1], [0, S.alpha_K]])
    assert common_factor(sp.Matrix([[S.theta, 1], [1, 0]]))[0] == 1


def test_leaky_relu_data_are_given_exactly_and_factored():
    from symrmt import hermite

    # the closed forms, whatever the load (a 1 s search, hermite's default, can miss them on a busy machine)
    _, given = hermite_given(hermite("leaky_relu(x, s)", center=True, timeout=60.0))
    values = {str(entry[0]): entry[-1] for entry in given}
    s = next(iter(values["a_1"].free_symbols))
    assert sp.simplify(values["a_1"] - (s + 1) / 2) == 0
    assert values["b**2"] == (sp.pi - 2) * (s - 1)**2 / (4 * sp.pi)                       # printed as it stands
    assert sp.simplify(values["b**2"] - (values["nu"] - values["a_1"]**2)) == 0


# --------------------------------------------------------------------------- the body


def _labels(text: str) -> list[str]:
    return re.findall(r"\\label\{([^}]*)\}", text)


def test_the_body_is_model_assumptions_statement_definitions():
    from symrmt import latex

    body = latex("leaky_relu(x, s)", center=True, body=True, label_prefix="lrelu")
    model, rest = body.split(r"\paragraph{Assumptions.}")
    for needle in (r"X &= Z + \mu y^\top", r"K_{ij} &= \frac{f(S_{ij})}{\sqrt{p}} \ (i \ne j), \quad K_{ii} = d",
                   r"Q(\gamma) &= \left(\frac{K^\top X^\top X K}{n} + \gamma I_n\right)^{-1}",
                   r"\Phi(\gamma) &= \frac{y^\top Q(\gamma)\, y}{n}", r"E_\mathrm{attn}(\gamma) &= - \gamma^{2}"):
        assert needle in model, needle
    statement, definitions = rest.split(r"\paragraph{Definitions.}")
    assert r"\begin{claim}[heuristic]" in statement and r"\end{claim}" in statement      # rank 1 is not proven
    assert r"E_\mathrm{attn}(\gamma) - \bar{E}_\mathrm{attn}(\gamma) \to 0" in statement
    assert r"\bar{E}_\mathrm{attn}(\gamma) &= - \gamma^{2} \frac{\mathrm{d}}{\mathrm{d}\gamma} \bar{\Phi}(\gamma)" in statement
    assert r"\bar{\Phi}(\gamma) &= \tau_{11} - g^\top" in statement and r"a_{1} \left(\lambda - 1\right)" in statement
    assert r"\Gamma &= (\mu, w_K, w_Q)^\top (\mu, w_K, w_Q)" in statement and "continuous in" in statement
    assert r"\frac{s}{2}" not in statement and r"\mathbb{E}[\xi f(\xi)]" not in statement
    assert r"\begin{tabular}" in definitions and r"\frac{\left(\pi - 2\right) \left(s - 1\right)^{2}}{4 \pi}" in definitions
    # no symbol of the implementation, and each symbol defined once
    for word in ("pencil", "H_N", r"\mathcal{U}", "Dyson", "Woodbury", "the ridge parameter", r"\pm 1\}^n \text"):
        assert word not in body.split("\n", 1)[1], word
    assert "symrmt latex" not in body.split("\n", 1)[1] and r"\gamma_{0}" not in body
    linear = latex(kind="linear", body=True)
    assert r"\begin{theorem}" in linear and "heuristic" not in linear                   # a theorem where proven
    assert r"\begin{proposition}" in latex(kind="linear", body=True, theorem_env="proposition")


def test_parts_print_the_model_once():
    from symrmt import latex
    from symrmt.errors import SymrmtInputError

    theorem = latex("tanh(x)", body=True, part="theorem", label_prefix="tanh")
    assert r"\paragraph{Model.}" not in theorem and r"\paragraph{Definitions.}" not in theorem
    assert r"\begin{claim}" in theorem
    # the assumptions are their own part: printed once per paper; a theorem without them cites them in words
    assert r"\paragraph{Assumptions.}" not in theorem and r"\label{tanh:A1}" not in theorem
    assert "Under the assumptions of the model, almost surely" in theorem and r"\ref{tanh:A" not in theorem
    alone = latex("tanh(x)", body=True, part="assumptions", label_prefix="tanh")
    assert r"\label{tanh:A4}" in alone and r"\begin{claim}" not in alone and "Model." not in alone
    whole = latex("tanh(x)", body=True)
    assert whole.count(r"\paragraph{Assumptions.}") == 1 and r"Under Assumptions~\ref{attention:A1}" in whole
    both = latex("tanh(x)", body=True, part=["definitions", "model"])
    assert both.index("Model.") < both.index("Definitions.") and "claim}" not in both.split("\n", 1)[1]
    with pytest.raises(SymrmtInputError, match="part 'proof'"):
        latex(body=True, part="proof")
    with pytest.raises(SymrmtInputError, match="fragments"):
        latex(part="model")


def test_an_f_that_theory_refuses_is_refused_and_the_centring_constant_is_shown():
    from symrmt import latex
    from symrmt.errors import NonlinearityError

    with pytest.raises(NonlinearityError, match="not centered"):
        latex("tanh(a*x)+b*x**2")
    body = latex("tanh(a*x)+b*x**2", center=True, body=True)
    assert r"a_{0}(a, \tilde{b})" in body and r"is written $\tilde{b}$, since" in body


def test_labels_carry_the_prefix_so_two_systems_share_a_paper():
    from symrmt import latex

    one = latex("tanh(x)", body=True, label_prefix="tanh")
    two = latex("leaky_relu(x, s)", center=True, body=True, label_prefix="lrelu")
    assert {"tanh:t11", "tanh:Mlambda", "tanh:Q", "tanh:Eattngamma"} <= set(_labels(one))
    assert all(label.startswith("lrelu:") for label in _labels(two))
    both = _labels(one) + _labels(two)
    assert len(both) == len(set(both))
    assert _labels(latex(body=True))[0] == "attention:X"                          # default: the system's name


def test_a_bad_label_prefix_is_one_clear_error():
    from symrmt import latex
    from symrmt.errors import SymrmtInputError

    with pytest.raises(SymrmtInputError, match="label prefix"):
        latex(body=True, label_prefix="my prefix}")


def test_solver_data_only_on_request_in_their_own_environment():
    from symrmt import latex

    plain = latex("tanh(x)", body=True)
    data = latex("tanh(x)", body=True, solver_data=True)
    assert "symrmtsolverdata" not in plain and "physical branch" not in plain
    inside = data.split(r"\begin{symrmtsolverdata}")[1].split(r"\end{symrmtsolverdata}")[0]
    assert "physical branch" in inside and r"\gamma_{0}" in inside and "Printed by" in inside
    assert data.startswith(plain.rsplit(r"\endgroup", 1)[0])          # the rest of the body is unchanged
    assert "physical branch" not in latex("tanh(x)") and "physical branch" in latex("tanh(x)", solver_data=True)


def test_numeric_puts_the_numbers_in_and_keeps_the_form():
    from symrmt import latex

    symbolic = latex("tanh(x)", body=True).split(r"\paragraph{Definitions.}")
    numeric = latex("tanh(x)", body=True, numeric=True).split(r"\paragraph{Definitions.}")
    assert "0.605706" not in symbolic[0] and "0.605706" in symbolic[1]
    assert r"0.605706 \left(\lambda - 1\right) - 0.0274153 t_{12}" in numeric[0]        # a_1 (lambda - 1) kept
    assert r"\frac{0.605706}{c} \begin{pmatrix}" in numeric[0]                          # C_12's factor kept
    assert "a_{1}" not in numeric[0].split(r"\paragraph{Assumptions")[1] and "b^{2}" not in numeric[0]


def test_python_returns_the_same_body_and_a_system_renders_in_jupyter(tmp_path):
    from symrmt import latex
    from symrmt.cli import main
    from symrmt.derive import attention_system

    target = tmp_path / "b.tex"
    assert main(["latex", "--f", "tanh(x)", "--body", str(target), "--part", "theorem"]) == 0
    assert target.read_text() == latex("tanh(x)", body=True, part="theorem")
    assert main(["latex", "--f", "tanh(x)", "--body", str(target), "--part", "assumptions", "--part", "model"]) == 0
    assert target.read_text() == latex("tanh(x)", body=True, part=["model", "assumptions"])
    shown = attention_system(1)._repr_latex_()
    assert shown.startswith("$$") and shown.endswith("$$") and r"M(\lambda) &=" in shown
    # the rows of the statement that latex() prints for the theorem part, without their labels, and nothing else
    theorem = latex(body=True, part="theorem").split(r"\begin{claim}")[1]
    rows = [re.sub(r" \\(label\{[^}]*\}|nonumber)", "", row).strip()
            for block in re.findall(r"\\begin\{align\}\n(.*?)\n\\end\{align\}", theorem, re.S)
            for row in block.split(" \\\\\n")]
    assert len(rows) > 5 and shown == "$$\\begin{aligned}\n" + " \\\\\n".join(rows) + "\n\\end{aligned}$$"


def test_the_block_pattern_is_checked_entry_by_entry():
    """G printed as (tau_ab + tau^A_ab V_a^T V_b) only when every entry is that; a planted wrong entry falls back."""
    import dataclasses

    from symrmt.derive.latex import woodbury_structure

    phi = models.ATTENTION.system(1).observables[S.PHI]
    assert woodbury_structure(phi) is not None
    gram = phi.gram.copy()
    gram[1, 2] = gram[1, 2] * 2                                    # one Gram entry of block 1 doubled
    assert woodbury_structure(dataclasses.replace(phi, gram=gram)) is None
    source = phi.source.copy()
    source[1, 0] = S.tau_symbol(1, 2)                              # g no longer a column of G
    assert woodbury_structure(dataclasses.replace(phi, source=source)) is None
