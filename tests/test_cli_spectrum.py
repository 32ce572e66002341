"""``symrmt spectrum``, ``--gram`` and ``simulate --spectrum --plot`` on the command line."""
import json

import numpy as np

from symrmt.cli import main
from symrmt.density import spectral_density


def run_json(capsys, *argv):
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_spectrum_json_contract(capsys):
    out = run_json(capsys, "spectrum", "--f", "tanh(x)", "--c", "0.5", "--x=0.5:2:4")
    assert set(out) == {"x", "density", "eta", "matrix", "atom"}
    assert out["matrix"] == "gram" and out["eta"] == 0.0 and out["atom"] == 0.5
    assert np.allclose(out["density"], spectral_density("tanh(x)", 0.5, out["x"]).density)
    kernel = run_json(capsys, "spectrum", "--f", "tanh(x)", "--c", "2", "--x", "0,0.5", "--eta", "0.1", "--matrix", "kernel")
    assert kernel["matrix"] == "kernel" and all(v > 0 for v in kernel["density"])


def test_spectrum_refuses_asymmetric_kernel_and_bad_grids(capsys):
    assert main(["spectrum", "--f", "tanh(x)", "--c", "1", "--x", "0", "--matrix", "kernel",
                 "--wk-norm", "1", "--wq-norm", "1", "--cos-wk-wq", "0.2"]) == 2
    assert main(["spectrum", "--f", "tanh(x)", "--c", "1", "--x", "0,,1"]) == 2
    assert main(["spectrum", "--f", "tanh(x)", "--c", "1", "--x", "0:1:0"]) == 2


def test_gram_flag_equals_the_six_geometry_flags(capsys):
    flags = ["--mu-norm", "1.2", "--wk-norm", "0.8", "--wq-norm", "1.1", "--cos-mu-wk", "0.3",
             "--cos-mu-wq", "-0.5", "--cos-wk-wq", "0.2"]
    from symrmt.geometry import Geometry

    G = Geometry(1.2, 0.8, 1.1, 0.3, -0.5, 0.2).gram().tolist()
    common = ["theory", "--f", "tanh(x)", "--c", "1.3", "--gamma", "0.05,0.5,5"]
    by_flags = run_json(capsys, *common, *flags)
    by_gram = run_json(capsys, *common, "--gram", json.dumps(G))
    assert np.allclose(by_flags["attention"], by_gram["attention"], rtol=0, atol=1e-10)
    assert main([*common, "--gram", json.dumps(G), "--mu-norm", "1"]) == 2
    assert main([*common, "--gram", "[[1, 2], [2, 1]]"]) == 2
    assert main([*common, "--gram", "__import__('os')"]) == 2


def test_simulate_spectrum_plot(capsys, tmp_path):
    path = tmp_path / "spectrum.png"
    out = run_json(capsys, "simulate", "--f", "tanh(x)", "--c", "2", "--gamma", "0.1", "--n", "100", "--seeds", "2",
                   "--spectrum", "--matrix", "kernel", "--plot", str(path), "--quiet")
    assert len(out["eigenvalues"]) == 200 and path.stat().st_size > 10_000 and out["plot"] == str(path)
    assert main(["simulate", "--f", "tanh(x)", "--c", "2", "--gamma", "0.1", "--n", "40", "--plot", str(path)]) == 2
