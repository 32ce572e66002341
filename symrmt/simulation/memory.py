r"""Peak memory and run time of a simulation, and the refusal of a run that does not fit, before anything is allocated.

:func:`memory_estimate` counts the float64 arrays alive at the worst moment of one draw
(``X`` is p-by-n; the scores, :math:`K` and the Gram matrices are n-by-n or
min(p, n)-squared; plus the workspace of the factorization and the Lanczos bases); a run
that would not fit in the memory this process really has (the tightest of ``ulimit -v``, the
cgroup's limit and MemAvailable: :mod:`symrmt.runtime.memory`) is refused with a
:class:`~symrmt.errors.ParameterError` that gives the figures (:func:`check_memory`).

:func:`seconds_estimate` is the time of the same run, for ``symrmt simulate`` and ``compare`` to refuse one
of more than five minutes without ``--allow-long`` (:func:`symrmt.runtime.cost.check_seconds`): per seed a
fixed cost (drawing, the Python around it), the gamma-by-eigenvalue weights, and the products and
factorizations of :math:`O(n^2(n + p))` flops,

.. math::

    t \approx \text{seeds}\,\big(T_0 + T_\gamma\, G n + C\, n^2 (n + p)\big),
    \qquad T_0 = 6\ \text{ms}, \quad T_\gamma = 5\ \mu\text{s}, \quad C = 3 \times 10^{-9}\ \text{s},

measured on the 2-core development machine at load 13 to 15: 5.8 ms per seed at n = 16 and one gamma,
14.4 ms with 100 gamma, 0.35 to 0.83 s at n = p = 512.
"""
from __future__ import annotations

from .. import validate
from ..errors import ParameterError
from ..runtime import memory as runtime_memory
from .linalg import SYRK_COLUMNS
from .model import BLOCK_ROWS
from .new_tokens import token_bytes
from .routes import METHODS, Plan, concurrent
from .weights import WeightMatrix

__all__ = ["memory_estimate", "available_memory", "check_memory", "seconds_estimate", "SEED_SECONDS", "GAMMA_SECONDS",
           "FLOP_SECONDS"]

_GIB = 2.0**30

#: The constants of :func:`seconds_estimate` (module docstring): seconds per seed, per gamma and token, per
#: :math:`n^2(n + p)`.
SEED_SECONDS, GAMMA_SECONDS, FLOP_SECONDS = 6e-3, 5e-6, 3e-9


def seconds_estimate(n: int, p: int, seeds: int, gammas: int, spectrum: bool = False) -> float:
    r"""Estimated seconds of :func:`~symrmt.simulation.simulate` with ``seeds`` draws at sizes n, p and ``gammas``
    ridge values (the module docstring's model); ``spectrum`` adds the eigenvalues of each draw
    (:func:`~symrmt.simulation.simulate_spectrum`, one more factorization per seed).

    >>> round(seconds_estimate(16, 16, 100_000, 1))
    610
    """
    per_seed = SEED_SECONDS + GAMMA_SECONDS * gammas * n + FLOP_SECONDS * float(n) ** 2 * (n + p)
    return seeds * per_seed * (2.0 if spectrum else 1.0)


def memory_estimate(n: int, p: int, seeds: int, gammas: int, method: str = "auto",
                    spectrum: str | None = None, weights: str | None = None, weight_rank: int = 0) -> int:
    r"""Peak bytes of :func:`~symrmt.simulation.simulate` (or of :func:`~symrmt.simulation.simulate_spectrum`
    with ``spectrum``), before allocating.

    Counts the arrays alive at the worst moment of one draw (``X`` is p-by-n, the
    scores, ``K`` and the Gram matrices n-by-n or min(p, n)-squared, plus the
    workspace of the factorization), the per-seed results, and a fixed allowance
    for the interpreter and row-block temporaries. Float64 throughout. With
    ``weights="dense"`` (``simulate(weights=M)``) the matrix :math:`M` (p-by-p, alive through
    every draw) and the p-by-:data:`~symrmt.simulation.model.BLOCK_ROWS` block of :math:`M^\top X`
    are added; with ``weights="factored"`` the ``weight_rank`` pairs and their projections
    (:math:`2r(p + n)`).

    Parameters
    ----------
    n, p : int
        Tokens and dimension, each :math:`\ge 1`.
    seeds, gammas : int
        Draws and ridge values, each :math:`\ge 1`.
    method : {"auto", "exact", "tridiagonal", "lanczos"}
        The route of :func:`~symrmt.simulation.simulate` (``"auto"`` counted pessimistically).
    spectrum : {"kernel", "gram"}, optional
        Count :func:`~symrmt.simulation.simulate_spectrum` of that matrix instead.
    weights : {"dense", "factored"}, optional
        General weights: a dense :math:`p \times p` matrix :math:`M`, or ``weight_rank`` factored pairs.
    weight_rank : int
        The rank r of factored weights, :math:`\ge 0`; default 0.

    Returns
    -------
    int
        The estimated peak, in bytes (8 per float64).

    Raises
    ------
    ParameterError
        A size, count or rank below its minimum or not an integer, an unknown ``method``, ``spectrum`` or
        ``weights``.

    See Also
    --------
    seconds_estimate : The estimated run time of the same call.
    symrmt.simulation.simulate : Refuses, before allocating, a run whose estimate exceeds the memory available.

    Examples
    --------
    >>> round(memory_estimate(1024, 1024, seeds=4, gammas=100) / 2**20)
    116
    >>> (memory_estimate(1024, 1024, 4, 100, weights="dense") - memory_estimate(1024, 1024, 4, 100)) / 2**20
    10.5
    """
    n, p = validate.integer("n", n, 1), validate.integer("p", p, 1)
    seeds, gammas = validate.integer("seeds", seeds, 1), validate.integer("gammas", gammas, 1)
    method = validate.choice("method", method, METHODS)
    if spectrum is not None:
        validate.choice("spectrum", spectrum, ("kernel", "gram"))
    weight_rank = validate.integer("weight_rank", weight_rank, 0)
    return _peak_bytes(Plan.of(method, n, p), seeds, gammas, spectrum, _weight_bytes(n, p, weights, weight_rank))


def _weight_bytes(n: int, p: int, form: str | None, rank: int) -> float:
    """Bytes of the general weights alive during a draw (:func:`memory_estimate`)."""
    if form is None:
        return 0.0
    if form == "dense":
        return 8.0 * p * p + 8.0 * p * BLOCK_ROWS
    if form == "factored":
        return 8.0 * 2 * rank * (p + n)
    raise ParameterError(f"weights = {form!r}: must be None, 'dense' or 'factored'.")


def _peak_bytes(plan: Plan, seeds: int, gammas: int, spectrum: str | None, weights: float = 0.0) -> int:
    n, p, method = plan.n, plan.p, plan.method
    pn, n2, m2 = 8.0 * p * n, 8.0 * n * n, 8.0 * min(p, n) ** 2
    if spectrum == "kernel":
        peak = pn + 2 * n2
    elif spectrum == "gram":
        peak = max(2 * pn + n2, pn + 2 * m2)
    elif method == "exact":
        factor = 6 * n2 if p >= n else 4 * pn + 4 * m2   # eigh of the Gram / SVD (gesdd) workspace
        shrink = 2 * 8.0 * gammas * n                     # the gamma-by-eigenvalue weights
        peak = max(2 * pn + n2, 2 * pn + factor + shrink)
    else:
        keeps = 2 * p >= n   # C may be kept next to the scores (routes.keeps_gram of "auto"; pessimistic)
        peak = max(pn + (2 if keeps else 1) * n2, 2 * pn + n2, pn + n2 + m2)
        if concurrent(n, p):   # X, C, F and the attention Gram while both reductions run,
            peak = max(peak, 2 * pn + n2 + m2) + pn   # and the next seed's X, drawn meanwhile
        if method in ("auto", "lanczos"):   # two Lanczos bases, one per thread
            peak += 2 * 8.0 * n * (min(n, plan.lanczos_steps) + 1)
    if max(n, p) > SYRK_COLUMNS:      # one block of the blocked Gram product
        peak += 8.0 * SYRK_COLUMNS**2
    results = 8.0 * seeds * (2 * gammas + (n if spectrum else 0))
    blocks = 4 * 8.0 * BLOCK_ROWS * n
    return int(1.05 * (peak + results + blocks + weights) + 64 * 2**20)


def available_memory() -> int | None:
    """Bytes this process may still allocate: the tightest of ``ulimit -v``, the cgroup limit and MemAvailable
    (:func:`symrmt.runtime.memory.available`); None if unknown."""
    budget = runtime_memory.available()
    return None if budget is None else budget.bytes


def _binding_limit() -> str:
    budget = runtime_memory.available()
    return "" if budget is None else " " + budget.source


def check_memory(plan: Plan, seeds: int, gammas: int, spectrum: str | None = None,
                 weights: WeightMatrix | None = None, test_tokens: bool = False) -> None:
    """Refuse (:class:`~symrmt.errors.ParameterError`) a run whose :func:`memory_estimate` exceeds the memory available
    (with ``test_tokens``, plus what the test error holds next to the draw: :func:`~.new_tokens.token_bytes`)."""
    extra = 0.0 if weights is None else _weight_bytes(plan.n, plan.p, weights.form, weights.rank or 0)
    if test_tokens:
        extra += token_bytes(plan.n, plan.p)
    need = _peak_bytes(plan, seeds, gammas, spectrum, extra)
    available = available_memory()
    if available is not None and need > available:
        n, p = plan.n, plan.p
        what = f"simulate_spectrum(matrix={spectrum!r})" if spectrum else f"simulate(method={plan.method!r})"
        raise ParameterError(
            f"n = {n}, p = {p}, seeds = {seeds}: {what} needs about {need / _GIB:.3g} GiB "
            f"(X alone, p-by-n float64, is {8.0 * p * n / _GIB:.3g} GiB) but only {available / _GIB:.3g} GiB "
            f"of memory are available{_binding_limit()}. Use a smaller n or c."
        )
