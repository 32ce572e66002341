"""symrmt.nonlinearity.zoo: every named f is centered and parses."""
from __future__ import annotations

from symrmt.nonlinearity import ZOO, hermite


def test_zoo_is_centered_and_parses():
    for name, f in ZOO.items():
        h = hermite(f, method="numeric")
        assert abs(h.a0) <= 1e-12 and h.nu > 0, name
    assert ZOO["hermite3"] == "x**3 - 3*x" and "relu" in ZOO and "gelu" in ZOO
