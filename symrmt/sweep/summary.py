r"""``symrmt sweep --summary``: means and standard errors over seeds of a result file, and their CSV.

For :math:`s` seeds of one setting, ``n`` and γ, the Monte Carlo mean and its standard error
:math:`\mathrm{sd}_{\mathrm{ddof}=1}/\sqrt s` (:func:`symrmt.analysis.seeds.mean_se`), beside the theory.
"""
from __future__ import annotations

import csv
import math
import os
from pathlib import Path
from typing import Any, Callable

import numpy as np

from ..errors import SymrmtInputError
from ..analysis.seeds import mean_se
from ..runtime.files import write_atomically
from .spec import MONTE_CARLO, canonical
from .store import io_errors, read_records
from .tasks import finite_list

__all__ = ["SUMMARY_COLUMNS", "summarize", "default_csv_path", "write_summary_csv"]

#: The columns of a spec's summary with the default models (its theory's models are the Monte Carlo's); a spec with
#: other ``models`` has ``MODEL_theory`` of each (None for a Monte Carlo model it does not solve) after these.
SUMMARY_COLUMNS = ("f", "params", "center", "c", "d", "geometry", "n", "p", "method", "gamma", "seeds",
                   *(f"{name}_{what}" for name in MONTE_CARLO for what in ("theory", "mean", "se")))


def _mean_se(values: list[list]) -> tuple[list, list]:
    """Mean over seeds and ``std(ddof=1)/sqrt(seeds)``, as JSON lists (null where undefined: one seed)."""
    mean, se = mean_se(np.array([[np.nan if v is None else v for v in row] for row in values], dtype=float))
    return finite_list(mean), finite_list(se)


def summarize(path: str | os.PathLike) -> tuple[dict, list[dict]]:
    r"""Means and standard errors over seeds, per setting, ``n`` and γ, of a result file.

    The standard error is ``std(ddof=1) / sqrt(seeds)`` (None with one seed). The file is read
    by :func:`~symrmt.sweep.read_records`: a record written twice counts once, and a line no
    sweep wrote is refused, so every seed counted is one computed draw.

    Returns
    -------
    info, rows
        ``info``: ``spec_hash``, ``points`` (of the spec), ``finished``; ``rows``: one dict
        per setting, ``n`` and γ with the keys :data:`SUMMARY_COLUMNS` (and ``MODEL_theory`` of each further
        model of the spec's ``models``), in spec order.

    Parameters
    ----------
    path : str or path
        A result file written by :func:`run_sweep`.

    Raises
    ------
    SymrmtInputError
        A file without a sweep header, or one that :func:`read_records` refuses.

    See Also
    --------
    write_summary_csv : The rows as CSV.
    read_records : The records themselves.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from symrmt.sweep import parse_spec, run_sweep, summarize
    >>> spec = parse_spec({"f": "tanh(x)", "c": 1.0, "n": 16, "gamma": [0.1, 1.0], "seeds": 2})
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     out = pathlib.Path(folder) / "results.jsonl"
    ...     _ = run_sweep(spec, out, workers=1, progress=False)
    ...     info, rows = summarize(out)
    >>> info["points"], info["finished"], [(row["gamma"], row["seeds"]) for row in rows]   # one row per gamma
    (2, 2, [(0.1, 2), (1.0, 2)])
    >>> round(rows[1]["attention_theory"], 4), rows[1]["attention_se"] > 0    # the n = oo theory beside the mean
    (0.7427, True)
    """
    header, records = read_records(path)
    if header is None:
        raise SymrmtInputError(f"{path} holds no sweep header yet: no sweep has written to it.")
    groups: dict[str, list[dict]] = {}
    for record in records:
        group = canonical({k: record.get(k, {}) for k in ("f", "params", "center", "c", "d", "geometry", "n",
                                                          "method")})
        groups.setdefault(group, []).append(record)
    models = header["spec"].get("models", MONTE_CARLO)
    rows = [row for members in groups.values() for row in _group_rows(members, models)]
    order = _spec_order(header["spec"])
    rows.sort(key=lambda r: (order(r), sorted(r["params"].items()), r["gamma"]))
    return {"spec_hash": header["spec_hash"], "points": header["points"], "finished": len(records)}, rows


def _group_rows(members: list[dict], models: list[str]) -> list[dict]:
    first = members[0]
    theory = first["theory"]
    curves = {}                   # per Monte Carlo model: its theory (if the spec solves it), mean and standard error
    for name in MONTE_CARLO:
        curves[name] = (theory.get(name), *_mean_se([m["mc"][name] for m in members]))
    others = [name for name in models if name not in MONTE_CARLO]
    return [{"f": first["f"], "params": first.get("params", {}), "center": first["center"], "c": first["c"],
             "d": first["d"],
             "geometry": first["geometry"], "n": first["n"], "p": first["p"], "method": first["method"],
             "gamma": g, "seeds": len(members),
             **{f"{name}_{what}": None if values is None else values[i] for name, parts in curves.items()
                for what, values in zip(("theory", "mean", "se"), parts)},
             **{f"{name}_theory": theory[name][i] for name in others}}
            for i, g in enumerate(first["gamma"])]


def _spec_order(spec: dict) -> Callable[[dict], tuple]:
    """Sort key putting rows in the order of the spec's lists (f, c, d, geometry, n)."""
    index = {key: {canonical(v): i for i, v in enumerate(spec[key])} for key in ("f", "c", "d", "geometry", "n")}
    return lambda row: tuple(index[key].get(canonical(row[key]), -1) for key in ("f", "c", "d", "geometry", "n"))


def default_csv_path(path: str | os.PathLike) -> Path:
    """``results.jsonl`` -> ``results.summary.csv`` (next to the result file)."""
    path = Path(path)
    return path.with_name(path.stem + ".summary.csv")


def write_summary_csv(rows: list[dict], path: str | os.PathLike, *, replace: bool = True) -> Path:
    """Write summary rows as CSV (geometry as compact JSON; NaN and missing values as empty cells); the name written.

    Atomically (:func:`symrmt.runtime.files.write_atomically`): a failed write keeps the old file.
    ``replace=False`` (the default name, which the user did not give) keeps an existing file and writes
    ``NAME-1.csv``, ... instead.

    Parameters
    ----------
    rows : list of dict
        The rows of :func:`summarize`.
    path : str or path
        The CSV file.
    replace : bool, keyword-only
        Replace an existing file (default); False keeps it and writes ``NAME-1.csv``, ... instead.

    Returns
    -------
    pathlib.Path
        The name written.

    Raises
    ------
    SymrmtInputError
        A file that cannot be written (its folder, permissions, a full device).

    See Also
    --------
    summarize : The rows.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from symrmt.sweep import write_summary_csv
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     header = write_summary_csv([], pathlib.Path(folder) / "summary.csv").read_text().splitlines()[0]
    >>> header.split(",")[:4]                      # one row per setting, n and gamma below this header
    ['f', 'params', 'center', 'c']
    """
    path = Path(path)

    columns = tuple(rows[0]) if rows else SUMMARY_COLUMNS     # a spec's further models add their theory's columns

    def write(handle) -> None:
        writer = csv.DictWriter(handle, fieldnames=columns)
        writer.writeheader()
        for row in rows:
            writer.writerow({k: _csv_cell(k, row[k]) for k in columns})

    with io_errors(path, "write the CSV"):
        return write_atomically(path, write, replace=replace)


def _csv_cell(key: str, value: Any) -> Any:
    if key in ("geometry", "params"):
        return canonical(value)
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    return repr(value) if isinstance(value, float) else value
