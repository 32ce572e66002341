"""Every bad input to the theory's public API is refused with a SymrmtInputError that names it.

Never a bare ValueError/TypeError/KeyError from deep inside NumPy or SymPy, never a
ConvergenceError (that is for valid input the solver cannot solve), never a NaN.
"""
import numpy as np
import pytest

import symrmt
from symrmt.errors import ConvergenceError, SymrmtInputError

TANH = (0.6057055, 0.3942945)
GOOD = dict(f=TANH, c=1.0, gamma=0.1)

BAD_ATTENTION = {
    "c nan": dict(c=np.nan), "c inf": dict(c=np.inf), "c zero": dict(c=0.0), "c negative": dict(c=-1.0),
    "c complex": dict(c=1 + 1j), "c None": dict(c=None), "c string": dict(c="one"), "c list of str": dict(c=["a"]),
    "c ragged": dict(c=[[1.0], [1.0, 2.0]]), "c complex array": dict(c=np.array([1.0 + 0.5j])),
    "gamma nan": dict(gamma=np.nan), "gamma zero": dict(gamma=0.0), "gamma negative": dict(gamma=[-0.1, 0.1]),
    "gamma inf": dict(gamma=np.inf), "gamma None": dict(gamma=None), "gamma dict": dict(gamma={"a": 1}),
    "gamma bool-like string": dict(gamma="0.1"),
    "shapes mismatch": dict(c=[1.0, 2.0], gamma=[0.1, 0.2, 0.3]),
    "d nan": dict(d=np.nan), "d complex": dict(d=0.1j), "d string": dict(d="0"),
    "f dict missing nu": dict(f={"a1": 0.5}), "f dict missing a1": dict(f={"nu": 0.5}),
    "f tuple of three": dict(f=(0.1, 0.2, 0.3)), "f nu below a1^2": dict(f=(1.0, 0.5)),
    "f nan": dict(f=(np.nan, 0.5)), "f complex": dict(f=(0.5j, 0.5)), "f None": dict(f=None),
    "f number": dict(f=3.0), "f bad formula": dict(f="tanh(x"), "f unknown name": dict(f="foo(x)"),
    "f not centered": dict(f="cosh(x)"), "f injection": dict(f="__import__('os').system('true')"),
    "gram wrong shape": dict(gram=np.eye(4)), "gram not psd": dict(gram=-np.eye(3)),
    "gram not symmetric": dict(gram=np.triu(np.ones((3, 3)))), "gram nan": dict(gram=np.full((3, 3), np.nan)),
    "gram complex": dict(gram=np.eye(3) * 1j), "gram unknown key": dict(gram={"theta": 1.0, "beta": 2.0}),
    "gram dict nan": dict(gram={"theta": np.nan}), "gram string": dict(gram="eye"),
    "geometry and gram": dict(geometry=symrmt.Geometry(), gram=np.eye(3)),
    "geometry not a Geometry": dict(geometry={"mu_norm": 1.0}),
    "params without parameters": dict(params={"s": 1.0}),
}


@pytest.mark.parametrize("name", BAD_ATTENTION)
def test_attention_error_refuses(name):
    kwargs = {**GOOD, **BAD_ATTENTION[name]}
    with pytest.raises(SymrmtInputError) as info:
        symrmt.attention_error(**kwargs)
    assert not isinstance(info.value, ConvergenceError) and str(info.value)


BAD_GEOMETRY = [dict(mu_norm=np.nan), dict(mu_norm=-1.0), dict(mu_norm=1e200), dict(wk_norm="a"),
                dict(cos_mu_wk=1.5), dict(cos_mu_wk=np.nan), dict(mu_norm=1j), dict(wk_norm=None),
                dict(mu_norm=1, wk_norm=1, wq_norm=1, cos_mu_wk=1, cos_mu_wq=-1, cos_wk_wq=1)]


@pytest.mark.parametrize("kwargs", BAD_GEOMETRY, ids=[str(k) for k in BAD_GEOMETRY])
def test_geometry_refuses(kwargs):
    with pytest.raises(SymrmtInputError):
        symrmt.Geometry(**kwargs)


BAD_LINEAR = [dict(c=np.nan), dict(gamma=-1.0), dict(c=1j), dict(gram=np.eye(2)), dict(gamma=None)]


@pytest.mark.parametrize("kwargs", BAD_LINEAR, ids=[str(k) for k in BAD_LINEAR])
def test_linear_error_refuses(kwargs):
    with pytest.raises(SymrmtInputError):
        symrmt.linear_error(**{"c": 1.0, "gamma": 0.1, **kwargs})


BAD_SPECTRAL = [dict(c=np.nan), dict(c=[1.0, 2.0]), dict(x=np.nan), dict(x=[[0.0, 1.0], [1.0, 2.0]]), dict(x="0"),
                dict(eta=-0.1), dict(eta=1j), dict(matrix="hessian"), dict(d=np.inf), dict(f=(1.0, 0.5)),
                dict(f=(np.array([0.5, 0.6]), np.array([0.5, 0.6])))]


@pytest.mark.parametrize("kwargs", BAD_SPECTRAL, ids=[str(k) for k in BAD_SPECTRAL])
def test_spectral_density_refuses(kwargs):
    with pytest.raises(SymrmtInputError):
        symrmt.spectral_density(**{"f": TANH, "c": 1.0, "x": [0.5], **kwargs})


def test_outputs_stay_in_the_documented_range_at_extreme_scales():
    # Tiny f: E close to 1 within round-off must come out clipped into [0, 1], never 1 + 1e-16.
    h = symrmt.hermite("1e-9*x")
    values = symrmt.attention_error(h, 1.0, np.geomspace(1e-3, 1e3, 30))
    assert np.all((values >= 0) & (values <= 1)) and np.all(np.isfinite(values))
