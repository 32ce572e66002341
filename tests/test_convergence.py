"""The finite-size fit (symrmt.analysis.finite_size) on synthetic ladders, and converge's plumbing on tiny ones.

The fit is checked where the answer is known: noise-free power laws are recovered exactly,
and on ladders with Gaussian noise and a known limit the 95% interval covers the limit about
95% of the time (a seeded loop; the tolerance is the binomial spread of the count).
"""
from __future__ import annotations

import json

import numpy as np
import pytest

from symrmt import ParameterError, attention_error, converge, hermite
from symrmt.analysis.convergence import ladder_seeds, size_seed
from symrmt.analysis.finite_size import extrapolate

NS = np.array([256, 512, 1024, 2048, 4096])
SEEDS = ladder_seeds(NS)                       # 1536, 384, 96, 24, 6: the default ladder
SD = 0.041 * np.sqrt(256 / NS)                 # per-seed spread of E_attn measured at c = 0.25 (about n^-1/2)


def noisy_ladder(rng: np.random.Generator, truth: np.ndarray, seeds: np.ndarray = SEEDS) -> tuple[np.ndarray, np.ndarray]:
    """Means and standard errors of ``seeds`` Gaussian draws around ``truth`` at each size."""
    draws = [t + s * rng.standard_normal(m) for t, s, m in zip(truth, SD, seeds)]
    return np.array([d.mean() for d in draws]), np.array([d.std(ddof=1) / np.sqrt(d.size) for d in draws])


@pytest.mark.parametrize("alpha, model", [(1.0, "1/n"), (0.5, "1/sqrt(n)"), (0.75, "n^-alpha"), (1.5, "n^-alpha")])
def test_noise_free_power_laws_are_recovered(alpha, model):
    mean = 0.4 - 3.0 * NS**-alpha
    fit = extrapolate(NS, mean, np.full(5, 1e-7), SEEDS, replicates=200)
    assert fit.model == model and fit.exponent == pytest.approx(alpha)
    assert fit.limit == pytest.approx(0.4, abs=1e-6) and fit.amplitudes == pytest.approx((-3.0,), rel=1e-4)
    # A few replicates that fail the chi^2 test by chance fall back to three sizes and a fixed exponent.
    assert fit.lo <= 0.4 <= fit.hi and fit.hi - fit.lo < 0.01
    assert fit.correction(1024) == pytest.approx(-3.0 * 1024**-alpha, rel=1e-4)


def test_interval_covers_the_limit_about_95_percent():
    # 200 ladders with a 1/n correction several standard errors large at the small sizes. If the
    # interval had exactly 95% coverage, the count would be 190 +- 3.1 (binomial sd); the bounds
    # are about 3 sd away, so a correct method fails with probability ~0.3% (fixed seed: never).
    rng = np.random.default_rng(20261201)
    truth = 0.4 - 20.0 / NS
    hits = 0
    for _ in range(200):
        mean, se = noisy_ladder(rng, truth)
        fit = extrapolate(NS, mean, se, SEEDS, replicates=300, rng=rng)
        hits += fit.lo <= 0.4 <= fit.hi
    assert 180 <= hits <= 199, hits


def test_planted_offset_is_seen():
    # Ladders with 16 times the default seeds (limit known to about +-0.6%), judged against a limit 2%
    # off: the interval must leave it out most of the time.
    rng = np.random.default_rng(3)
    seeds = 16 * SEEDS
    fits = [extrapolate(NS, *noisy_ladder(rng, 0.4 - 20.0 / NS, seeds), seeds, replicates=300, rng=rng)
            for _ in range(20)]
    assert sum(not (fit.lo <= 1.02 * 0.4 <= fit.hi) for fit in fits) >= 15


def test_few_seeds_widen_the_interval():
    # The same means and standard errors from 3 seeds per size (Student t with 2 dof) and from 30. The
    # ratio is well below t_{0.975,2}/t_{0.975,29} = 2.1 because part of the width is the choice of model.
    mean, se = 0.4 - 20.0 / NS, 1e-5 * np.sqrt(NS / 256)
    few = extrapolate(NS, mean, se, np.full(5, 3))
    many = extrapolate(NS, mean, se, np.full(5, 30))
    assert few.hi - few.lo > 1.25 * (many.hi - many.lo)


def test_a_ladder_no_power_law_describes_gets_a_scale_factor():
    mean = 0.4 + 0.01 * np.array([1, -1, 1, -1, 1])     # a zigzag, 10 standard errors wide
    fit = extrapolate(NS, mean, np.full(5, 1e-3), SEEDS)
    assert fit.scale > 3 and fit.hi - fit.lo > 0.01


def test_two_terms_and_a_crossover():
    # 1/n + 1/n^2 is recovered exactly; a crossover no model describes (120/(n + 1500)) is fitted on a
    # window of the largest sizes, with a scale factor that widens the interval until it holds the limit.
    fit = extrapolate(NS, 0.4 - 50.0 / NS + 3000.0 / NS**2, np.full(5, 1e-7), SEEDS, replicates=200)
    assert fit.model == "1/n + 1/n^2" and fit.amplitudes == pytest.approx((-50.0, 3000.0), rel=1e-4)
    fit = extrapolate(NS, 0.4 - 120.0 / (NS + 1500), np.full(5, 1e-5), SEEDS)
    assert fit.first > NS[0] and fit.scale > 10 and fit.lo <= 0.4 <= fit.hi


def test_size_within():
    fit = extrapolate(NS, 0.4 - 40.0 / NS, np.full(5, 1e-8), SEEDS, replicates=100)
    assert fit.size_within(0.01) == pytest.approx(40.0 / 0.004, rel=1e-4)   # 1% of 0.4 = 0.004 = 40/n


@pytest.mark.parametrize("ns, mean, se, seeds, needle", [
    ([256, 512], [0.1, 0.1], [0.01, 0.01], [4, 4], "at least three"),
    ([512, 256, 1024], [0.1] * 3, [0.01] * 3, [4] * 3, "increasing"),
    (NS, [0.1] * 4 + [np.nan], [0.01] * 5, [4] * 5, "finite"),
    (NS, [0.1] * 5, [0.01] * 5, [4, 4, 4, 4, 1], "a t interval needs at least 2 seeds"),
])
def test_extrapolate_refuses(ns, mean, se, seeds, needle):
    with pytest.raises(ParameterError, match=needle):
        extrapolate(ns, mean, se, seeds)


def test_ladder_seeds_cost_about_the_same():
    assert SEEDS.tolist() == [1536, 384, 96, 24, 6]
    assert ladder_seeds([512, 1024, 2048, 4096], 10).tolist() == [640, 160, 40, 10]
    assert ladder_seeds([32, 4096]).max() == 2000                      # capped
    # By measured cost: an overhead-bound small size (0.05 s a seed at 256 against 0.2 s at 1024, not 1/16 of it)
    # gets 4 times the seeds of the largest, not 16 times.
    assert ladder_seeds([256, 512, 1024], 6, costs=[0.05, 0.08, 0.2]).tolist() == [24, 15, 6]
    with pytest.raises(ParameterError, match="one positive time per size"):
        ladder_seeds([256, 512], 6, costs=[0.1, 0.0])
    assert size_seed(0, 256) != size_seed(0, 512) != size_seed(1, 512)


def test_converge_small_ladder():
    res = converge("tanh(x)", 1.0, [0.1, 1.0], geometry=None, ns=[128, 32, 64], seeds=[2, 32, 8], progress=False)
    assert res.ns.tolist() == [32, 64, 128] and res.seeds.tolist() == [32, 8, 2]
    assert np.all(np.isnan(res.seed_seconds))                          # given, not measured
    out = json.loads(json.dumps(res.as_dict(), allow_nan=False))
    assert list(out)[:2] == ["gamma", "ns"] and out["seeds"] == [32, 8, 2]
    for name in ("attention", "linear", "gap"):
        block = out[name]
        assert list(block)[:5] == ["mean", "se", "limit", "limit_lo", "limit_hi"] and "decisions" in block
        assert np.shape(block["mean"]) == (3, 2) and len(block["limit"]) == 2
    # The gap is paired: its per-size mean is the difference of the means, draw by draw.
    assert np.allclose(res.gap.mean, res.attention.mean - res.linear.mean)
    assert np.allclose(res.gap.theory, res.attention.theory - res.linear.theory)
    # Measured allocation: the largest size keeps its seeds, the smaller ones get more, never fewer with smaller n.
    measured = converge("tanh(x)", 1.0, [0.1], ns=[32, 64, 128], seeds=2, progress=False)
    assert measured.seeds[-1] == 2 and np.all(np.diff(measured.seeds) <= 0) and np.all(measured.seed_seconds > 0)
    # Size n is simulate(seed=size_seed(seed, n)): the draws can be replayed one size at a time.
    assert res.simulations[0].seed == size_seed(0, 32)
    assert res.to_csv().splitlines()[0].startswith("quantity,gamma,limit,lo,hi,exponent")
    assert len(res.to_csv().splitlines()) == 1 + 3 * 2 and "<table>" in res._repr_html_()


@pytest.mark.parametrize("kwargs, needle", [
    ({"ns": [64, 128]}, "at least three"),
    ({"ns": [64, 64, 128]}, "distinct"),
    ({"ns": [64.0, 128.0, 256.0]}, "integer"),
    ({"seeds": 1}, "seeds"),
    ({"seeds": [4, 4]}, "one integer in 2..100000 per size"),
    ({"seeds": [4, 4, 2**70]}, "one integer in 2..100000 per size"),
    ({"seeds": 2**70}, f"seeds = {2**70}: must be an integer in 2..100000"),
    ({"seed": -1}, "seed = -1: must be an integer in 0..2\\*\\*63-1"),
    ({"target": 0.0}, "target"),
    ({"target": 1.5}, "target"),
    ({"gamma": [[0.1, 1.0]]}, "1-d"),
])
def test_converge_refuses(kwargs, needle):
    args = {"ns": [32, 64, 128], "seeds": 2, "progress": False, "gamma": 0.1, **kwargs}
    gamma = args.pop("gamma")
    with pytest.raises(ParameterError, match=needle):
        converge("tanh(x)", 1.0, gamma, **args)


def test_converge_needs_the_values_of_f_s_parameters():
    with pytest.raises(ParameterError, match=r"parameter s: give its values"):
        converge(hermite("tanh(s*x)"), 1.0, 0.1, ns=[32, 64, 128], seeds=2, progress=False)
    at_one = converge(hermite("tanh(s*x)"), 1.0, 0.1, ns=[32, 64, 128], seeds=2, progress=False,
                      params={"s": 1.0})
    assert at_one.attention.theory[0] == pytest.approx(float(attention_error("tanh(x)", 1.0, 0.1)), rel=1e-12)


def _fit_of(limit: float, half: float, theory: float):
    """A LadderFit of one gamma whose interval is limit +- half (a synthetic Extrapolation)."""
    from symrmt.analysis.convergence import LadderFit
    from symrmt.analysis.finite_size import Extrapolation

    fit = Extrapolation(limit=limit, lo=limit - half, hi=limit + half, exponent=1.0, exponent_lo=0.5, exponent_hi=1.0,
                        model="1/n", exponents=(1.0,), amplitudes=(1.0,), first=256, chi2=1.0, dof=2, scale=1.0)
    return LadderFit("attention", np.zeros((3, 1)), np.zeros((3, 1)), (fit,), np.array([theory]))


def test_a_ladder_decides_or_says_why_not():
    """Inside a narrow interval: agrees; outside: disagrees; inside one wider than the target: undecided, with the
    seeds that would reach the target if the width is statistical ((half-width/target)^2 times as many)."""
    assert _fit_of(0.30, 0.006, 0.301).decisions(0.03)[0]["decision"] == "agrees"        # +-2%
    assert _fit_of(0.30, 0.006, 0.32).decisions(0.03)[0]["decision"] == "disagrees"
    wide = _fit_of(0.30, 0.018, 0.31).decisions(0.03, seeds=[96, 24, 6], seconds=100.0)[0]   # +-6%
    assert wide["decision"] == "undecided" and wide["seeds_factor"] == pytest.approx(4.0)
    assert wide["seeds"] == [384, 96, 24] and wide["seconds"] == pytest.approx(400.0)
    assert "exceeds the target 3%" in wide["reason"] and "about 4.0 times the seeds" in wide["reason"]
    assert _fit_of(0.30, 0.018, 0.31).decisions(0.1)[0]["decision"] == "agrees"


def test_the_ladder_plot_defines_its_symbols_and_its_ticks_do_not_overlap(tmp_path):
    """Rendered: the size axis has one label per size and no two tick labels overlap; every axis label defines
    its symbols (no bare n_K); the fit lines run over the sizes they fit, through their fitted values."""
    import matplotlib

    matplotlib.use("Agg")
    from symrmt.presentation.plotting import convergence_figure

    res = converge("tanh(x)", 1.0, [0.1, 1.0], ns=[64, 128, 256, 512, 1024, 2048], seeds=[2] * 6, progress=False)
    fig = convergence_figure(res)
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    for ax in fig.axes:
        labels = [t for t in ax.get_xticklabels() if t.get_visible() and t.get_text()]
        boxes = [t.get_window_extent(renderer) for t in labels]
        assert all(not a.overlaps(b) for i, a in enumerate(boxes) for b in boxes[i + 1:]), [t.get_text() for t in labels]
        assert "n_K" not in ax.get_xlabel()
    left = fig.axes[0]
    assert [t.get_text() for t in left.get_xticklabels()] == ["64", "128", "256", "512", "1024", "2048"]
    assert r"n_{\max} = 2048" in fig.axes[1].get_xlabel()
    fit, theory = res.attention.fits[0], res.attention.theory[0]
    line = next(ln for ln in left.get_lines() if ln.get_label().startswith("fit "))       # gamma = 0.1
    x, y = line.get_data()
    assert x[0] == pytest.approx(fit.first) and x[-1] == pytest.approx(2048)
    assert np.allclose(y, fit.limit + fit.correction(x) - theory)
