r"""LaTeX export of a derived system: exactly the objects the solver evaluates.

:func:`system_latex` prints the Dyson matrix :math:`M(\lambda)`, the
fixed-point equations, the spectral averages, the Woodbury matrices and the
error formula of a :class:`~.system.Derivation`, optionally with the Hermite
data of a given nonlinearity (or any other substitution) put in exactly.
"""
from __future__ import annotations

import sympy as sp

from . import symbols as S
from .system import Derivation

__all__ = ["system_latex", "hermite_substitution"]


def hermite_substitution(a1: sp.Expr, nu: sp.Expr) -> dict:
    r"""``{a_1: a1, b: sqrt(nu - a1^2)}`` with exact arithmetic when the inputs are exact."""
    a1, nu = sp.sympify(a1), sp.sympify(nu)
    return {S.a1: a1, S.b: sp.sqrt(sp.simplify(nu - a1**2))}


def _names(expr) -> dict:
    """LaTeX names for the solver's symbols: tauA_12 -> \\tau^{A}_{12}, t_12 -> t_{12}."""
    out = {}
    for s in sp.sympify(expr).free_symbols:
        if s.name.startswith("tauA_"):
            out[s] = r"\tau^{A}_{" + s.name[5:] + "}"
        elif s.name.startswith("tau_"):
            out[s] = r"\tau_{" + s.name[4:] + "}"
    return out


def _tex(expr) -> str:
    return sp.latex(expr, symbol_names=_names(expr))


def _matrix(m: sp.Matrix) -> str:
    return sp.latex(m, mat_delim="", mat_str="pmatrix", symbol_names=_names(m))


def system_latex(derivation: Derivation, substitution: dict | None = None) -> str:
    r"""The derived system as a LaTeX ``align*`` block (a string).

    Parameters
    ----------
    derivation : Derivation
        From :func:`~.system.derive_attention` or :func:`~.system.derive_linear`.
    substitution : dict, optional
        Symbols to replace (e.g. :func:`hermite_substitution` of a given f, or a special case).
    """
    d = derivation.subs(substitution) if substitution else derivation
    lines = [r"\begin{align*}"]
    lines.append(r"M(\lambda) &= " + _matrix(d.dyson) + r", \qquad R(\lambda) = M(\lambda)^{-1},\\")
    for t, rhs in d.fixed_point.items():
        lines.append(_tex(t) + " &= " + _tex(rhs) + r",\\")
    averages = ", ".join(
        _tex(tau) + r" = \mathbb{E}_\lambda[" + (r"\lambda " if tau.name.startswith("tauA") else "")
        + "R_{" + tau.name[-2:] + r"}(\lambda)]"
        for tau in d.taus
    )
    lines.append(r"&" + averages + r",\\")
    lines.append(r"&\lambda \sim \text{Marchenko--Pastur}(1/c)\ \text{(atom } (1-c)_+ \text{ at } 0),\\")
    w = d.woodbury
    if w.vectors:
        placed = ", ".join(f"{name}^{{({block})}}" for name, block in w.vectors)
        lines.append(r"&\mathcal{U} = [" + placed + r"]\quad (v^{(a)}: \text{vector } v \text{ in pencil block } a),\\")
        lines.append(r"\mathsf{G} &= " + _matrix(w.gram) + r",\\")
        lines.append(r"\mathsf{C} &= " + _matrix(w.core) + r",\\")
        lines.append(r"g &= " + _matrix(w.source) + r",\\")
        lines.append(r"\Phi(\gamma) &= \tau_{11} - g^\top \mathsf{C}\,(I + \mathsf{G}\mathsf{C})^{-1} g,\\")
    else:
        lines.append(r"\Phi(\gamma) &= \tau_{11},\\")
    name = r"E_\mathrm{attn}" if d.name == "attention" else r"E_\mathrm{lin}"
    lines.append(name + r"(\gamma) &= -\gamma^2\,\frac{\mathrm{d}\Phi}{\mathrm{d}\gamma}.")
    lines.append(r"\end{align*}")
    return "\n".join(lines)
