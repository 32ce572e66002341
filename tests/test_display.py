"""symrmt.display (re-exported by symrmt.presentation.display): LaTeX of Hermite data, HTML tables and CSV of results (functions of the objects)."""
import csv
import io
import re

import numpy as np
import pytest

import symrmt
from symrmt import display


def test_hermite_latex_shows_closed_forms_rounded_numbers_and_nu():
    text = display.hermite_latex(symrmt.hermite("erf(x)"), digits=4)
    assert text.startswith("$$\\begin{aligned}") and text.endswith("\\end{aligned}$$")
    assert r"\nu &= \frac{2 \operatorname{asin}" in text and r"\approx 0.4646" in text
    assert r"b^2 = \nu - a_1^2 &= 0.04015" in text
    # No unrounded float leaks out: every decimal number has at most `digits` significant digits.
    for number in re.findall(r"\d+\.\d+", text):
        assert len(number.replace(".", "").lstrip("0")) <= 4, number


def test_hermite_latex_tags_numeric_only_values():
    text = display.hermite_latex(symrmt.hermite("tanh(x)"))
    assert r"a_1 &\approx 0.605706 \quad \text{(numeric)}" in text


def test_hermite_latex_is_balanced():
    text = display.hermite_latex(symrmt.hermite("relu(x)", center=True))
    assert text.count("{") == text.count("}") and text.count(r"\left(") == text.count(r"\right)")


def test_solve_html_and_csv_carry_the_same_numbers():
    gamma = np.array([0.1, 1.0])
    result = symrmt.solve_attention("tanh(x)", 1.0, gamma)
    page = display.solve_html(result, gamma=gamma)
    assert page.startswith("<table>") and page.count("<tr>") == 3 and "<th>t_12</th>" in page
    rows = list(csv.DictReader(io.StringIO(display.to_csv(result, gamma=gamma))))
    assert [float(r["E"]) for r in rows] == result.error.tolist()
    assert [float(r["t_22"]) for r in rows] == result.unknowns[2].tolist()
    as_dict = display.solve_as_dict(result)
    assert as_dict["t_11"] == result.unknowns[0].tolist() and as_dict["error"] == result.error.tolist()


def test_linear_solve_result_has_no_unknown_columns():
    result = symrmt.solve_linear(1.0, [0.5])
    assert set(display.solve_as_dict(result)) == {"error", "phi", "residual"}


def test_long_results_are_cut_in_html():
    gamma = np.geomspace(0.01, 10, display.MAX_ROWS + 5)
    page = display.solve_html(symrmt.solve_linear(1.0, gamma), gamma=gamma)
    assert page.count("<tr>") == display.MAX_ROWS + 2 and "5 more rows" in page


def test_simulation_html_and_csv(tmp_path):
    geometry = symrmt.Geometry(mu_norm=1.0)
    result = symrmt.simulate("tanh(x)", n=48, c=1.0, gamma=[0.1, 1.0], geometry=geometry, seeds=2)
    page = display.simulation_html(result)
    assert "n = 48" in page and "mu_norm = 1" in page and "±" in page and page.count("<tr>") == 3
    path = tmp_path / "mc.csv"
    text = display.to_csv(result, path)
    assert path.read_text() == text
    rows = list(csv.DictReader(io.StringIO(text)))
    assert [float(r["attention_mean"]) for r in rows] == result.attention_mean.tolist()
    assert {r["n"] for r in rows} == {"48"} and display.simulation_as_dict(result)["n"] == 48


def test_html_is_escaped():
    header, rows = ["<x>"], [["a & b"]]
    assert "&lt;x&gt;" in display._table("t<", header, rows) and "a &amp; b" in display._table("", header, rows)


@pytest.mark.parametrize("value, text", [(0.0, "0"), (6.0, "6"), (0.123456789, "0.123457"),
                                          (1.5e-9, r"1.5 \times 10^{-9}")])
def test_numbers_are_rounded(value, text):
    assert display._number(value, 6) == text
