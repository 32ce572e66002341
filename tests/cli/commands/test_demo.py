"""``symrmt demo``: the whole pipeline, checked by its numbers.

The theory side is checked against values that do not come from the demo's own code
path: the Hermite data of tanh (Stein's lemma: a_1 = E tanh' = 1 - E tanh^2 = 1 - nu, and
a_1 to 7 digits from an independent mpmath quadrature), and on pure noise at c = 1 the
closed form E_lin = sqrt(gamma / (gamma + 4)) (docs/theory.md, closed forms). The
Monte Carlo side is checked against a direct call of ``symrmt.simulate`` with the same
seed (the demo must report exactly what the simulator computed) and against the
theory within a band set by n and the seeds.
"""
from __future__ import annotations

import contextlib
import io
import json

import numpy as np
import pytest
from scipy import stats

import symrmt
from symrmt.cli import main
from symrmt.presentation.demo import C, GAMMA_MC, SETTINGS

from ..runner import run, run_json

N, SEEDS = 128, 4


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    """One run of ``symrmt demo --json`` shared by the checks (module scope: capsys is per test)."""
    plot = tmp_path_factory.mktemp("demo") / "demo.png"
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        status = main(["demo", "--n", str(N), "--seeds", str(SEEDS), "--plot", str(plot), "--json"])
    assert status == 0
    return json.loads(buffer.getvalue()), plot


def test_demo_reports_the_hermite_data_of_tanh(demo):
    out, _ = demo
    assert out["f"] == "tanh(x)" and out["c"] == C
    assert abs(out["a1"] - 0.6057055) < 5e-7          # independent mpmath value, 7 digits
    assert abs(out["a1"] + out["nu"] - 1) < 1e-10      # Stein's lemma for tanh


def test_demo_linear_theory_is_the_closed_form_on_noise(demo):
    out, _ = demo
    noise = out["settings"][0]
    assert noise["setting"] == SETTINGS[0][0] and noise["geometry"]["mu_norm"] == 0
    gamma = np.asarray(noise["gamma"])
    np.testing.assert_allclose(gamma, GAMMA_MC)
    np.testing.assert_allclose(noise["theory"]["linear"], np.sqrt(gamma / (gamma + 4)), rtol=1e-9)


def test_demo_errors_are_errors(demo):
    """Each curve lies in [0, 1] and increases with gamma; the signal lowers both errors."""
    out, _ = demo
    for setting in out["settings"]:
        for curve in (setting["theory"]["attention"], setting["theory"]["linear"]):
            curve = np.asarray(curve)
            assert np.all((curve > 0) & (curve < 1)) and np.all(np.diff(curve) > 0)
    noise, signal = (np.asarray(out["settings"][i]["theory"]["attention"]) for i in (0, 1))
    assert np.all(signal < noise)


def test_demo_reports_exactly_what_the_simulator_computes(demo):
    out, _ = demo
    for (label, geometry), setting in zip(SETTINGS, out["settings"]):
        direct = symrmt.simulate("tanh(x)", n=N, c=C, gamma=GAMMA_MC, geometry=geometry, seeds=SEEDS, progress=False)
        reported = setting["simulation"]
        np.testing.assert_array_equal(reported["attention"]["mean"], direct.attention_mean, err_msg=label)
        np.testing.assert_array_equal(reported["linear"]["mean"], direct.linear_mean, err_msg=label)


def test_demo_monte_carlo_is_near_its_theory(demo):
    """Mean over 4 seeds within a 99% t band (t_{0.995, 3} = 5.84 se) plus the O(1/n) finite-size
    allowance of tests/validation/test_theory_vs_simulation.py (20/n = 0.16 at n = 128: at this tiny n
    the check is loose, it catches a demo that pairs the wrong numbers, not a few-percent error)."""
    out, _ = demo
    band = stats.t.ppf(0.995, SEEDS - 1)
    for setting in out["settings"]:
        for kind in ("attention", "linear"):
            mc = setting["simulation"][kind]
            gap = np.abs(np.asarray(mc["mean"]) - setting["theory"][kind])
            assert np.all(gap <= band * np.asarray(mc["se"]) + 20 / N), (setting["setting"], kind, gap)


def test_demo_plot_is_a_png(demo):
    _, plot = demo
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and plot.stat().st_size > 10_000


def test_demo_table_prints_the_json_numbers(capsys, tmp_path):
    status, text, _ = run(capsys, "demo", "--n", "64", "--seeds", "2", "--plot", str(tmp_path / "d.png"))
    data = run_json(capsys, "demo", "--n", "64", "--seeds", "2", "--plot", str(tmp_path / "e.png"))
    assert status == 0
    for setting in data["settings"]:
        assert setting["setting"] in text
        for value in setting["theory"]["attention"]:
            assert f"{value:.4f}" in text
