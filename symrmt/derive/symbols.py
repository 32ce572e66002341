r"""The symbols every derived expression is written in.

========================  =====================================================
symbol                    meaning
========================  =====================================================
``c``                     :math:`c = p/n`
``gamma``                 ridge parameter :math:`\gamma > 0`
``a_1``, ``b``            :math:`a_1 = \mathbb E[\xi f(\xi)]`, :math:`b = \sqrt{\nu - a_1^2}`
``d``                     diagonal of the attention matrix, :math:`K_{ii} = d`
``theta``                 :math:`\theta = \|\mu\|^2`
``alpha_K``, ``alpha_Q``  :math:`\mu^\top w_K`, :math:`\mu^\top w_Q`
``omega_KK`` ...          :math:`\|w_K\|^2`, :math:`\|w_Q\|^2`, :math:`w_K^\top w_Q`
``lambda``                an eigenvalue of :math:`A = Z^\top Z / p`
========================  =====================================================

With rank-:math:`r` weights :math:`W_K^\top W_Q = I + \sum_k w_K^{(k)} w_Q^{(k)\top}`
(:math:`r > 1`) the Gram entries carry indices: ``alpha_K_i`` :math:`= \mu^\top w_K^{(i)}`,
``omega_KK_ij`` :math:`= w_K^{(i)\top} w_K^{(j)}` (:math:`i \le j`),
``omega_QQ_ij`` likewise, and ``omega_KQ_ij`` :math:`= w_K^{(i)\top} w_Q^{(j)}` (all
:math:`i, j`). Rank 1 keeps the unindexed names above.
"""
from __future__ import annotations

import math
from functools import lru_cache

import sympy as sp

from ..validate import DOMAINS

c = sp.Symbol("c", positive=True)
gamma = sp.Symbol("gamma", positive=True)
a1 = sp.Symbol("a_1", real=True)
b = sp.Symbol("b", nonnegative=True)
d = sp.Symbol("d", real=True)
nu = sp.Symbol("nu", nonnegative=True)
theta = sp.Symbol("theta", nonnegative=True)
alpha_K = sp.Symbol("alpha_K", real=True)
alpha_Q = sp.Symbol("alpha_Q", real=True)
omega_KK = sp.Symbol("omega_KK", nonnegative=True)
omega_QQ = sp.Symbol("omega_QQ", nonnegative=True)
omega_KQ = sp.Symbol("omega_KQ", real=True)
lam = sp.Symbol("lambda", nonnegative=True)
#: Spectral argument z = x + i eta of a Stieltjes transform.
x = sp.Symbol("x", real=True)
eta = sp.Symbol("eta", nonnegative=True)

#: The observables of a ridge system: Phi = y^T Q y / n and the interpolation error E (defined here, with the other
#: symbols, so that reading a result needs no derivation; :mod:`.attention` exports them too).
PHI = sp.Symbol("Phi")
ERROR = sp.Symbol("E")

#: The ridge problem's parameters before the geometry (the Gram entries follow, see :func:`gram_symbols`).
MODEL_PARAMETERS = (c, gamma, a1, b, d)


def _exact(bound: float) -> sp.Expr:
    """A decimal bound exactly, a power of ten printed as one (``10^{12}``); it converts back to the same float."""
    exponent = round(math.log10(bound))
    if abs(exponent) > 3 and 10.0**exponent == bound:
        return sp.Pow(10, exponent, evaluate=False)
    return sp.Rational(repr(bound))


def domain(symbol: sp.Symbol) -> sp.Set:
    r"""Where a parameter is solved: its mathematical domain, cut where the solver's checks end.

    :math:`c`, :math:`\gamma` and :math:`d` are bounded by the practical ranges of :mod:`symrmt.validate`
    (its ``DOMAINS``: docs/theory.md, section 13), stated there once; every
    other parameter by its sign. This is the one range a parameter is checked against
    (:func:`symrmt.solve.check_parameters`).
    """
    if symbol in (c, gamma, d):
        lower, upper, lower_open, upper_open = DOMAINS[symbol.name]
        exact_lower = -_exact(-lower) if lower < 0 else _exact(lower) if lower > 0 else sp.Integer(0)
        return sp.Interval(exact_lower, _exact(upper), lower_open, upper_open)
    if symbol.is_nonnegative:
        return sp.Interval(0, sp.oo)
    return sp.S.Reals


def weight_vectors(rank: int) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Names of :math:`(w_K^{(1..r)})` and :math:`(w_Q^{(1..r)})`: ``wK``/``wQ`` at rank 1, ``wK1``... above."""
    if rank < 1:
        raise ValueError(f"rank = {rank}: the low-rank part needs rank >= 1")
    if rank == 1:
        return ("wK",), ("wQ",)
    return tuple(f"wK{i}" for i in range(1, rank + 1)), tuple(f"wQ{i}" for i in range(1, rank + 1))


def geometry_vectors(rank: int) -> tuple[str, ...]:
    r"""The deterministic vectors in the order of the Gram matrix: :math:`(\mu, w_K^{(1..r)}, w_Q^{(1..r)})`."""
    keys, queries = weight_vectors(rank)
    return ("mu", *keys, *queries)


def vector_latex(vector: str) -> str:
    r"""LaTeX of a deterministic vector: ``mu`` -> :math:`\mu`, ``wK`` -> :math:`w_K`, ``wQ2`` -> :math:`w_Q^{(2)}`."""
    if vector == "mu":
        return r"\mu"
    return f"w_{vector[1]}" + (f"^{{({vector[2:]})}}" if vector[2:] else "")


def projection_name(vector: str) -> str:
    r"""The :math:`n`-vector :math:`Z^\top v`: ``s`` for :math:`\mu`, ``k``/``q`` (``k1``, ...) for the weights."""
    if vector == "mu":
        return "s"
    return ("k" if vector.startswith("wK") else "q") + vector[2:]


def _index(vector: str) -> str:
    return vector[2:]


@lru_cache(maxsize=None)
def gram_symbol(u: str, v: str) -> sp.Symbol:
    r""":math:`u^\top v` for two deterministic vectors (``mu``, ``wK``, ``wQ``, ``wK1``, ...); symmetric in (u, v)."""
    order = {"mu": 0, "K": 1, "Q": 2}
    kind = lambda w: "mu" if w == "mu" else w[1]
    u, v = sorted((u, v), key=lambda w: (order[kind(w)], w))
    if u == "mu" and v == "mu":
        return theta
    if u == "mu":
        name = f"alpha_{kind(v)}" + (f"_{_index(v)}" if _index(v) else "")
        return sp.Symbol(name, real=True)
    pair = kind(u) + kind(v)
    iu, iv = _index(u), _index(v)
    if not iu:                                        # rank 1
        return {"KK": omega_KK, "QQ": omega_QQ, "KQ": omega_KQ}[pair]
    if pair in ("KK", "QQ"):
        iu, iv = sorted((iu, iv), key=int)
    return sp.Symbol(f"omega_{pair}_{iu}{iv}", nonnegative=True) if (pair != "KQ" and iu == iv) else \
        sp.Symbol(f"omega_{pair}_{iu}{iv}", real=True)


def gram_symbols(rank: int) -> tuple[sp.Symbol, ...]:
    r"""The distinct Gram entries of :math:`(\mu, w_K^{(1..r)}, w_Q^{(1..r)})`.

    Order: :math:`\theta`, the :math:`\alpha_K`, the :math:`\alpha_Q`, then the :math:`\omega_{KK}`,
    :math:`\omega_{QQ}` (upper triangles) and :math:`\omega_{KQ}` (all pairs); at rank 1 this is
    ``theta, alpha_K, alpha_Q, omega_KK, omega_QQ, omega_KQ``.
    """
    keys, queries = weight_vectors(rank)
    out = [theta, *(gram_symbol("mu", k) for k in keys), *(gram_symbol("mu", q) for q in queries)]
    out += [gram_symbol(u, v) for i, u in enumerate(keys) for v in keys[i:]]
    out += [gram_symbol(u, v) for i, u in enumerate(queries) for v in queries[i:]]
    out += [gram_symbol(u, v) for u in keys for v in queries]
    return tuple(out)


def gram_positions(rank: int) -> dict[sp.Symbol, tuple[int, int]]:
    r"""Each distinct Gram entry (in :func:`gram_symbols` order) with its position in the Gram matrix.

    The matrix is that of :func:`geometry_vectors`; a symmetric entry is given at its first position.

    Examples
    --------
    >>> gram_positions(1)[omega_KQ]
    (1, 2)
    """
    return dict(_gram_positions(rank))


@lru_cache(maxsize=None)
def _gram_positions(rank: int) -> tuple[tuple[sp.Symbol, tuple[int, int]], ...]:
    vectors = geometry_vectors(rank)
    position: dict[sp.Symbol, tuple[int, int]] = {}
    for i, u in enumerate(vectors):
        for j, v in enumerate(vectors):
            position.setdefault(gram_symbol(u, v), (i, j))
    return tuple((symbol, position[symbol]) for symbol in gram_symbols(rank))


def gram_matrix(rank: int) -> sp.Matrix:
    r"""The symbolic Gram matrix, size :math:`1 + 2r`, in the order of :func:`geometry_vectors`."""
    vectors = geometry_vectors(rank)
    return sp.Matrix(len(vectors), len(vectors), lambda i, j: gram_symbol(vectors[i], vectors[j]))


def trace_symbol(i: int, j: int) -> sp.Symbol:
    r"""The unknown :math:`t_{ij} = \operatorname{tr} R_{ij} / p` (symmetric: ``t_ji`` is ``t_ij``)."""
    i, j = min(i, j), max(i, j)
    return sp.Symbol(f"t_{i}{j}")


def tau_symbol(i: int, j: int, weighted: bool = False) -> sp.Symbol:
    r""":math:`\tau_{ij} = \mathbb E_\lambda[R_{ij}]`, or :math:`\tau^A_{ij} = \mathbb E_\lambda[\lambda R_{ij}]` if ``weighted``."""
    i, j = min(i, j), max(i, j)
    return sp.Symbol(f"tau{'A' if weighted else ''}_{i}{j}")
