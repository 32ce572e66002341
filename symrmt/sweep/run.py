"""Running a sweep: the points not yet in the result file, on a back end, each record appended as it completes."""
from __future__ import annotations

import contextlib
import os
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Iterator

from ..runtime.cpus import usable_cpus
from ..errors import ParameterError, SymrmtInputError
from ..runtime.progress import progress_bar
from .backends import DaskBackend, LocalBackend, single_threaded_workers
from .spec import SweepSpec, canonical, point_key, setting_key
from .store import ResultFile
from .tasks import make_record, monte_carlo_payload, monte_carlo_task, theory_payload, theory_task

__all__ = ["run_sweep"]


def run_sweep(spec: SweepSpec, out: str | os.PathLike, workers: int | None = None, scheduler: str | None = None,
              progress: bool = True) -> dict:
    """Run every point of ``spec`` not yet in ``out``, appending one JSON line per finished point.

    Parameters
    ----------
    spec : SweepSpec
        From :func:`~symrmt.sweep.load_spec` or :func:`~symrmt.sweep.parse_spec`.
    out : path
        The result file (created if missing; must come from the same spec if it exists).
    workers : int, optional
        Local worker processes (default: the usable CPUs, at most one per task).
    scheduler : str, optional
        Address of a Dask distributed scheduler (``tcp://HOST:PORT``) to run on instead.
    progress : bool
        A tqdm bar on stderr (only when stderr is a terminal and the run takes over 2 s).

    Returns
    -------
    dict
        ``out``, ``spec_hash``, ``points`` (of the spec), ``computed`` (this run),
        ``skipped`` (already in the file) and ``dropped_bytes`` (of a partial last line).

    Raises
    ------
    SymrmtInputError
        ``out`` cannot be opened or written, or is not a result file of ``spec`` (see
        :mod:`symrmt.sweep.store`: it is then left untouched), or a worker refused its input.
    KeyboardInterrupt
        After Ctrl-C, once the workers are stopped and the file is closed; rerunning resumes.

    See Also
    --------
    parse_spec, load_spec : The spec.
    summarize : Means and standard errors of the result file.

    Examples
    --------
    Two points (two seeds of one setting) on one worker process; the second run finds both in the file:

    >>> import pathlib, tempfile
    >>> from symrmt.sweep import parse_spec, run_sweep
    >>> spec = parse_spec({"f": "tanh(x)", "c": 1.0, "n": 16, "gamma": [0.1, 1.0], "seeds": 2})
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     first = run_sweep(spec, pathlib.Path(folder) / "results.jsonl", workers=1, progress=False)
    ...     again = run_sweep(spec, pathlib.Path(folder) / "results.jsonl", workers=1, progress=False)
    >>> first["points"], first["computed"], again["computed"], again["skipped"]
    (2, 2, 0, 2)
    """
    if workers is not None and scheduler is not None:
        raise ParameterError("--workers is for the local run; with --scheduler the cluster's workers are used.")
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int) or workers < 1):
        raise ParameterError(f"--workers {workers!r}: must be an integer >= 1.")
    points = spec.points()
    results = ResultFile(Path(out), spec)
    try:
        todo = [p for p in points if point_key(p) not in results.done]
        _run(spec, results, todo, workers, scheduler, progress)
    finally:
        results.close()
    return {"out": str(out), "spec_hash": spec.hash, "points": len(points), "computed": len(todo),
            "skipped": len(points) - len(todo), "dropped_bytes": results.dropped}


def _run(spec: SweepSpec, results: ResultFile, todo: list[dict], workers: int | None, scheduler: str | None,
         progress: bool) -> None:
    if not todo:
        return
    total = len(spec.points())
    if scheduler is None:
        workers = min(workers or usable_cpus(), len(todo))
    with contextlib.ExitStack() as stack:
        if scheduler is None:
            stack.enter_context(single_threaded_workers())
        backend = DaskBackend(scheduler) if scheduler is not None else LocalBackend(workers)
        bar = stack.enter_context(progress_bar(desc="sweep", unit="point", total=total, initial=total - len(todo),
                                               enabled=progress))
        aborted = True
        try:
            for record in _records(backend, spec, todo):
                results.append(record)
                bar.update()
            aborted = False
        finally:
            backend.close(abort=aborted)


def _records(backend, spec: SweepSpec, todo: list[dict]) -> Iterator[dict]:
    """Records of ``todo`` in completion order: one theory task per setting, one Monte Carlo task per point."""
    tags, settings = {}, {}
    for point in todo:
        settings.setdefault(setting_key(point), point)
    for key, point in settings.items():  # submitted first: a pool runs tasks in submission order
        tags[backend.submit(theory_task, theory_payload(spec, point), f"{spec.hash}-theory-{key[:20]}")] = \
            ("theory", key)
    for point in todo:
        payload = monte_carlo_payload(spec, point)
        tags[backend.submit(monte_carlo_task, payload, f"{spec.hash}-mc-{payload['key'][:20]}")] = ("mc", point)
    theory, waiting = {}, {}  # setting key -> theory; setting key -> [(point, mc)] waiting for it
    for future in backend.as_completed(list(tags)):
        kind, item = tags.pop(future)
        result = _result(future, kind, item if kind == "mc" else settings[item])
        if kind == "theory":
            theory[item] = result
            for point, mc in waiting.pop(item, []):
                yield make_record(spec, point, result, mc)
        elif setting_key(item) in theory:
            yield make_record(spec, item, theory[setting_key(item)], result)
        else:
            waiting.setdefault(setting_key(item), []).append((item, result))


def _result(future, kind: str, point: dict):
    try:
        return future.result()
    except BrokenProcessPool:
        raise RuntimeError("a sweep worker process died (out of memory, or killed); the finished points are in "
                           "the file: run the same command again to resume.") from None
    except SymrmtInputError as exc:
        where = {k: point[k] for k in ("f", "c", "d", "geometry")} | ({"params": point["params"]} if point.get(
            "params") else {}) | ({"n": point["n"]} if kind == "mc" else {})
        raise type(exc)(f"{kind} of {canonical(where)}: {exc}") from None
