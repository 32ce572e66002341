r"""Rich display of symrmt objects: LaTeX for Hermite data, small HTML tables for results, dicts and CSV.

These are plain functions of the objects, so that the classes stay small: a class opts in
with a one-line method, e.g. ``def _repr_html_(self): return display.simulation_html(self)``.
Jupyter calls ``_repr_latex_`` / ``_repr_html_`` when an object is the value of a cell.

The LaTeX uses only ``aligned``, ``\approx``, ``\frac``-style SymPy output and ``\text``,
which KaTeX and MathJax render in strict mode; numbers are rounded to ``digits`` significant
digits.

>>> import symrmt
>>> print(hermite_latex(symrmt.hermite("x**3 - 3*x")))
$$\begin{aligned}
f(x) &= x^{3} - 3 x\\
a_0 &= 0\\
a_1 &= 0\\
a_2 &= 0\\
\nu &= 6\\
b^2 = \nu - a_1^2 &= 6
\end{aligned}$$
"""
from __future__ import annotations

import csv
import html
import io
import pathlib
from typing import Any, Sequence

import numpy as np

from .runtime.files import write_text_atomically

__all__ = ["hermite_latex", "solve_html", "simulation_html", "solve_as_dict", "simulation_as_dict",
           "to_csv", "rows_to_csv", "convergence_html", "convergence_csv"]

#: Rows shown in an HTML table before it is cut (the rest is summarized in one line).
MAX_ROWS = 20

_HERMITE_SYMBOLS = {"a0": "a_0", "a1": "a_1", "a2": "a_2", "nu": r"\nu"}


def _number(value: float, digits: int) -> str:
    """``value`` with ``digits`` significant digits, plain (no exponent) for moderate magnitudes."""
    value = float(value)
    if value == 0:
        return "0"
    if value.is_integer() and abs(value) < 10**digits:
        return str(int(value))
    text = f"{value:.{digits}g}"
    if "e" in text:
        mantissa, exponent = text.split("e")
        return rf"{mantissa} \times 10^{{{int(exponent)}}}"
    return text


def hermite_latex(h: Any, digits: int = 6) -> str:
    r"""``_repr_latex_`` text of :class:`~symrmt.HermiteCoefficients`: f, :math:`a_0, a_1, a_2, \nu, b^2`.

    Each coefficient is shown as its closed form when one is known (``h.exact``), followed
    by :math:`\approx` and the value to ``digits`` significant digits unless the closed form
    is already that number; numeric-only values carry a ``\text{(numeric)}`` tag.
    """
    import sympy as sp  # heavy: SymPy

    if h.parameters:
        return _parametric_latex(h)
    lines = [rf"f(x) &= {sp.latex(h.f)}"]
    for key, symbol in _HERMITE_SYMBOLS.items():
        value = float(getattr(h, key))
        exact = h.exact.get(key)
        number = _number(value, digits)
        if exact is not None:
            closed = sp.latex(exact)
            lines.append(rf"{symbol} &= {closed}" + ("" if closed == number else rf" \approx {number}"))
        else:
            lines.append(rf"{symbol} &\approx {number} \quad \text{{(numeric)}}")
    lines.append(rf"b^2 = \nu - a_1^2 &= {_number(h.b2, digits)}")
    return _aligned(lines)


def _parametric_latex(h: Any) -> str:
    r"""The Hermite data of an f with parameters: closed forms in them, or :math:`a_k(s)` with a note."""
    import sympy as sp  # heavy: SymPy

    names = ", ".join(sp.latex(s) for s in h.parameters)
    lines = [rf"f(x; {names}) &= {sp.latex(h.f)}"]
    for key, symbol in _HERMITE_SYMBOLS.items():
        exact = h.exact.get(key)
        value = sp.latex(exact) if exact is not None else r"\text{numeric: use .at() or .numeric()}"
        lines.append(rf"{symbol}({names}) &= {value}")
    return _aligned(lines)


def _aligned(lines: list[str]) -> str:
    body = "\\\\\n".join(lines)
    return "$$\\begin{aligned}\n" + body + "\n\\end{aligned}$$"


def _table(caption: str, header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A small, escaped HTML table; rows beyond :data:`MAX_ROWS` are summarized."""
    shown = rows[:MAX_ROWS]
    head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>" for row in shown)
    more = (f'<tr><td colspan="{len(header)}">… {len(rows) - MAX_ROWS} more rows (use as_dict or to_csv)</td></tr>'
            if len(rows) > MAX_ROWS else "")
    return (f"<table><caption>{html.escape(caption)}</caption><thead><tr>{head}</tr></thead>"
            f"<tbody>{body}{more}</tbody></table>")


def solve_as_dict(result: Any, unknowns: Sequence[str] | None = None) -> dict[str, Any]:
    r"""A :class:`~symrmt.theory.RidgeSolution` as plain lists: ``error``, ``phi``, ``residual`` and the unknowns.

    ``unknowns`` names the rows of ``result.unknowns``; by default the names the solution carries
    (the system's unknowns, e.g. ``t_11, t_12, t_22`` for attention, none for linear regression).
    """
    names = _unknown_names(result, unknowns)
    out = {"error": np.asarray(result.error).tolist(), "phi": np.asarray(result.phi).tolist(),
           "residual": np.asarray(result.residual).tolist()}
    out.update({name: np.asarray(row).tolist() for name, row in zip(names, result.unknowns)})
    return out


def _unknown_names(result: Any, unknowns: Sequence[str] | None) -> list[str]:
    names = list(result.unknown_names if unknowns is None else unknowns)
    if len(names) != len(result.unknowns):
        raise ValueError(f"{len(names)} names for {len(result.unknowns)} unknowns: {names}")
    return names


def _solve_columns(result: Any, unknowns: Sequence[str] | None, gamma: Any) -> tuple[list[str], list[np.ndarray]]:
    names = _unknown_names(result, unknowns)
    shape = np.shape(result.error)
    header, columns = [], []
    if gamma is not None:
        header.append("gamma")
        columns.append(np.broadcast_to(np.asarray(gamma, float), shape).ravel())
    header += ["E", "Phi = y^T Q y / n", *names, "residual"]
    columns += [np.ravel(result.error), np.ravel(result.phi), *(np.ravel(u) for u in result.unknowns),
                np.ravel(result.residual)]
    return header, columns


def solve_html(result: Any, gamma: Any = None, unknowns: Sequence[str] | None = None, digits: int = 6) -> str:
    """``_repr_html_`` text of a :class:`~symrmt.theory.RidgeSolution`: one row per point (flattened).

    ``gamma`` (broadcast to the result's shape) adds the ridge as the first column.
    """
    header, columns = _solve_columns(result, unknowns, gamma)
    rows = [[f"{v:.{digits}g}" for v in row] for row in zip(*columns)]
    caption = f"deterministic equivalent: {np.size(result.error)} point(s), max residual {np.max(result.residual, initial=0):.2g}"
    return _table(caption, header, rows)


def simulation_as_dict(result: Any) -> dict[str, Any]:
    """A :class:`~symrmt.SimulationResult` as a JSON-ready dict (its own ``as_dict``)."""
    return result.as_dict()


def simulation_html(result: Any, digits: int = 4) -> str:
    """``_repr_html_`` text of a :class:`~symrmt.SimulationResult`: gamma, both errors as mean ± s.e.; with the
    theory attached (``simulate(..., theory=True)``) also the theory, z = (MC - theory)/se and the verdict of each,
    and the overall verdict in the caption."""
    header = ["gamma", "E_attn (mean ± s.e.)", "E_lin (mean ± s.e.)"]
    rows = [[f"{g:.4g}", f"{a:.{digits}f} ± {sa:.{digits}f}", f"{l:.{digits}f} ± {sl:.{digits}f}"]
            for g, a, sa, l, sl in zip(result.gamma, result.attention_mean, result.attention_se,
                                        result.linear_mean, result.linear_se)]
    agreement = getattr(result, "agreement", None)
    if agreement is not None:
        header = ["gamma", "E_attn (mean ± s.e.)", "theory", "z", "verdict", "E_lin (mean ± s.e.)", "theory", "z",
                  "verdict"]
        rows = [[row[0], row[1], *_judged(agreement.attention, i, digits), row[2], *_judged(agreement.linear, i, digits)]
                for i, row in enumerate(rows)]
    geometry = (", ".join(f"{k} = {v:g}" for k, v in result.geometry.as_dict().items() if v)
                if getattr(result, "geometry", None) is not None else
                f"Gram matrix {np.asarray(result.gram).shape[0]} x {np.asarray(result.gram).shape[0]}")
    weights = getattr(result, "weights", None)
    if weights:
        geometry = (f"{geometry or 'no signal'}; weights: {weights['form']} {weights['p']} x {weights['p']}, "
                    f"||M||_F = {weights['frobenius_norm']:.4g}")
    softmax = getattr(result, "softmax", None)
    if softmax:
        geometry = f"{geometry or 'no signal'}; softmax attention, temperature {softmax['temperature']:g}"
    caption = (f"Monte Carlo: n = {result.n}, p = {result.p}, c = {result.c:g}, d = {result.d:g}, "
               f"{result.seeds} seeds (root seed {result.seed}); geometry: {geometry or 'none'}")
    if agreement is not None:
        caption += " | " + " ".join(agreement.lines())
    return _table(caption, header, rows)


def _judged(quantity: Any, i: int, digits: int) -> list[str]:
    """The theory, z and the verdict of point ``i`` of a :class:`~symrmt.analysis.agreement.QuantityAgreement`."""
    theory, z = quantity.theory[i], quantity.z[i]
    return [f"{theory:.{digits}f}" if np.isfinite(theory) else "-", f"{z:+.1f}" if np.isfinite(z) else "-",
            quantity.verdicts[i]]


def rows_to_csv(header: Sequence[str], rows: Sequence[Sequence[Any]], path: str | pathlib.Path | None = None) -> str:
    """Write a header and rows as CSV to ``path`` (if given) and return the CSV text."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header)
    writer.writerows([[repr(float(v)) if isinstance(v, (float, np.floating)) else v for v in row] for row in rows])
    text = buffer.getvalue()
    if path is not None:
        write_text_atomically(path, text)          # a failed write keeps the old file
    return text


def to_csv(result: Any, path: str | pathlib.Path | None = None, gamma: Any = None) -> str:
    """CSV of a solver or simulation result (one row per point, a header row); written to ``path`` if given.

    - :class:`~symrmt.SimulationResult`: ``gamma, attention_mean, attention_se, linear_mean, linear_se``,
      then ``n, p, c, d, seeds, seed``, the geometry and, with ``weights=``, ``weights_form``,
      ``weights_p``, ``weights_frobenius_norm`` (``weights_rank``, ``weights_shift``) and, for softmax
      attention, ``softmax_temperature``, ``softmax_mask_diagonal``, ``softmax_normalize``, ``softmax_scale`` (constant columns,
      so each row is self-contained).
    - :class:`~symrmt.theory.RidgeSolution`: ``[gamma,] E, Phi,`` the unknowns (``t_11, t_12, t_22`` for
      attention), ``residual``.
    """
    if hasattr(result, "attention_mean"):
        if getattr(result, "geometry", None) is not None:
            geometry = result.geometry.as_dict()
        else:                                    # rank r > 1: the upper triangle of the Gram matrix
            G = np.asarray(result.gram)
            geometry = {f"gram_{i}{j}": float(G[i, j]) for i in range(len(G)) for j in range(i, len(G))}
        weights = {f"weights_{k}": v for k, v in (getattr(result, "weights", None) or {}).items()}
        softmax = {f"softmax_{k}": v for k, v in (getattr(result, "softmax", None) or {}).items()}
        geometry = {**geometry, **weights, **softmax}
        header = ["gamma", "attention_mean", "attention_se", "linear_mean", "linear_se",
                  "n", "p", "c", "d", "seeds", "seed", *geometry]
        constant = [result.n, result.p, result.c, result.d, result.seeds, result.seed, *geometry.values()]
        rows = [[*values, *constant] for values in zip(result.gamma, result.attention_mean, result.attention_se,
                                                       result.linear_mean, result.linear_se)]
        return rows_to_csv(header, rows, path)
    header, columns = _solve_columns(result, None, gamma)
    header = [h if not h.startswith("Phi") else "Phi" for h in header]
    return rows_to_csv(header, list(zip(*columns)), path)


#: Columns of :func:`convergence_csv` after ``quantity`` and ``gamma``: attributes of an Extrapolation.
_FIT_COLUMNS = ("limit", "lo", "hi", "exponent", "exponent_lo", "exponent_hi", "model", "exponents", "amplitudes",
                "first", "chi2", "dof", "scale")


def convergence_csv(result: Any, path: str | pathlib.Path | None = None) -> str:
    """CSV of a :class:`~symrmt.Convergence`: one row per quantity and gamma (the fit, the theory,
    whether it agrees, then the mean and standard error at each size)."""
    sizes = [int(n) for n in result.ns]
    header = ["quantity", "gamma", *_FIT_COLUMNS, "theory", "agrees",
              *(f"mean_{n}" for n in sizes), *(f"se_{n}" for n in sizes), *(f"seeds_{n}" for n in sizes)]
    rows = []
    for quantity in result.quantities:
        for g, fit in enumerate(quantity.fits):
            rows.append([quantity.name, result.gamma[g], *(_cell(getattr(fit, key)) for key in _FIT_COLUMNS),
                         quantity.theory[g], bool(quantity.agrees[g]), *quantity.mean[:, g], *quantity.se[:, g],
                         *(int(s) for s in result.seeds)])
    return rows_to_csv(header, rows, path)


def _cell(value: Any) -> Any:
    """A CSV cell: a tuple (the terms of a fitted correction) becomes its numbers joined by ';'."""
    return ";".join(repr(float(v)) for v in value) if isinstance(value, tuple) else value


def convergence_html(result: Any, digits: int = 4) -> str:
    """``_repr_html_`` text of a :class:`~symrmt.Convergence`: per quantity and gamma, the limit with its
    95% interval, the exponent, the theory and whether it lies inside, and the mean at the largest size."""
    header = ["quantity", "gamma", f"n = {int(result.ns[-1])} (mean ± s.e.)", "limit [95% interval]",
              "exponent", "theory", "inside"]
    rows = []
    for quantity in result.quantities:
        for g, fit in enumerate(quantity.fits):
            rows.append([quantity.name, f"{result.gamma[g]:.4g}",
                         f"{quantity.mean[-1, g]:.{digits}f} ± {quantity.se[-1, g]:.{digits}f}",
                         f"{fit.limit:.{digits}f} [{fit.lo:.{digits}f}, {fit.hi:.{digits}f}]",
                         f"{fit.exponent:.3g} ({fit.model})", f"{quantity.theory[g]:.{digits}f}",
                         "yes" if quantity.agrees[g] else "no"])
    ladder = ", ".join(f"{int(n)} ({int(s)})" for n, s in zip(result.ns, result.seeds))
    caption = (f"Finite size: f = {result.f}, c = {result.c:g}, d = {result.d:g}; n (seeds): {ladder}; "
               f"E(n) = E_inf + b n^-alpha extrapolated to n = inf")
    return _table(caption, header, rows)
