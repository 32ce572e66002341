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


#: One setting, three points: what the store's tests resume, damage and summarize.
TINY = {"f": "tanh(x)", "c": 1.0, "n": 16, "gamma": [0.1, 1.0], "seeds": 3}


class SerialBackend:
    """Runs each task in this process as it is submitted, memoized by payload: a resume costs no process spawn.

    Same interface as the local back end (``submit``, ``as_completed``, ``close``); installed by
    :func:`serial_backend`. The numbers are the tasks' own, computed once per payload per test session.
    """

    results: dict = {}

    def __init__(self, workers: int):
        pass

    def submit(self, fn, payload: dict, name: str):
        from concurrent.futures import Future

        from symrmt.sweep.spec import canonical

        key = (fn.__name__, canonical(payload))
        if key not in self.results:
            self.results[key] = fn(payload)
        future = Future()
        future.set_result(self.results[key])
        return future

    def as_completed(self, futures):
        return iter(futures)

    def close(self, abort: bool) -> None:
        pass


def serial_backend():
    """A context in which local sweeps run their tasks in this process (:class:`SerialBackend`)."""
    from unittest import mock

    import symrmt.sweep.run

    return mock.patch.object(symrmt.sweep.run, "LocalBackend", SerialBackend)
