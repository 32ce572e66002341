r"""The algebraic form of a fixed-point system: its spectral averages in closed form, with no quadrature.

Every average of a symrmt system is :math:`\mathbb E_\lambda[R_{ij}]` or :math:`\mathbb E_\lambda[\lambda R_{ij}]`
with :math:`R(\lambda) = M(\lambda)^{-1}` and a Dyson matrix linear in :math:`\lambda`,
:math:`M(\lambda) = M_0 + \lambda M_1`. Split the law of :math:`\lambda` into its atom :math:`w_0` at 0
and its bulk (:mod:`.stieltjes`). When :math:`M_1` is invertible,
:math:`R(\lambda) = (\lambda + N)^{-1} M_1^{-1}` with :math:`N = M_1^{-1} M_0`, so

.. math::

    \mathbb E_\lambda[R] = w_0 M_0^{-1} + \mathfrak m\, M_1^{-1}, \qquad
    \mathbb E_\lambda[\lambda R] = \big((1 - w_0) I - N\mathfrak m\big)\, M_1^{-1}, \qquad
    \mathfrak m = \tilde m(-N),

the bulk's Stieltjes transform :math:`\tilde m(z) = m(z) + w_0/z` applied to the matrix :math:`-N` (whose
eigenvalues are the roots of :math:`\det M(\lambda)`). Taking the atom out keeps every quantity
bounded when a root approaches 0 (small ridge, :math:`c < 1`). By Cayley--Hamilton
:math:`\mathfrak m = \sum_{j < k} \zeta_j N^j` (:math:`k` the size of :math:`N`), and since the bulk
equation :math:`\tilde P(z, \tilde m(z)) = 0` holds at every eigenvalue, :math:`\tilde P(-N, \mathfrak m) = 0`:
reduced modulo the characteristic polynomial
:math:`\chi_N(\nu) = \nu^k - \chi_1 \nu^{k-1} + \chi_2 \nu^{k-2} - \dots`, that is :math:`k` polynomial
equations in the :math:`\zeta_j`, which join the system's unknowns. The :math:`\zeta_j` are symmetric
functions of the roots, so repeated and complex roots need no special case: the Jacobian in
:math:`\zeta` is multiplication by :math:`\partial_m \tilde P` modulo :math:`\chi_N`, invertible unless a
root sits at an edge of the support (a branch point). The branch (:math:`\tilde m \sim -(1 - w_0)/z`) is
fixed at the continuation start by the initial guess :math:`\mathfrak m = (1 - w_0) N^{-1}`, which lies in
Newton's basin of the physical root wherever the roots are off the support, and then followed by
continuation, as the unknowns :math:`t` are.

When :math:`M_1` is singular, :math:`\lambda` enters only the rows and columns :math:`J` where
:math:`M_1` is not zero (e.g. :math:`a_1 = 0`, or linear regression): the Schur complement
:math:`S(\lambda) = M_{JJ}(\lambda) - M_{JK} M_{KK}^{-1} M_{KJ} = S_0 + \lambda C_1` is a smaller pencil
with :math:`C_1` invertible, :math:`N = C_1^{-1} S_0`, and every block of :math:`R` is affine in
:math:`S^{-1}`. The derivation refuses a pencil that fits neither case.
"""
from __future__ import annotations

from dataclasses import dataclass

import sympy as sp
from sympy.matrices.expressions.matexpr import MatrixElement

from .components import Continuation, SpectralAverage, SpectralLaw
from .fixed_point import FixedPointSystem
from .stieltjes import atom, bulk_polynomial, moment

__all__ = ["algebraic_form", "coefficient_symbol", "invariant_symbol", "ATOM", "AVERAGE", "WEIGHTED_AVERAGE",
           "ALGEBRAIC"]

#: The suffix of an algebraic system's name.
ALGEBRAIC = "algebraic"
#: The mass of the law at 0.
ATOM = sp.Symbol("w_0")
#: The names of the matrices E[R] and E[lambda R] (printed tau and tau^A, like the averages they replace).
AVERAGE, WEIGHTED_AVERAGE = "tau", "tau^A"

_GLOSSARY = {
    "M": r"M(\lambda) = M_0 + \lambda M_1 \text{ the Dyson matrix at an eigenvalue } \lambda \text{ of } A = Z^\top Z/p",
    "tau": r"\tau = \mathbb{E}_\lambda[R],\ \tau^A = \mathbb{E}_\lambda[\lambda R],\ R = M^{-1} "
           r"\text{ the spectral averages}",
    "w": r"w_0 \text{ the mass of the law of } \lambda \text{ at } 0",
    "m": r"\mathfrak{m} = \tilde m(-N),\ \tilde m(z) = \mathbb{E}_\lambda[1/(\lambda - z)] + w_0/z "
         r"\text{ the Stieltjes transform of the law of } \lambda \text{ without its atom}",
    "chi": r"\chi_N(\nu) = \det(\nu - N) = \nu^k - \chi_1 \nu^{k-1} + \chi_2 \nu^{k-2} - \dots "
           r"\text{ the characteristic polynomial of } N",
    "zeta": r"\zeta_j \text{ the coefficients of } \mathfrak{m} \text{ in } I, N, N^2, \dots\text{, fixed by } "
            r"\tilde P(-N, \mathfrak{m}) = 0 \bmod \chi_N,\ \tilde P(z, \tilde m) = {polynomial}\ "
            r"(\tilde m \sim -(1 - w_0)/z \text{ at } \infty)",
}


def coefficient_symbol(j: int) -> sp.Symbol:
    r""":math:`\zeta_j`, the coefficient of :math:`N^j` in :math:`\mathfrak m = m(-N)`."""
    return sp.Symbol(f"zeta_{j}")


def invariant_symbol(j: int) -> sp.Symbol:
    r""":math:`\chi_j`, the coefficient of :math:`(-1)^j \nu^{k-j}` in the characteristic polynomial of :math:`N`."""
    return sp.Symbol(f"chi_{j}")


@dataclass(frozen=True)
class _Averages:
    """What the system averages: the resolvent, the Dyson matrix, lambda, the law, and each average's entry."""

    dyson: sp.MatrixSymbol
    matrix: sp.Matrix
    variable: sp.Symbol
    law: SpectralLaw
    entries: dict          # average symbol -> (i, j, weighted)


def _averages(system: FixedPointSystem) -> _Averages:
    """Read each average as E[R_ij] or E[lambda R_ij] of one resolvent R = M^{-1}; refuse anything else."""
    inverses = {s: d.arg for s, d in system.definitions.items() if isinstance(d, sp.Inverse)}
    averages = list(system.averages.items())
    if not averages or len({(a.law, a.variable) for _, a in averages}) != 1:
        raise ValueError(f"{system.name}: an algebraic form needs spectral averages over one law")
    law, variable = averages[0][1].law, averages[0][1].variable
    entries, resolvents = {}, set()
    for symbol, average in averages:
        entry, weight = average.integrand.as_independent(variable, as_Add=False)
        if weight not in (1, variable) or not isinstance(entry, MatrixElement) or entry.parent not in inverses:
            raise ValueError(f"{system.name}: average {symbol} = E[{average.integrand}] is not E[R_ij] or "
                             "E[lambda R_ij] of a resolvent R = M^-1; no algebraic form")
        resolvents.add(entry.parent)
        entries[symbol] = (int(entry.i), int(entry.j), weight == variable)
    if len(resolvents) != 1:
        raise ValueError(f"{system.name}: the averages use several resolvents; no algebraic form")
    dyson = inverses[resolvents.pop()]
    return _Averages(dyson, sp.Matrix(system.definitions[dyson]), variable, law, entries)


def _linear_parts(matrix: sp.Matrix, variable: sp.Symbol, name: str) -> tuple[sp.Matrix, sp.Matrix]:
    """``(M_0, M_1)`` with ``matrix = M_0 + variable M_1``, or a refusal if it is not linear in the variable."""
    m0, m1 = matrix.xreplace({variable: 0}), matrix.diff(variable)
    if (matrix - m0 - variable * m1).applyfunc(sp.expand) != sp.zeros(*matrix.shape):
        raise ValueError(f"{name}: the Dyson matrix is not linear in {variable}; no algebraic form")
    return m0, m1


@dataclass(frozen=True)
class _Closed:
    r"""The averages in closed form: definitions to add, and :math:`\mathbb E[R]`, :math:`\mathbb E[\lambda R]`."""

    definitions: dict
    average: sp.MatrixSymbol
    weighted: sp.MatrixSymbol
    size: int                                 # k, the size of N (the number of zeta)
    inverse: sp.Matrix | None                 # N^{-1} in the zeta basis: the initial guess m ~ -1/z


def algebraic_form(system: FixedPointSystem) -> FixedPointSystem:
    r"""The same system with every spectral average in closed form (see the module docstring).

    Unknowns: the system's own, then :math:`\zeta_0, \dots, \zeta_{k-1}`; residuals: the system's own,
    in the closed-form averages, then :math:`\psi_j`. Observables, parameters, branch and ranges are
    unchanged; the continuation starts where the system's does, with :math:`\mathfrak m = N^{-1}`.

    Examples
    --------
    >>> from .attention import linear_system
    >>> system = algebraic_form(linear_system())
    >>> [str(u) for u in system.unknowns], dict(system.averages)
    (['zeta_0'], {})
    """
    found = _averages(system)
    m0, m1 = _linear_parts(found.matrix, found.variable, system.name)
    closed = _closed_form(m0, m1, found.law, system.name)
    replace = {a: (closed.weighted if weighted else closed.average)[i, j]
               for a, (i, j, weighted) in found.entries.items()}
    zetas = tuple(coefficient_symbol(j) for j in range(closed.size))
    residuals = {t: sp.sympify(r).xreplace(replace) for t, r in system.residuals.items()}
    residuals.update(zip(zetas, _stieltjes_residuals(closed.size, found.law)))
    start = system.continuation
    initial = {**start.initial, **({z: closed.inverse[j] for j, z in enumerate(zetas)} if zetas else {})}
    glossary = {**system.glossary, **_glossary(closed, found.law)}
    return FixedPointSystem(
        name=f"{system.name}, {ALGEBRAIC}",
        parameters=system.parameters,
        unknowns=(*system.unknowns, *zetas),
        residuals=residuals,
        averages={},
        observables={o: v.xreplace(replace) for o, v in system.observables.items()},
        continuation=Continuation(start.variable, start.start, initial, start.predictor),
        branch=system.branch,
        admissible=system.admissible,
        complex_unknowns=system.complex_unknowns,
        glossary=glossary,
        definitions=closed.definitions,
        display=system.display,
    )


def _closed_form(m0: sp.Matrix, m1: sp.Matrix, law: SpectralLaw, name: str) -> _Closed:
    """E[R] and E[lambda R] of (M_0 + lambda M_1)^{-1}: directly when M_1 is invertible, else by a Schur complement."""
    n = m0.shape[0]
    moving = [i for i in range(n) if any(m1[i, :]) or any(m1[:, i])]
    if moving and sp.simplify(m1.extract(moving, moving).det()) == 0:
        raise ValueError(f"{name}: lambda enters the Dyson matrix through a singular block; no algebraic form")
    zero, one = sp.MatrixSymbol("M_0", n, n), sp.MatrixSymbol("M_1", n, n)
    definitions = {ATOM: atom(law), zero: m0, one: m1}
    average, weighted = sp.MatrixSymbol(AVERAGE, n, n), sp.MatrixSymbol(WEIGHTED_AVERAGE, n, n)
    if len(moving) == n:
        n_matrix = sp.MatrixSymbol("N", n, n)
        definitions[n_matrix] = one.I * zero
        m_matrix, inverse = _stieltjes_matrix(definitions, n_matrix)
        definitions[average] = ATOM * zero.I + m_matrix * one.I
        definitions[weighted] = ((1 - ATOM) * sp.Identity(n) - n_matrix * m_matrix) * one.I
        return _Closed(definitions, average, weighted, n, inverse)
    return _schur_form(definitions, m0, m1, moving, law, average, weighted, name)


def _stieltjes_matrix(definitions: dict, n_matrix: sp.MatrixSymbol) -> tuple[sp.MatrixSymbol, sp.Matrix]:
    r"""Define :math:`\mathfrak m = \sum_j \zeta_j N^j` and the invariants :math:`\chi_j` of :math:`N`.

    Returns :math:`\mathfrak m` and the coefficients of :math:`N^{-1}` (in the :math:`\chi_j`), the initial guess.
    """
    k = n_matrix.shape[0]
    m_matrix = sp.MatrixSymbol(r"\mathfrak{m}", k, k)
    definitions[m_matrix] = sp.Add(*[coefficient_symbol(j) * (sp.Identity(k) if j == 0 else n_matrix**j)
                                     for j in range(k)])
    powers = {i: sp.Trace(n_matrix if i == 1 else n_matrix**i) for i in range(1, k + 1)}
    for j in range(1, k + 1):                               # Newton's identities; the last one is det N
        if j == k and k > 1:
            definitions[invariant_symbol(j)] = sp.Determinant(n_matrix)
            continue
        sums = sum((-1) ** (i - 1) * (invariant_symbol(j - i) if j > i else 1) * powers[i] for i in range(1, j + 1))
        definitions[invariant_symbol(j)] = sp.expand(sums / j)
    nu = sp.Dummy("nu")                       # m ~ -(1 - w_0)/z at z = -N: (1 - w_0) N^{-1}
    inverse = sp.Poly(sp.invert(nu, _characteristic(k, nu), nu), nu)
    return m_matrix, sp.Matrix([(1 - ATOM) * inverse.coeff_monomial(nu**j) for j in range(k)])


def _characteristic(k: int, nu: sp.Symbol) -> sp.Expr:
    r""":math:`\chi_N(\nu) = \sum_j (-1)^j \chi_j \nu^{k-j}` in the invariant symbols."""
    return sum((-1) ** j * (invariant_symbol(j) if j else 1) * nu ** (k - j) for j in range(k + 1))


def _stieltjes_residuals(k: int, law: SpectralLaw) -> list[sp.Expr]:
    r"""The coefficients of :math:`\tilde P(-\nu, \mathfrak m(\nu)) \bmod \chi_N(\nu)`."""
    if not k:
        return []
    nu = sp.Dummy("nu")
    polynomial = sum(coefficient_symbol(j) * nu**j for j in range(k))
    bulk = bulk_polynomial(law, -nu, polynomial, ATOM)
    remainder = sp.Poly(sp.rem(sp.expand(bulk), _characteristic(k, nu), nu), nu)
    return [sp.collect(sp.expand(remainder.coeff_monomial(nu**j)), [coefficient_symbol(i) for i in range(k)])
            for j in range(k)]


def _schur_form(definitions: dict, m0: sp.Matrix, m1: sp.Matrix, moving: list, law: SpectralLaw,
                average: sp.MatrixSymbol, weighted: sp.MatrixSymbol, name: str) -> _Closed:
    r"""M_1 singular: the blocks K (no lambda) and J; :math:`S(\lambda) = S_0 + \lambda C_1` on J."""
    n, k = m0.shape[0], len(moving)
    fixed = [i for i in range(n) if i not in moving]
    a = m0.extract(fixed, fixed)
    if sp.simplify(a.det()) == 0:
        raise ValueError(f"{name}: the lambda-free block of the Dyson matrix is singular; no algebraic form")
    a_inv = a.inv().applyfunc(sp.cancel)
    b, b_t = m0.extract(fixed, moving), m0.extract(moving, fixed)
    mean = moment(law, 1)
    inverse = None
    if k:
        c1 = m1.extract(moving, moving)
        n_matrix = sp.MatrixSymbol("N", k, k)
        definitions[n_matrix] = (c1.inv() * (m0.extract(moving, moving) - b_t * a_inv * b)).applyfunc(sp.cancel)
        m_matrix, inverse = _stieltjes_matrix(definitions, n_matrix)
        s_zero = m0.extract(moving, moving) - b_t * a_inv * b
        g = ATOM * s_zero.inv() + sp.Matrix(m_matrix) * c1.inv()                       # E[S^-1]
        g_weighted = ((1 - ATOM) * sp.eye(k) - sp.Matrix(n_matrix) * sp.Matrix(m_matrix)) * c1.inv()  # E[lambda S^-1]
    else:
        g = g_weighted = sp.zeros(0, 0)
    blocks = {False: (a_inv, g), True: (mean * a_inv, g_weighted)}
    for weight, symbol in ((False, average), (True, weighted)):
        free, s_inv = blocks[weight]
        out = sp.zeros(n, n)
        top = free + a_inv * b * s_inv * b_t * a_inv if k else free
        _place(out, fixed, fixed, top)
        if k:
            _place(out, fixed, moving, -a_inv * b * s_inv)
            _place(out, moving, fixed, -s_inv * b_t * a_inv)
            _place(out, moving, moving, s_inv)
        definitions[symbol] = out.applyfunc(sp.factor)
    return _Closed(definitions, average, weighted, k, inverse)


def _place(out: sp.Matrix, rows: list, cols: list, block: sp.Matrix) -> None:
    for a, i in enumerate(rows):
        for b, j in enumerate(cols):
            out[i, j] = block[a, b]


def _glossary(closed: _Closed, law: SpectralLaw) -> dict:
    """Glossary lines for what the closed form adds, each keyed by a symbol it explains."""
    out = {sp.MatrixSymbol("M_0", *closed.average.shape): _GLOSSARY["M"], closed.average: _GLOSSARY["tau"],
           ATOM: _GLOSSARY["w"]}
    if closed.size:
        z, m = sp.symbols(r"z \tilde{m}")
        polynomial = sp.latex(sp.collect(bulk_polynomial(law, z, m, ATOM), m))
        out[sp.MatrixSymbol(r"\mathfrak{m}", closed.size, closed.size)] = _GLOSSARY["m"]
        out[invariant_symbol(1)] = _GLOSSARY["chi"]
        out[coefficient_symbol(0)] = _GLOSSARY["zeta"].replace("{polynomial}", polynomial)
    return out
