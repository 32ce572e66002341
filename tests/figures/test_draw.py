"""Drawing: legends off the data, maps centred at 0 with a labelled colour bar, bars from the t quantile."""
import matplotlib
import numpy as np
import pytest
from scipy import stats

from symrmt.figures import Curve, Figure, Panel, draw
from symrmt.figures.figure import finite_size_note

matplotlib.use("Agg")


@pytest.fixture
def drawn(monkeypatch):
    """Draw a figure and keep the matplotlib Figure that :func:`draw` would close."""
    import matplotlib.pyplot as plt

    kept = []
    monkeypatch.setattr(plt, "close", kept.append)

    def run(figure, path):
        draw(figure, path)
        return kept[-1]

    return run


def _lines_panel(seeds=3):
    x = np.linspace(0.0, 1.0, 5)
    theory = Curve("theory", "theory", "E", "x", {"x": x}, x**2)
    mc = Curve(None, "monte_carlo", "E", "x", {"x": x, "n": 64, "seeds": seeds, "theory": x**2}, x**2 + 0.01, se=0.01,
               series="theory")
    return Panel("a", "(a)", [theory, mc], "x", "E")


def _map_panel():
    x = np.linspace(0.0, 1.0, 8)[None, :]
    y = np.linspace(0.0, 1.0, 6)[:, None]
    z = 0.3 * x - 0.01 + 0 * y          # mostly positive: the negative corner is small in size and value
    return Panel("b", "(b)", [Curve(None, "theory", "gap", "x", {"x": x, "y": y}, z, series="map")], "x", "y",
                 heatmap=("x", "y"), colorbar="gap (blue: attention wins)")


def test_legends_are_drawn_outside_every_data_axes(drawn, tmp_path):
    fig = drawn(Figure("t", "title", "caption", [_lines_panel(), _map_panel()]), tmp_path / "t.png")
    data_axes = [ax for ax in fig.axes if ax.get_visible() and ax.axison and ax.get_label() != "<colorbar>"]
    assert len(data_axes) == 2 and all(ax.get_legend() is None for ax in data_axes)
    legends = [ax.get_legend() for ax in fig.axes if ax.get_legend() is not None]
    assert legends, "the legend entries went missing"
    renderer = fig.canvas.get_renderer()
    for legend in legends:
        box = legend.get_window_extent(renderer)
        for ax in data_axes:
            assert not box.overlaps(ax.get_window_extent(renderer)), "a legend covers a panel"


def test_maps_are_centred_at_zero_with_a_labelled_colour_bar(drawn, tmp_path):
    from matplotlib.collections import QuadMesh

    fig = drawn(Figure("t", "title", "caption", [_map_panel()]), tmp_path / "t.png")
    mesh = next(c for ax in fig.axes for c in ax.collections if isinstance(c, QuadMesh))
    assert mesh.norm.vmin == pytest.approx(-mesh.norm.vmax) and mesh.norm.vmax == pytest.approx(0.29)
    bar = next(ax for ax in fig.axes if ax.get_label() == "<colorbar>")
    assert "attention wins" in bar.get_ylabel()


def test_error_bars_are_the_t_interval(drawn, tmp_path):
    fig = drawn(Figure("t", "title", "caption", [_lines_panel(seeds=3)]), tmp_path / "t.png")
    ax = fig.axes[0]
    bars = [c for c in ax.collections if c.get_segments()]
    lengths = {round(float(np.ptp(seg[:, 1])), 10) for c in bars for seg in c.get_segments()}
    assert lengths == {round(2 * stats.t.ppf(0.975, 2) * 0.01, 10)}      # 4.30 se each side, not 2 se


@pytest.mark.parametrize("suffix, magic", [("png", b"\x89PNG"), ("pdf", b"%PDF"), ("svg", b"<?xm")])
def test_every_image_format_is_written(tmp_path, suffix, magic):
    path = draw(Figure("t", "title", "caption", [_lines_panel()]), tmp_path / f"t.{suffix}")
    assert path.read_bytes()[:4] == magic


def test_the_finite_size_note_counts_points_whose_interval_misses_the_theory():
    panel = _lines_panel(seeds=3)
    note = finite_size_note(Figure("t", "title", "caption", [panel]))
    assert note.startswith("All 5 Monte Carlo points")           # 0.01 off, half-width 0.043: inside
    panel.curves[1].value = panel.curves[1].value + 0.05           # planted: now 0.06 off
    note = finite_size_note(Figure("t", "title", "caption", [panel]))
    assert note.startswith("5 of 5 Monte Carlo points miss") and "+0.060" in note and "noise alone would give about" in note
