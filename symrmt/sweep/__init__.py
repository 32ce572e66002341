r"""Grids of theory and Monte Carlo points, on the local cores or a Dask cluster, in resumable files.

A sweep runs every combination of the lists of a *spec* and writes one JSON line
per finished *point* to a result file. It can be killed at any moment (SIGKILL,
Ctrl-C) and started again with the same command: finished points are skipped,
none is lost or written twice.

Spec
----
A JSON or TOML file (``.toml`` is read as TOML, anything else as JSON)::

    f = ["tanh(x)", "erf(x)"]      # nonlinearities (the syntax of `symrmt hermite`)
    c = [0.5, 1.0, 2.0]            # p / n
    n = [128, 256]                 # tokens of the Monte Carlo
    gamma = "1e-2:10:20log"        # ridges, all run for every point: a list, or LO:HI:NUMlog (log grid)
    d = [0.0]                      # diagonal K_ii (optional, default [0])
    seeds = 8                      # Monte Carlo draws per setting and n
    center = false                 # optional: subtract a_0 = E f(xi) from every f
    # params = {s = [0.5, 1.0, 2.0]}  # optional: values of the parameters of f (f = ["tanh(s*x)"]), each a list
    #                                # or "LO:HI:NUM" (evenly spaced; "LO:HI:NUMlog" log-spaced); every f runs
    #                                # at every point of its own
    # method = "exact"             # optional: Monte Carlo method (symrmt.simulation.METHODS)
    # models = ["attention", "linear"]  # optional (this default): the registered models whose theory is computed
    [[geometry]]                   # optional, default one entry {} (no signal, no weights)
    mu_norm = 1.0
    wk_norm = 1.0
    wq_norm = 1.0
    cos_mu_wk = 1.0
    cos_mu_wq = 1.0
    cos_wk_wq = 1.0

A ``geometry`` entry is either a dict of the six numbers of
:class:`~symrmt.geometry.Geometry` (missing ones are 0) or a Gram matrix of
:math:`(\mu, w_K^{(1..r)}, w_Q^{(1..r)})`, a nested list of size
:math:`(1+2r) \times (1+2r)`. Everything is checked before anything runs.

An f with parameters (the names other than x) runs once per point of the product of its
parameters' lists; its points carry ``"params": {NAME: value}`` (f without parameters have
no such key, so specs without ``params`` keep their points, keys and hashes).

A *setting* is one ``(f, params, c, d, geometry)``; its theory (on the whole γ grid, one curve per model of
``models``: by default attention and linear regression, :func:`~symrmt.theory.attention_error` and
:func:`~symrmt.theory.linear_error`) does not depend on ``n`` or the seed and is computed once per run. A *point* is one
``(f, c, d, geometry, n, seed)`` with ``seed`` in ``0 .. seeds-1``: one Monte Carlo
draw (:func:`~symrmt.simulation.simulate_once`) on the whole γ grid.

Models
------
``models`` names registered models (:func:`symrmt.models.names`), kernel ridge, softmax or one of your own: each
is solved by :func:`symrmt.theory.solve_model` with those of the sweep's arguments ``f`` (its Hermite data), ``c``,
``gamma``, ``d`` and the geometry (``geometry`` or ``gram``) that its reader or solver takes
(:meth:`symrmt.models.Model.taken`: linear regression takes no f and no d), so its curve is the one
``solve_model`` gives. A model that takes no ``c`` or ``gamma``, needs an argument a sweep does not give (general
M's ``weights``, the heads' count) or has no theory is refused when the spec is read. The Monte Carlo stays the
pair of attention and linear regression; the default ``models`` is left out of the normalized spec, so that the
specs without the key keep their hashes and result files.

A model of your own must be registered in every worker as well. The local workers are *spawned* (not forked):
fresh processes that import symrmt and then your script (as ``__mp_main__``, so code under ``if __name__ ==
"__main__":`` does not run there). Register the model at the top level of your script or of a module it imports,
and start the sweep under the ``__main__`` guard::

    from symrmt import models
    MINE = models.register(models.Model(name="mine", ...))       # runs in the parent and in every worker

    if __name__ == "__main__":
        symrmt.sweep.run_sweep(symrmt.sweep.load_spec("spec.toml"), "results.jsonl")

A model registered where the workers do not run it (under the guard, in a function, a notebook or a test
fixture) passes the spec's check in the parent and is refused by the worker in one line. On Dask, every worker
must import a module that registers it (a worker preload, or the package installed on the workers).

Seeds
-----
The draw of a point depends only on the point, never on the order, the worker or
the other points of the spec::

    point = {"f": f, "center": center, "c": c, "d": d, "geometry": geometry, "n": n, "seed": k}
    # + "params": {NAME: value} for an f with parameters
    key = hashlib.sha256(json.dumps(point, sort_keys=True, separators=(",", ":")).encode()).hexdigest()
    rng = np.random.default_rng(np.random.SeedSequence(int(key, 16)))

with ``c``, ``d`` and the geometry numbers as floats, ``n`` and ``k`` as ints, and
``f`` the string of the spec (so ``"tanh(x)"`` and ``"tanh( x )"`` are different
points). γ and ``method`` are not part of it: the same draw serves every γ, and
two methods can be compared on the same draws. ``key`` is stored in the record.

Result file
-----------
JSON lines. The first line is a header ``{"symrmt_sweep": 1, "spec_hash": ..., "spec":
{...}, "points": N, "symrmt": VERSION}`` holding the normalized spec; a file written
from another spec is refused (and one started by another symrmt version gives a
warning). Each further line is one point (``a0`` is what ``center`` subtracted from
``f``; ``p = round(c n)``)::

    {"spec_hash": "…", "key": "…", "f": "tanh(x)", "center": false, "a0": 0.0, "c": 1.0, "d": 0.0,
     "geometry": {...} or [[...]], "n": 128, "p": 128, "seed": 3, "method": null,
     "gamma": [...],
     "theory": {"a1": …, "nu": …, "attention": [...], "linear": [...], "error": null},
     "mc": {"attention": [...], "linear": [...]}}

``theory`` holds one curve per model of ``models``, by its name. ``method`` is ``null`` when the spec leaves it to
the simulator's default. An entry of a theory curve is ``null`` (and ``error`` says
why) at a γ where the solver did not converge; the Monte Carlo is kept. Lines are
written in completion order, by the parent process only, each with one
``write`` followed by ``fsync``: a crash loses at most the points in flight, and a
partial last line left by a crash is dropped (truncated) on the next start.

A sweep never writes to, or truncates, a file it did not create: the whole file is
checked before anything is written, and a file without a valid header, with a line no
sweep wrote (another spec's record, a key that is not the hash of its point, missing
fields) or with two different records of one point is refused with one line, untouched.
An empty file is adopted; identical copies of a record count once, with a warning. The
rules and their reasons are in :mod:`symrmt.sweep.store`.

Sizes
-----
γ grids (``NUM`` or the list), ``seeds`` and the number of points are each at most
:data:`symrmt.validate.MAX_GRID_POINTS` (100000, the command line's bound on grids), and a
spec file at most 16 MiB; all are checked before anything is built.

Modules
-------
:mod:`~symrmt.sweep.spec` (the spec), :mod:`~symrmt.sweep.tasks` (what a worker runs),
:mod:`~symrmt.sweep.store` (the result file), :mod:`~symrmt.sweep.backends` (local
processes, Dask), :mod:`~symrmt.sweep.run` (:func:`run_sweep`) and
:mod:`~symrmt.sweep.summary` (``--summary``).
"""
from __future__ import annotations

from .run import run_sweep
from .spec import SweepSpec, load_spec, parse_spec, point_key
from .store import FORMAT, read_records
from .summary import summarize, write_summary_csv
from .tasks import compute_point

__all__ = ["SweepSpec", "load_spec", "parse_spec", "run_sweep", "compute_point", "point_key",
           "read_records", "summarize", "write_summary_csv", "FORMAT"]
