"""The verdicts of symrmt.analysis.agreement: their error rates where the truth is known, and planted errors.

Synthetic points draw ``seeds`` Gaussian values around a known truth, so the verdict's false alarm rate and
its power are binomial counts (tolerances from the count, not tuned). The Monte Carlo checks use the
simulator at n = 1024 in a fast regime (tanh with a signal, c = 1), where the theory is right, and the same
run against a theory with a planted error.
"""
from __future__ import annotations

import json
import math

import numpy as np
import pytest
from scipy import stats

from symrmt import Geometry, ParameterError, simulate
from symrmt.analysis.agreement import (FINITE_SIZE_BIAS, agreement_of, converge_command, judge, slow_regimes)
from symrmt.analysis.seeds import mean_se

TRIALS = 2000


def synthetic(rng, truth: float, sd: float, seeds: int, trials: int = TRIALS):
    """Means and standard errors of ``trials`` runs of ``seeds`` Gaussian draws around ``truth``."""
    draws = truth + sd * rng.standard_normal((seeds, trials))
    return mean_se(draws)


def binomial_band(p: float, trials: int = TRIALS) -> float:
    """Four binomial standard deviations of a rate p over ``trials`` (a seeded loop: the count is exact)."""
    return 4 * math.sqrt(p * (1 - p) / trials)


@pytest.mark.parametrize("seeds", [4, 8, 30])
def test_a_right_theory_agrees_95_percent_of_the_time(seeds):
    """With n huge (no allowance) the verdict 'agrees' is exactly |T_{s-1}| <= t_{0.975}: a 95% rate."""
    mean, se = synthetic(np.random.default_rng(seeds), 0.3, 0.02, seeds)
    _, verdicts = judge(mean, se, seeds, np.full(TRIALS, 0.3), n=10**12)
    rate = np.mean([v == "agrees" for v in verdicts])
    assert abs(rate - 0.95) <= binomial_band(0.95), rate


@pytest.mark.parametrize("seeds", [4, 8])
def test_a_theory_shifted_by_5_se_is_called_disagrees(seeds):
    """The planted error: the theory 5 true standard errors off. |z| > t then has the power of a noncentral t
    (0.80 for 4 seeds, 0.98 for 8), and such a point is 'disagrees' unless it lies within t se + B/n (n = 4096:
    B/n = 0.0012 against a shift of 0.05 or 0.035): a sliver, at most 2% of the trials here."""
    sd = 0.02
    true_se = sd / math.sqrt(seeds)
    mean, se = synthetic(np.random.default_rng(100 + seeds), 0.3, sd, seeds)
    _, verdicts = judge(mean, se, seeds, np.full(TRIALS, 0.3 + 5 * true_se), n=4096)
    t = stats.t.ppf(0.975, seeds - 1)
    power = stats.nct.sf(t, seeds - 1, 5) + stats.nct.cdf(-t, seeds - 1, 5)
    caught = np.mean([v != "agrees" for v in verdicts])
    disagrees = np.mean([v == "disagrees" for v in verdicts])
    assert 5 * true_se > 10 * FINITE_SIZE_BIAS / 4096
    assert abs(caught - power) <= binomial_band(power), (caught, power)
    assert disagrees >= caught - 0.02, (disagrees, caught)


def test_the_verdict_rules():
    z, verdicts = judge([0.30, 0.33, 0.305, 0.40, 0.40], [0.01] * 5, 4, [0.30, 0.30, 0.30, 0.30, np.nan], n=10**4,
                        regimes=[(), (), (), ("a_1 = 0 with a signal or weights",), ()])
    # 0.33: z = 3 <= t_3 = 3.18; 0.305 agrees; 0.40 in a slow regime is a finite-size gap; no theory: no verdict.
    assert verdicts == ("agrees", "agrees", "agrees", "finite-size gap", "no theory")
    assert np.isnan(z[4]) and z[1] == pytest.approx(3.0)
    # Outside the slow regimes a gap within t se + B/n is a finite-size gap, beyond it a disagreement.
    n = 100
    inside = 0.30 + stats.t.ppf(0.975, 3) * 0.001 + 0.9 * FINITE_SIZE_BIAS / n
    beyond = 0.30 + stats.t.ppf(0.975, 3) * 0.001 + 1.1 * FINITE_SIZE_BIAS / n
    assert judge([inside, beyond], [0.001, 0.001], 4, [0.3, 0.3], n=n)[1] == ("finite-size gap", "disagrees")


def test_slow_regimes_are_named():
    gram = Geometry(mu_norm=2.0).gram()
    regimes = slow_regimes([0.01, 1.0], c=0.5, p=512, a1=0.0, nu=1.0, gram=gram)
    assert regimes["attention"][0] == ("a_1 = 0 with a signal or weights", "strong low-rank part theta'^2/p = 0.031"
                                       ) or "a_1 = 0 with a signal or weights" in regimes["attention"][0]
    assert any(r.startswith("small ridge") for r in regimes["attention"][0])
    assert not any(r.startswith("small ridge") for r in regimes["attention"][1])
    assert regimes["linear"][1] == ()
    tanh = slow_regimes([1.0], c=1.0, p=1024, a1=0.6, nu=0.39, gram=Geometry(mu_norm=1.0).gram())
    assert tanh == {"attention": ((),), "linear": ((),)}
    assert slow_regimes([1.0], c=1.0, p=1024, a1=1.0, nu=2.0, gram=np.zeros((3, 3)),
                        temperature=0.5)["attention"] == (("softmax at tau = 0.5 < 1",),)


def test_the_converge_command_is_one_the_cli_reads():
    from symrmt.cli.parser import build_parser

    command = converge_command(c=0.5, gamma=[0.01, 0.1], n=1024, f="(x**3 - 3*x)/sqrt(6)",
                               geometry=Geometry(mu_norm=2.0))
    argv = command.split(" ", 2)[2]
    import shlex

    args = build_parser().parse_args(["converge", *shlex.split(argv)])
    assert args.f == "(x**3 - 3*x)/sqrt(6)" and args.mu_norm == 2.0 and list(args.ns) == [512, 1024, 2048, 4096]
    softmax = converge_command(c=1.0, gamma=[1.0], n=256, temperature=0.5, normalize="queries")
    assert "--attention softmax --temperature 0.5 --normalize queries" in softmax


@pytest.fixture(scope="module")
def tanh_run():
    """tanh with a signal at c = 1, n = 1024, 4 seeds: a fast regime (docs/validation.md)."""
    return simulate("tanh(x)", 1024, 1.0, [0.1, 1.0, 10.0], Geometry(mu_norm=1.0), seeds=4, theory=True,
                    progress=False)


def test_a_correct_theory_at_large_n_agrees(tanh_run):
    agreement = tanh_run.agreement
    assert agreement.overall == "agrees" and agreement.command is None
    assert agreement.attention.verdicts == ("agrees",) * 3
    block = tanh_run.as_dict()["agreement"]
    assert json.loads(json.dumps(block))["overall"] == "agrees" and len(block["attention"]["z"]) == 3


def test_a_planted_theory_error_is_called_disagrees(tanh_run):
    """The theory of f with its linear part dropped (He_3-like: the signal unused) against tanh's simulation."""
    from symrmt import attention_error, linear_error

    wrong = attention_error((0.0, 0.394), 1.0, tanh_run.gamma, Geometry(mu_norm=1.0))
    right_linear = linear_error(1.0, tanh_run.gamma, Geometry(mu_norm=1.0))
    agreement = agreement_of(tanh_run, wrong, right_linear, a1=0.6057, nu=0.394, f="tanh(x)")
    assert agreement.overall == "disagrees" and "disagree" in agreement.summary
    assert agreement.attention.verdicts == ("disagrees",) * 3 and "disagrees" not in agreement.linear.verdicts


def test_theory_must_be_a_bool():
    with pytest.raises(ParameterError, match="True or False"):
        simulate("tanh(x)", 32, 1.0, 0.1, seeds=2, theory="yes", progress=False)


def test_the_notebook_table_shows_the_verdicts(tanh_run):
    html = tanh_run._repr_html_()
    assert "<th>verdict</th>" in html and "verdict: agrees" in html


def test_softmax_comparison_uses_its_theory_and_names_its_regime():
    from symrmt.theory.softmax import softmax_error

    result = simulate(None, 64, 1.0, [1.0, 10.0], seeds=2, attention="softmax", temperature=0.5, theory=True,
                      progress=False)
    agreement = result.agreement
    assert np.allclose(agreement.attention.theory, softmax_error(1.0, [1.0, 10.0], temperature=0.5))
    assert all("softmax at tau = 0.5 < 1" in r for r in agreement.attention.regimes)


def test_theory_with_general_weights_is_refused_before_simulating():
    with pytest.raises(ParameterError, match="theory=True needs the weights as a Gram matrix"):
        simulate("tanh(x)", 32, 1.0, 0.1, seeds=2, weights=np.eye(32), theory=True, progress=False)
