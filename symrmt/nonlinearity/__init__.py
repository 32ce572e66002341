r"""The nonlinearity f: safe parsing, Hermite coefficients, and a small zoo.

Conventions
-----------
:math:`\xi \sim \mathcal N(0, 1)` and :math:`\mathrm{He}_k` are the probabilists'
Hermite polynomials (:math:`\mathrm{He}_0 = 1`, :math:`\mathrm{He}_1 = x`,
:math:`\mathrm{He}_2 = x^2 - 1`, :math:`\mathrm{He}_3 = x^3 - 3x`, ...), which satisfy
:math:`\mathbb E[\mathrm{He}_j(\xi)\mathrm{He}_k(\xi)] = k!\,\delta_{jk}`. The
Hermite coefficients are taken in the orthonormal convention

.. math::

    a_k = \frac{\mathbb E[f(\xi)\,\mathrm{He}_k(\xi)]}{\sqrt{k!}}, \qquad
    \nu = \mathbb E[f(\xi)^2] = \sum_{k \ge 0} a_k^2, \qquad b^2 = \nu - a_1^2,

so :math:`a_0 = \mathbb E f(\xi)`, :math:`a_1 = \mathbb E[\xi f(\xi)]` and
:math:`a_2 = \mathbb E[f(\xi)(\xi^2 - 1)]/\sqrt 2`. :func:`hermite` gives them for any f.
The attention theory and the simulator need :math:`a_0 = 0`: they refuse an f with
:math:`|a_0| > 10^{-12}\max(1, \sqrt\nu)` (:meth:`HermiteCoefficients.require_centered`,
whose message says how to center); ``center=True`` (``--center`` on the command line)
subtracts :math:`a_0` (exactly when its closed form is known).

Parsing
-------
A user string is never evaluated: :func:`parse_nonlinearity` walks Python's AST of
the string and accepts only the variable ``x``, the constants ``pi`` and ``E`` (or
``e``), int/float literals, ``+ - * / **``, unary ``+``/``-``, calls of the
whitelisted functions in :data:`FUNCTIONS` with positional arguments, and the names of
parameters (:func:`formula_parameters`: any other name of a letter then letters, digits
or ``_``, as ``s`` in ``"erf(s*x)"``). Decimal
literals are read as exact rationals (``0.5`` is 1/2) so closed forms stay exact.
``^`` is refused, not reinterpreted: in Python syntax it is XOR with a lower
precedence than ``+``, so ``x^2+1`` would silently mean ``x^(2+1)``; write ``**``.
Numeric exponents are limited to ``|p| <= 64``, inputs to 500 characters and 100
levels of nesting.

How each number is obtained
---------------------------
*Numerically*, always (except for polynomials, below): mpmath tanh-sinh quadrature at
30 significant digits over :math:`(-\infty, \infty)`, split at 0 and at the real
kinks of Abs/Max/Min/Heaviside/sign, checked against a second tanh-sinh rule on a
different partition of :math:`[-40, 40]`; the two must agree, and their error
estimates be below, :math:`10^{-13}\max(|a_k|, \sqrt\nu)`, else the f is refused
(poles, non-integrable singularities). Before that, f is refused as not
square-integrable when :math:`|x| f(x)^2 e^{-x^2/2}` has not died out at
:math:`|x| = 40` and 80. f is evaluated by a small mpmath interpreter of the SymPy
tree (no eval, no lambdify) whose intermediate overflows become :math:`\pm\infty`
(so ``sigmoid(x**3)`` still evaluates to its limits) and whose astronomically
large arguments are refused rather than computed for hours.

*Exactly*, when possible, in this order: polynomials of degree at most 64 (Gaussian
moments: exact by construction, so no quadrature is run); sums of
:math:`c\,x^m e^{q x^2 + k x}` (exp, sin, cos, sinh, cosh: Gaussian integrals, so
:math:`a_1 = e^{1/2}` for exp); parity (odd f has
:math:`a_{2j} = 0`, even f has :math:`a_{2j+1} = 0`, and :math:`f(x) + f(-x) = 2c`
gives :math:`a_0 = c`); a small table (the :math:`c\operatorname{erf}(kx) + d`
family; tanh and sigmoid have no known closed form for :math:`a_1, \nu` and skip
SymPy); finally :func:`sympy.integrate`, term by term, in a child process per
integral (``fork`` on Linux), all started at once so that they run while the
quadrature is computed, and all stopped ``timeout`` wall-clock seconds after the call
began (all of f's data together, centering included); what SymPy has not found by then
is the verified quadrature value. By default the call does not wait at all: a new f's
first answer comes at once, and the search goes on in a detached, niced background
process (:mod:`symrmt.nonlinearity.background`: at most 60 s, one per f at a time)
that writes the exact data it finds into the disk cache, so that a later call prints
them; one line on stderr says so. Where it cannot run (the disk cache off, or
``SYMRMT_BACKGROUND_SEARCH=0``) the default waits 1 s instead. A closed form is
kept only if it is a finite real number that agrees with the quadrature to
:math:`10^{-12}`. ``source`` records ``"exact"`` (SymPy: integration, Gaussian
moments or parity), ``"table"`` or ``"numeric"``, so the route of every number is
known. Which closed forms a budget finds depends on the machine's load: pass a larger
``timeout`` where the exact form matters (a finished search returns at once, the
budget is only a ceiling), and ``method="numeric"`` (``--method numeric`` on the
command line) to skip the search. :func:`hermite_options` sets both for a block of
code (the command line's ``--method`` and ``--timeout``).

Results are cached in memory per expression (keyed by ``srepr``) and on disk between
runs, as checked JSON (never pickle; see :mod:`symrmt.nonlinearity.cache`) in
``$SYMRMT_CACHE_DIR`` (``off`` to disable), else ``$XDG_CACHE_HOME/symrmt``, else
``~/.cache/symrmt``, so repeated calls are instant; the first call costs the
quadrature and at most ``timeout`` seconds of search. The cache keeps what a call (or
the background search) found; a ``timeout`` above the search that made an entry searches
again where a stored datum is numeric.

Parameters and callables
------------------------
``hermite("erf(s*x)")`` (or a SymPy expression with symbols other than x) gives
closed forms in the parameters where known; :meth:`HermiteCoefficients.at` (or
``hermite(f, params={"s": 0.5})``) gives the data at one point, exactly where they can
be, and :meth:`HermiteCoefficients.numeric` float64 arrays over arrays of parameter
values (see :mod:`symrmt.nonlinearity.parametric`); both refuse a point where f is
constant (``erf(s*x)`` at s = 0). A Python callable such as ``np.tanh`` gets
numeric data in float64 with an error estimate per datum
(:mod:`symrmt.nonlinearity.callables`). Every kind of f becomes a NumPy function
through one adapter, :func:`numpy_callable`.

Errors
------
:class:`~symrmt.errors.ParseError` for a formula outside the vocabulary,
:class:`~symrmt.errors.NonlinearityError` for an f that cannot be used (not real,
not centered where that is needed, not square-integrable, too small or too large in scale, quadrature
that does not converge), :class:`~symrmt.errors.ParameterError` for bad options
and parameter values; all are ``ValueError``\ s.

Modules
-------
``parse`` (whitelist parser), ``mpmath_eval`` (guarded evaluator), ``integrands``,
``tanh_sinh`` (the 30-digit quadrature of the Hermite data: kinks, tails, two rules), ``closed_forms`` (polynomials, parity,
table, SymPy), ``budget`` (child processes stopped at a wall-clock deadline), ``coefficients``
(acceptance of closed forms, centering), ``serial`` and ``cache`` (the disk cache),
``api`` (the public functions), ``adapter`` (the one adapter of f to NumPy; SymPy only for formulas),
``callables``, ``parametric``, ``centering``, ``scaled`` (the data of :math:`f(\sigma\,\cdot)`) and ``zoo``.
"""
from __future__ import annotations

from ..runtime.lazy import lazy_exports

#: public name -> submodule that defines it. Loaded on first use, so that wrapping a Python
#: callable (``adapter``) stays NumPy-only for ``symrmt.simulation``.
_EXPORTS = {
    "X": "constants",
    "FUNCTIONS": "parse",
    "ZOO": "zoo",
    "HermiteCoefficients": "api",
    "nonlinear_part": "decomposition",
    "nonlinear_share": "decomposition",
    "parse_nonlinearity": "parse",
    "formula_parameters": "parse",
    "hermite": "api",
    "scaled_hermite": "scaled",
    "scaled_data": "scaled",
    "ScaledHermite": "scaled",
    "hermite_options": "api",
    "numpy_callable": "adapter",
    "CacheWarning": "cache",
}

__all__ = list(_EXPORTS)

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
