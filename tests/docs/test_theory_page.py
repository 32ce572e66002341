"""docs/theory.md against itself and the package: its notation table, its status table, and the numbers
it quotes about the ridgeless exponents and the solver's limits.

The notation test holds the page's claim "each symbol has one meaning": every symbol of the table
appears on the page, and the second meanings that earlier versions gave to N, Q, A, nu, tau, m, R,
mu, D, lambda, sigma (and d, s on real_weights.md) do not come back, on the whole page: section 15 (softmax)
names its temperature calligraphic T (bare tau is section 17's 3 x 3 matrix), the mean e^{1/(2T^2)} a_0^exp (m is
a Stieltjes transform), its normalizers calligraphic Z (C is X^T X/n, R the Dyson resolvent), their fluctuation
bar-varepsilon (eta is Im z) and the projected tokens x^Q_j, x^K_i. Section 18 (a given weight matrix) has no
exception any more: where it needs a letter with a meaning elsewhere it takes a sans-serif one (k(rho), T, E_b,
the p-blocks p_b, q_b, the trace s, the blocks X_11, X_22, the vectors m_i), M_+ for M + M^T, and its beta is
the only beta (section 12's exponent is varpi, section 14's beta_3 is written out, real_weights.md's bias vector
is sans-serif b, its identity scale iota, which the cheaper comparison model of general_weights.md section 10
also uses, with sans-serif L, R, B, W, A_i, z, J, calligraphic E (elliptic part) and Omega). The checks run
over the whole page, general_weights.md and real_weights.md.
"""
from __future__ import annotations

import pathlib
import re

import numpy as np
import pytest

from symrmt.theory import attention_error, ridgeless_error

DOCS = pathlib.Path(__file__).parents[2] / "docs"
PAGE = (DOCS / "theory.md").read_text()
ROOT = DOCS.parent
OTHER_DOCS = {name: (DOCS / name).read_text() for name in ("usage.md", "validation.md", "real_weights.md")}
OTHER_DOCS["README.md"] = (ROOT / "README.md").read_text()
_GENERAL = (DOCS / "general_weights.md").read_text()
OTHER_DOCS["general_weights.md"] = _GENERAL


def _section(text: str, start: str, end: str) -> str:
    return text[text.index(start):text.index(end)]


NOTATION = _section(PAGE, "## Notation", "## 1. The model")
BODY = PAGE.replace(NOTATION, "")
CHECKED = PAGE

#: The softmax temperature as section 15, usage.md and validation.md once wrote it (e^{x/tau}, f_tau, tau^2, tau = 1).
TEMPERATURE = r"/\\tau\b|_\\tau\b|\\tau\^2|temperature \$\\tau\$|\$\\tau\$ = |\$\\tau = [0-9]"
#: Second meanings that the page once gave a symbol, as they were written: none may come back.
FORBIDDEN = {
    "N = I + GC (now sans-serif N)": r"(?<!\\mathsf )N = I \+ \\mathsf G",
    "Q as the branch polynomial (now Pi)": r"\$Q = A\^3",
    "A as zeta_1 + zeta_2 chi_1 (now bar zeta)": r"A = \\zeta_1",
    "nu_n as a spectral measure (now F_n)": r"\\nu_n",
    "mu_y as a spectral measure (now F_y)": r"\\mu_y",
    "mu_j as eigenvalues of N": r"\\mu_j|\\mu_k|\\mu_\\text\{bulk\}",
    "tau as linear regression's transform (now tau_11)": r"\\tau = \\mathbb E_\\lambda\\Big\[\\frac\{1\}\{\\gamma",
    "m_1 as a moment (now <x>_y)": r"2m_1/\\gamma|\$m_1 = ",
    "m_ij as a score shift": r"m_\{ij\}",
    "m as the law of A's transform (now m_A)": r"\$m\(z\) = \\mathbb E_\\lambda\[1/\(\\lambda - z\)\]",
    "D(lambda) as det M": r"D\(\\lambda|D'\(\\lambda",
    "sigma as a scale factor (now varsigma)": r"\\sigma f",
    "lambda as an eigenvalue of K^T C K": r"\\frac\{\\gamma\^2\}\{\(\\lambda \+ \\gamma\)\^2\}",
    "x as gamma Phi (now psi)": r"x = \\gamma\\,?\\Phi",
    "R as the finite-n resolvent (now calligraphic R)": r"\\qquad R = H_N\^\{-1\}",
    "H as the number of heads (now n_h)": r"\$H\$ heads|/H\^2",
    "p as a polynomial (now fraktur p)": r"\$p\(\\nu\)",
    "m as softmax's mean e^{1/(2T^2)} (now a_0^exp)": r"\$m = e\^|\(n-1\)\s*m\b|\(n-1\)\\,m\b|\(m/\\sqrt p\)",
    "C_j as a softmax normalizer (C is X^T X/n; now Z_j)": r"C_j\b",
    "R_i as a softmax row sum (R is the resolvent; now tilde Z_i)": r"R_i = \\sum",
    "eta_j as a fluctuation (eta is Im z; now bar varepsilon_j)": r"\\eta_j",
    "u_i, v_j as projected tokens (now x^K_i, x^Q_j)": r"\b[uv]_[ij] = W|\\\|v_j\\\||\bv_j\^2",
    "tau as the temperature (tau is section 17's matrix; now calligraphic T)": TEMPERATURE,
    # second meanings that section 18 and the pages around it had (issue 35)
    "beta as an exponent of a density (beta is section 18's datum; now varpi)": r"x\^\\beta|\{1 \+ \\beta\}",
    "beta_3 (written out now)": r"\\beta_3",
    "k(rho) as the two-point kernel (k is Z^T w_K; now sans-serif k)": r"(?<!\\mathsf )k\(\\rho\)",
    "H = M + M^T (H is the pencil; now M_+)": r"H = M \+ M\^\\top|N\^\{-1\}H\b|\baH\b",
    "E as the words (M, M^T, I) (E is the error; now sans-serif E_b)": r"\$E = \(M, M\^\\top, I\)|\(E_b\\",
    "T as the p-side self-energy (now sans-serif T)": r"(?<!\\mathsf )\bT_\{bb'\}|\\Sigma_n = T\\,|\$\$\nT = ",
    "s as a trace of N^-1 (s is Z^T mu; now sans-serif s)": r"\$s = \\operatorname\{tr\}\(N|\\tfrac\{s'?\}\{2\}",
    "g = a^2 - e (g is the Woodbury vector; written out now)": r"g = a\^2 - e|- gS\^2",
    "u_b, v_b as p-blocks (u(a, e) is a trace; now p_b, q_b)": r"(?<!\\mathsf )\b[uv]_[123]:|\\alpha M u_1|u_\{b'\}",
    "v_i as the signal vectors (now m_i)": r"\(v_1, v_2, v_3\) =",
    "r_1', r_2' (never defined; now r_1, r_2 with their definition)": r"\br_[12]'",
    "X_11, X_22 as p-side blocks (X is the data; now sans-serif X)": r"(?<![\\\w]mathsf )\bX_\{(11|22)\}",
    "lambda as a ridge (now gamma_plain)": r"a ridge \$\\lambda\$|E\^\\mathrm\{sm\}\(\\lambda\)",
    # the cheaper comparison model (general_weights.md section 10, theory.md 18.9) as it was written
    "s, L, E as the cheaper model's parts (now iota, sans-serif L, calligraphic E)": r"sI \+ L \+ E|\(s \+ L\)\\mu|\$sI \+ E\$",
    "r, R as its remaining trace and part (R is the resolvent; now iota_R, sans-serif R)": r"R = M - s_0I|R_0 = R - rI|r = \\operatorname\{tr\}R",
    "kappa as its 2 x 2 matrix (kappa is d - a_1; now sans-serif J)": r"\\kappa = \\begin\{pmatrix\}\\tau|\\kappa_\{[kba][lba']\}",
    "x, A as its traces (x_i are tokens, A = Z^T Z/p; now sans-serif z, A_i)": r"\\tilde A\(x\)|\$x = A_i",
    "W as U_k^T V_k (W_K, W_Q are weights; now sans-serif W)": r"\$W = U_k",
}
#: On real_weights.md the identity scale was s (s is Z^T mu) and the head width d (d is the diagonal of K).
FORBIDDEN_ELSEWHERE = {
    "s as the identity scale": r"\$s ?I\b|\$s = 0\$|dividing by \$s\$|\(sI \+|\\sqrt\{\|s\|\}|\\operatorname\{sign\}\(s\)",
    "beta as the key-side bias vector (beta is section 18's datum; now sans-serif b)": r"\\beta\^\\top x'|\\\|\\beta\\\|",
    "d as a head's width": r"width \$d = |\\sqrt d\b",
    "H as the number of heads": r"p/H\$",
    "tau as the temperature": TEMPERATURE,
}


def _symbols(cell: str) -> list[str]:
    return re.findall(r"\$([^$]+)\$", cell)


def _table_rows(section: str, first: str) -> list[list[str]]:
    rows = []
    for line in section.splitlines():
        if line.startswith("| ") and not line.startswith(f"| {first}") and not line.startswith("|---"):
            rows.append([c.strip() for c in re.split(r"(?<!\\)\|", line.strip().strip("|"))])
    return rows


def _core(symbol: str) -> str:
    """The defining part of a table entry: ``$A = Z^\\top Z/p$`` -> ``A``; a symbol without ``=`` as written."""
    return symbol.split(" = ")[0].split(" \\in ")[0].strip()


def test_every_symbol_of_the_notation_table_appears_on_the_page():
    missing = []
    for row in _table_rows(NOTATION, "symbol"):
        for symbol in _symbols(row[0]):
            for part in (s.strip() for s in _core(symbol).split(";")):
                if part and part not in BODY:
                    missing.append(part)
    assert not missing, f"in the notation table but not on the page: {missing}"


def _hits(text: str, patterns: dict[str, str]) -> list[str]:
    return [name for name, pattern in patterns.items() if re.search(pattern, text)]


def test_no_symbol_takes_back_a_second_meaning():
    assert _hits(CHECKED, FORBIDDEN) == []
    for name, text in OTHER_DOCS.items():
        assert _hits(text, FORBIDDEN_ELSEWHERE) == [], name
        assert _hits(text, FORBIDDEN) == [], name


def test_the_second_meaning_check_catches_a_planted_one():
    planted = "With $\\mu_y$ the spectral measure, $E = \\int \\frac{\\gamma^2}{(\\lambda + \\gamma)^2}$ and $D(\\lambda) = \\det M$."
    assert set(_hits(planted, FORBIDDEN)) == {"mu_y as a spectral measure (now F_y)", "lambda as an eigenvalue of K^T C K",
                                              "D(lambda) as det M"}
    assert _hits("the best $s I$ + rank 8", FORBIDDEN_ELSEWHERE) == ["s as the identity scale"]
    # section 15's former symbols, as it wrote them
    softmax = ("Write $m = e^{1/(2\\tau^2)}$; $C_j = \\sum_{k \\ne j} e^{S_{kj}/\\tau}$, $v_j = W_{KQ}\\, x_j$, "
               "where $\\eta_j$ is an average; the row sums $R_i = \\sum_{k \\ne i} e^{S_{ik}/\\tau}$")
    assert set(_hits(softmax, FORBIDDEN)) == {
        "m as softmax's mean e^{1/(2T^2)} (now a_0^exp)", "C_j as a softmax normalizer (C is X^T X/n; now Z_j)",
        "R_i as a softmax row sum (R is the resolvent; now tilde Z_i)", "eta_j as a fluctuation (eta is Im z; now bar varepsilon_j)",
        "u_i, v_j as projected tokens (now x^K_i, x^Q_j)",
        "tau as the temperature (tau is section 17's matrix; now calligraphic T)"}
    assert _hits("at $\\tau = 0.5$", FORBIDDEN_ELSEWHERE) == ["tau as the temperature"]
    assert _hits("$\\tau = (\\tau_{ij})$, $\\tau = M_0^{-1}$", FORBIDDEN) == []      # section 17's matrix is no hit
    # section 18's former second meanings, as it wrote them, and real_weights.md's
    section18 = ("$$\\beta = k(\\rho) - a_0^2$$ with $E = (M, M^\\top, I)$, $H = M + M^\\top$ and $s = \\operatorname{tr}(N^{-1}H)/p$, "
                 "$(a, g = a^2 - e)$, $(v_1, v_2, v_3) = (M^\\top\\mu, M\\mu, \\mu)$, $x_1 = N^{-1}r_1'$, $X_{11} = N^{-1}Y$, "
                 "$x^\\beta$, where $T_{bb'} = 0$")
    assert set(_hits(section18, FORBIDDEN)) == {
        "k(rho) as the two-point kernel (k is Z^T w_K; now sans-serif k)",
        "E as the words (M, M^T, I) (E is the error; now sans-serif E_b)", "H = M + M^T (H is the pencil; now M_+)",
        "s as a trace of N^-1 (s is Z^T mu; now sans-serif s)", "g = a^2 - e (g is the Woodbury vector; written out now)",
        "v_i as the signal vectors (now m_i)", "r_1', r_2' (never defined; now r_1, r_2 with their definition)",
        "X_11, X_22 as p-side blocks (X is the data; now sans-serif X)",
        "beta as an exponent of a density (beta is section 18's datum; now varpi)",
        "T as the p-side self-energy (now sans-serif T)"}
    assert _hits("$\\mathsf k(\\rho)$, $\\mathsf T_{bb'}$, $\\mathsf X_{11}$, $\\mathsf p_1:$", FORBIDDEN) == []
    cheaper = ("$$M \\to sI + L + E, \\qquad s = s_0 + r$$, $R = M - s_0I - L$, $\\kappa = \\begin{pmatrix}\\tau & 1$, "
               "$\\bar{\\mathcal X} = (\\tilde A(x)\\otimes I_p)^{-1}$, $W = U_k^\\top V_k$")
    assert set(_hits(cheaper, FORBIDDEN)) == {
        "s, L, E as the cheaper model's parts (now iota, sans-serif L, calligraphic E)",
        "r, R as its remaining trace and part (R is the resolvent; now iota_R, sans-serif R)",
        "kappa as its 2 x 2 matrix (kappa is d - a_1; now sans-serif J)",
        "x, A as its traces (x_i are tokens, A = Z^T Z/p; now sans-serif z, A_i)",
        "W as U_k^T V_k (W_K, W_Q are weights; now sans-serif W)"}
    assert set(_hits("$S = X^\\top (sI + L) X$, $\\|\\beta\\|$ is 6.84", FORBIDDEN_ELSEWHERE)) == {
        "s as the identity scale", "beta as the key-side bias vector (beta is section 18's datum; now sans-serif b)"}


#: Section 18 (a given weight matrix) keeps symbols of its own, which the Notation paragraph lists as used only
#: there: their defining equations, as section 18 writes them, must not appear anywhere else on the page.
SECTION_18 = _section(PAGE, "## 18. Any weight matrix", "## References")
OUTSIDE_18 = PAGE.replace(SECTION_18, "")
LOCAL_TO_18 = {
    "sigma^2 as the variance of M's scores": r"\\sigma\^2 := ",
    "rho as the symmetry of M's scores": r"\\rho := \\operatorname\{corr\}",
    "beta as the off-diagonal Hermite datum": r"\\beta = \\mathsf k\(\\rho\)",
    "tau_e": r"\\tau_e = ",
    "Sigma_n as the self-energy": r"\\Sigma_n = ",
    "N, N' as the p x p matrices of M": r"N = I \+ a",
    "Pi_ij as p-side forms": r"\\Pi_\{i1\} = ",
    "tau_11(a, e) as a p-side trace": r"\\tau_\{11\}\(a, e\) = ",
}


def test_section_18_keeps_its_own_symbols_to_itself():
    """Each local definition is in section 18, none outside it, and the Notation paragraph names each symbol."""
    assert [name for name, pattern in LOCAL_TO_18.items() if not re.search(pattern, SECTION_18)] == []
    assert _hits(OUTSIDE_18, LOCAL_TO_18) == []
    declared = NOTATION[NOTATION.index("[section 18]"):NOTATION.index("| symbol")]
    for symbol in (r"$M$", r"$N, N'$", r"$\sigma^2$", r"$\rho$", r"\alpha, \beta, \tau_e", r"$\Sigma_n$",
                   r"\tau_{11}(a, e)", r"$\Pi_{ij}$", r"$M_+ = M + M^\top$", r"$\mathsf k(\rho)$", r"$\mathsf T$",
                   r"\mathsf p_b, \mathsf q_b", r"$\mathsf s$", r"$\mathsf m_i$"):
        assert symbol in declared, symbol
    # planted: section 18's definition of rho copied into section 11 is caught
    planted = OUTSIDE_18.replace("## 11.", "$\\rho := \\operatorname{corr}(S_{ij}, S_{ji})$\n## 11.", 1)
    assert _hits(planted, LOCAL_TO_18) == ["rho as the symmetry of M's scores"]


# --------------------------------------------------------------------------- the status table of section 14

STATUS = _section(PAGE, "**Status of every step.**", "Notes to the table:")
STATUS_WORDS = ("theorem", "heuristic", "checked", "not derived", "measured", "consequence", "see [section 15]")


def test_one_status_table_covers_every_section_3_to_17_with_a_status_and_real_tests():
    rows = _table_rows(STATUS, "§")
    assert PAGE.count("| § | step | status | reference or test |") == 1
    sections = {int(s) for row in rows for s in re.findall(r"\d+", row[0])}
    assert sections >= set(range(3, 18))
    for row in rows:
        assert any(word in row[2] for word in STATUS_WORDS), row
        for path in re.findall(r"`(tests/[^`:]+\.py)", row[3]):
            assert (ROOT / path).is_file(), path
    heuristic_mde = [row for row in rows if row[0] == "5" and "Dyson" in row[1]]
    assert heuristic_mde and "heuristic" in heuristic_mde[0][2] and "Hermitian" in heuristic_mde[0][2]


# --------------------------------------------------------------------------- numbers the page quotes

def test_ridgeless_exponent_without_a_wigner_part_is_one_sixth():
    """Section 12: b = 0 (f = x), c = 1, d = 1: K = A commutes with C, K^T C K = A^3, E ~ gamma^(1/6), not the
    gamma^(1/3) of the b > 0 classification. The exponent is measured on the theory's own ladder (no simulation),
    so its error is the fit's: the local slope moves by < 1e-3 over the ladder's last decade."""
    exponent = ridgeless_error("x", 1.0, d=1.0).exponent
    assert exponent == pytest.approx(1 / 6, abs=1e-3)
    assert abs(exponent - 1 / 3) > 0.1          # the b > 0 value would be caught
    gamma = np.array([1e-12, 1e-11])
    local = np.diff(np.log(attention_error("x", 1.0, gamma, d=1.0))) / np.diff(np.log(gamma))
    assert local[0] == pytest.approx(1 / 6, abs=1e-4)
    assert "0.1666" in PAGE


def test_the_solver_limits_the_page_quotes():
    """Section 13: gamma = 3e-9 at c = 1 is the quadrature form's floor; the default form solves 1e-12, where the
    local exponent of tanh's E is 0.334 (section 12)."""
    quadrature = attention_error("tanh(x)", 1.0, np.array([1e-9, 3e-9]), form="quadrature", partial=True)
    assert np.ma.getmaskarray(quadrature).tolist() == [True, False]     # 1e-9 refused, 3e-9 solved
    e = attention_error("tanh(x)", 1.0, np.array([1e-12, 2e-12]))
    assert np.all(np.isfinite(e))
    assert round(float(np.log(e[1] / e[0]) / np.log(2)), 3) == 0.334
    assert "0.334" in PAGE and "3 \\cdot 10^{-9}" in PAGE


# --------------------------------------------------------------------------- claims at their true margin (issue 35)

def test_the_readme_headline_states_its_margin():
    """README: for c <= 0.15 attention is ahead at every ridge, but at c = 0.15 (tanh) by 2.0e-5 at gamma = 0.01,
    1.5e-3 at 0.1 and 0.033 at 1; both errors tend to 1 - c. A planted claim at a wider margin is not in it."""
    from symrmt.theory import linear_error

    gamma = np.array([0.01, 0.1, 1.0])
    attention, linear = attention_error("tanh(x)", 0.15, gamma), linear_error(0.15, gamma)
    margin = linear - attention
    assert [f"{m:.2g}" for m in margin] == ["2e-05", "0.0015", "0.033"], margin
    assert f"{attention[0]:.6f}" == "0.850004" and f"{linear[0]:.6f}" == "0.850024"
    assert abs(attention[0] - 0.85) < 1e-4                    # both tend to 1 - c
    readme = OTHER_DOCS["README.md"]
    for quoted in ("2.0e-5 at γ = 0.01 (0.850004 against 0.850024)", "1.5e-3", "0.033 at γ = 1", "tend to 1 − c"):
        assert quoted in readme, quoted
    assert "for c ≤ 0.15 at every ridge (panel c" not in readme


def test_the_general_weights_claims_are_the_grids():
    """general_weights.md section 9 and real_weights.md's summary quote the full grid's CSV
    (derivations/general_weights_grid.py): layer cells inside, the largest layer gap and its cell, the top-signal
    counts, and the noise-only cells where the fit misses."""
    import csv

    rows = list(csv.DictReader((DOCS / "figures" / "general_weights_grid.csv").open()))
    layers = [r for r in rows if not r["head"]]
    gap = {id(r): float(r["theory_general"]) - float(r["mc_mean"]) for r in layers}
    inside = [r for r in layers if abs(gap[id(r)]) <= float(r["mc_halfwidth95"])]
    worst = max(layers, key=lambda r: abs(gap[id(r)]))
    top = [r for r in layers if r["signal"] == "top"]
    assert (len(inside), len(layers)) == (600, 756)
    assert (worst["layer"], worst["f"], worst["c"], worst["signal"], worst["gamma"]) == ("3", "erf", "1", "top", "1")
    assert round(abs(gap[id(worst)]), 3) == 0.042
    assert (sum(r in inside for r in top), sum(gap[id(r)] > 0 for r in top), len(top)) == (113, 225, 252)
    noise = [r for r in layers if r["signal"] == "none"
             and abs(float(r["theory_fit"]) / float(r["mc_mean"]) - 1) > 0.10]
    holds = [r for r in noise if r in inside or abs(gap[id(r)]) <= 0.03 * float(r["mc_mean"])]
    assert (len(holds), len(noise)) == (203, 214)
    general = _GENERAL
    for quoted in ("600 of 756", "113 of 252", "225 of\n252", "0.042", "0.389 against 0.348 ± 0.022"):
        assert quoted in general, quoted
    assert "within 0.03 everywhere" not in general
    assert "203 of the 214" in OTHER_DOCS["real_weights.md"]
