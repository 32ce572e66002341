"""Small sweep specs shared by tests/sweep: sizes stay tiny (n <= 128, a few gamma), for bookkeeping, not physics."""
from __future__ import annotations

ALIGNED = {"mu_norm": 1.0, "wk_norm": 1.0, "wq_norm": 1.0, "cos_mu_wk": 1.0, "cos_mu_wq": 1.0, "cos_wk_wq": 1.0}
#: A rank-one Gram matrix of (mu, w_K, w_Q), given as a matrix (the 3x3 Gram path).
GRAM = [[1.0, 0.5, 0.2], [0.5, 1.0, 0.1], [0.2, 0.1, 0.8]]

SPEC = {"f": ["tanh(x)"], "c": [0.5, 1.0], "n": [24, 32], "gamma": [0.05, 0.5, 5.0], "seeds": 2,
        "geometry": [ALIGNED, GRAM]}

SPEC_TOML = """\
f = ["tanh(x)"]
c = [0.5, 1]          # an int here and a float in SPEC: the same normalized spec
n = [24, 32]
gamma = [0.05, 0.5, 5.0]
seeds = 2
geometry = [
  {mu_norm = 1.0, wk_norm = 1.0, wq_norm = 1.0, cos_mu_wk = 1.0, cos_mu_wq = 1.0, cos_wk_wq = 1.0},
  [[1.0, 0.5, 0.2], [0.5, 1.0, 0.1], [0.2, 0.1, 0.8]],
]
"""


def by_key(records):
    return {r["key"]: r for r in records}
