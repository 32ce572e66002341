r"""Finite size, measured: the Monte Carlo on a ladder of sizes, extrapolated to :math:`n = \infty`.

The deterministic equivalents of :mod:`symrmt.theory` are limits :math:`n, p \to \infty`
(:math:`p = cn`); every simulation is at a finite n. :func:`converge` runs
:func:`symrmt.simulate` at sizes :math:`n_1 < \dots < n_K` (default 256, 512, ..., 4096),
summarizes each size over its seeds (:func:`symrmt.analysis.seeds.mean_se`), and fits, for every
ridge :math:`\gamma` and for :math:`E_{\rm attn}`, :math:`E_{\rm lin}` and the paired gap
:math:`E_{\rm attn} - E_{\rm lin}` (per-seed differences on the same draws),

.. math::

    E(n) = E_\infty + b\, n^{-\alpha}

by :func:`symrmt.analysis.finite_size.extrapolate` (weighted least squares, the exponent chosen or
fitted by AIC, a bootstrap interval that refits everything). It reports :math:`E_\infty`
with its 95% interval, the exponent, the theory, and whether the theory lies inside the
interval. This module sits above the theory and the simulator and calls only their public
functions; the theory never sees a simulated number.

Seeds per size, by measured cost. A seed at small n costs more than :math:`n^2` suggests (it is
bound by the per-draw overhead and matrix-vector products, not by GEMMs), so the seeds are allocated by
the cost measured on this machine (:func:`ladder_seeds` with ``costs``): the largest size runs first with
its :math:`s` seeds (default 6), its cost per seed :math:`t_K` is read off that run, and every smaller size
is timed on a short probe (:func:`seed_cost`; never above the next larger size's cost, so that a probe
slowed by a busy machine cannot give a larger size more seeds) and then gets :math:`\lceil s\,t_K/t(n)\rceil`
seeds, capped at :data:`MAX_SEEDS`: each size then costs about the same. A short call at the second largest
size runs first, so that the once-per-process costs (compiling f, calibrating the BLAS threads) do not count
as the largest size's; a probe there (:func:`seed_cost`) gives an estimate of the whole ladder (:func:`ladder_estimate`), and
a ladder with more than :data:`MAX_SEEDS` seeds at a size or estimated above :data:`MAX_SECONDS` is refused
with that estimate unless ``allow_long`` is given. The seeds used and the measured costs are in the
result (``seeds``, ``seed_seconds``); pass ``seeds`` as a list to repeat a run exactly. Size :math:`n`
draws from ``simulate(seed=size_seed(seed, n))``, a root that depends only on ``seed`` and n, so the sizes
are independent and a size's draws do not depend on the rest of the ladder.

Deciding. For each quantity and :math:`\gamma` the theory is inside or outside the 95% interval of
:math:`E_\infty`; when the interval's relative half-width :math:`(E_{\rm hi} - E_{\rm lo})/(2|E_\infty|)` exceeds
``target`` (default 3%), "inside" does not decide anything, and :meth:`LadderFit.decisions` says so with
the seeds that would reach the target if the width is statistical (it shrinks like
:math:`1/\sqrt{\text{seeds}}`: the seeds times :math:`(\text{half-width}/\text{target})^2`) and their
time on this machine; a width from the choice of the finite-size model does not shrink so, and then a
ladder that reaches larger n is needed.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from .. import validate
from ..display import convergence_csv, convergence_html
from ..errors import ParameterError, shown as _shown
from .finite_size import Extrapolation, extrapolate
from ..runtime.memory import check_fits
from ..runtime.progress import progress_bar
from ..simulation.seeds import mean_se
from ..simulation.softmax import ATTENTIONS

__all__ = ["Convergence", "LadderFit", "converge", "ladder_seeds", "seed_cost", "size_seed", "DEFAULT_NS",
           "DEFAULT_SEEDS", "DEFAULT_TARGET", "MAX_SEEDS", "MAX_SECONDS", "QUANTITIES", "ladder_estimate"]

#: The default ladder of sizes.
DEFAULT_NS = (256, 512, 1024, 2048, 4096)

#: Seeds at the largest size by default.
DEFAULT_SEEDS = 6

#: The relative half-width of the interval of E_inf below which a ladder decides (``target``).
DEFAULT_TARGET = 0.03

#: A cost probe runs 2, 4, 8, ... seeds until it has taken this many seconds (or PROBE_SEEDS seeds), so
#: that the fixed cost of a call is spread over enough seeds.
PROBE_SECONDS = 0.25
PROBE_SEEDS = 32

#: No size gets more seeds than this (a small n next to a large one would otherwise get tens of thousands).
MAX_SEEDS = 2000

#: A ladder estimated to take longer than this (seconds, :func:`ladder_estimate`) runs only with ``allow_long``.
MAX_SECONDS = 3600.0

#: The three quantities fitted, in the order of :class:`Convergence`.
QUANTITIES = ("attention", "linear", "gap")


@dataclass(frozen=True, eq=False)
class LadderFit:
    r"""One quantity (:math:`E_{\rm attn}`, :math:`E_{\rm lin}` or their gap) over the ladder, for every gamma.

    Attributes
    ----------
    name : str
        ``"attention"``, ``"linear"`` or ``"gap"``.
    mean, se : numpy.ndarray
        Mean over seeds and its standard error, shape ``(K, G)`` (sizes by gamma).
    fits : tuple of Extrapolation
        The fit of each gamma (:class:`symrmt.analysis.finite_size.Extrapolation`).
    theory : numpy.ndarray
        The deterministic equivalent, shape ``(G,)`` (for the gap: attention minus linear).
    """

    name: str
    mean: np.ndarray
    se: np.ndarray
    fits: tuple[Extrapolation, ...]
    theory: np.ndarray

    def _field(self, key: str) -> np.ndarray:
        return np.array([getattr(fit, key) for fit in self.fits], dtype=np.float64)

    @property
    def limit(self) -> np.ndarray:
        r""":math:`E_\infty` per gamma."""
        return self._field("limit")

    @property
    def limit_lo(self) -> np.ndarray:
        """Lower end of the 95% interval of the limit, per gamma."""
        return self._field("lo")

    @property
    def limit_hi(self) -> np.ndarray:
        """Upper end of the 95% interval of the limit, per gamma."""
        return self._field("hi")

    @property
    def exponent(self) -> np.ndarray:
        r"""The fitted exponent :math:`\alpha` per gamma."""
        return self._field("exponent")

    @property
    def agrees(self) -> np.ndarray:
        """Whether the theory lies inside the interval, per gamma."""
        return (self.limit_lo <= self.theory) & (self.theory <= self.limit_hi)

    @property
    def half_width(self) -> np.ndarray:
        r"""The relative half-width :math:`(E_{\rm hi} - E_{\rm lo})/(2|E_\infty|)` of the interval, per gamma."""
        with np.errstate(divide="ignore", invalid="ignore"):
            return (self.limit_hi - self.limit_lo) / (2 * np.abs(self.limit))

    def decisions(self, target: float = DEFAULT_TARGET, seeds: Sequence[int] | None = None,
                  seconds: float | None = None) -> list[dict[str, Any]]:
        r"""Per gamma: ``decision`` ("agrees", "disagrees" or "undecided"), ``half_width``, and for "undecided"
        ``seeds_factor`` :math:`(\text{half-width}/\text{target})^2`, the ``seeds`` per size and the ``seconds``
        that would reach ``target`` if the width is statistical, and the ``reason`` in words.

        "agrees": the theory inside an interval no wider than ``target``; "disagrees": the theory outside the
        interval (whatever its width); "undecided": inside an interval wider than ``target``. ``seeds`` and
        ``seconds`` are those of the ladder run (:class:`Convergence` passes them).
        """
        out = []
        for g in range(self.theory.size):
            half, inside = float(self.half_width[g]), bool(self.agrees[g])
            entry: dict[str, Any] = {"half_width": half if np.isfinite(half) else None}
            if not inside:
                entry.update(decision="disagrees", reason=(
                    f"the theory {self.theory[g]:.5g} lies outside the 95% interval [{self.limit_lo[g]:.5g}, "
                    f"{self.limit_hi[g]:.5g}] of the extrapolated limit"))
            elif np.isfinite(half) and half <= target:
                entry.update(decision="agrees", reason=(
                    f"the theory lies inside the 95% interval, of half-width {100 * half:.2g}% <= {100 * target:g}%"))
            else:
                factor = (half / target) ** 2 if np.isfinite(half) else float("inf")
                entry.update(decision="undecided", seeds_factor=factor)
                more = ""
                if seeds is not None and np.isfinite(factor):
                    needed = [int(math.ceil(factor * k - 1e-9)) for k in seeds]
                    entry["seeds"] = needed
                    more = f": about {factor:.1f} times the seeds ({', '.join(map(str, needed))})"
                    if seconds is not None:
                        entry["seconds"] = factor * seconds
                        more += f", about {_duration(factor * seconds)} on this machine"
                entry["reason"] = (
                    f"the theory lies inside the 95% interval, but its half-width {100 * half:.2g}% exceeds the "
                    f"target {100 * target:g}%, so inside decides nothing; to reach it{more} if the width is "
                    "statistical, or a ladder to larger n if it comes from the finite-size model")
            out.append(entry)
        return out

    def as_dict(self) -> dict[str, list]:
        """``mean``, ``se`` (lists over n of lists over gamma), ``limit``, ``limit_lo``, ``limit_hi``,
        ``half_width``, ``exponent``, ``theory`` and ``agrees`` (lists over gamma); non-finite numbers become
        None."""
        return {"mean": _plain(self.mean), "se": _plain(self.se), "limit": _plain(self.limit),
                "limit_lo": _plain(self.limit_lo), "limit_hi": _plain(self.limit_hi),
                "half_width": _plain(self.half_width), "exponent": _plain(self.exponent),
                "theory": _plain(self.theory), "agrees": [bool(a) for a in self.agrees]}


@dataclass(frozen=True, eq=False)
class Convergence:
    r"""A ladder of Monte Carlo sizes, each quantity extrapolated to :math:`n = \infty`, beside the theory.

    Attributes
    ----------
    gamma : numpy.ndarray
        Ridge parameters, shape ``(G,)``.
    ns, seeds : numpy.ndarray
        The sizes (increasing) and the seeds at each, shape ``(K,)``.
    attention, linear, gap : LadderFit
        :math:`E_{\rm attn}`, :math:`E_{\rm lin}` and the paired gap :math:`E_{\rm attn} - E_{\rm lin}`.
    simulations : tuple of SimulationResult
        The runs of :func:`symrmt.simulate`, one per size (with the per-seed draws).
    seconds : numpy.ndarray
        Wall-clock time of each size's run, shape ``(K,)`` (how the cost was spread over the ladder).
    seed_seconds : numpy.ndarray
        The measured seconds per seed of each size, shape ``(K,)``, by which the seeds were allocated
        (:func:`seed_cost`; the largest size: its run; NaN where the seeds were given).
    target : float
        The relative half-width of the interval below which the ladder decides (:meth:`LadderFit.decisions`).
    c, d : float
        Ratio p/n and the diagonal of K.
    seed : int
        The root seed (:func:`size_seed`).
    f : str
        The nonlinearity, as simulated (softmax attention: ``"softmax, tau = T (theory: f)"``).

    Examples
    --------
    A ladder far too small to decide anything (a real one is :data:`DEFAULT_NS`), read field by field:

    >>> from symrmt import converge
    >>> res = converge("tanh(x)", 1.0, [1.0], ns=[32, 64, 128], seeds=[4, 3, 2], progress=False)
    >>> res.ns.tolist(), res.seeds.tolist(), [fit.name for fit in res.quantities], res.attention.mean.shape
    ([32, 64, 128], [4, 3, 2], ['attention', 'linear', 'gap'], (3, 1))
    >>> round(float(res.linear.theory[0]), 4), bool(res.linear.limit_lo[0] < res.linear.limit_hi[0])
    (0.4472, True)
    >>> res.decisions()["attention"][0]["decision"]        # 9 seeds: an interval much wider than 3%
    'undecided'
    >>> res.to_csv().split(",")[:3]
    ['quantity', 'gamma', 'limit']
    """

    gamma: np.ndarray
    ns: np.ndarray
    seeds: np.ndarray
    attention: LadderFit
    linear: LadderFit
    gap: LadderFit
    simulations: tuple
    seconds: np.ndarray
    c: float
    d: float
    seed: int
    f: str
    seed_seconds: np.ndarray = None
    target: float = DEFAULT_TARGET

    @property
    def quantities(self) -> tuple[LadderFit, LadderFit, LadderFit]:
        """``(attention, linear, gap)``."""
        return self.attention, self.linear, self.gap

    def decisions(self) -> dict[str, list[dict[str, Any]]]:
        """:meth:`LadderFit.decisions` of every quantity at this ladder's target, seeds and time."""
        total = float(np.sum(self.seconds))
        return {fit.name: fit.decisions(self.target, [int(k) for k in self.seeds], total) for fit in self.quantities}

    def as_dict(self) -> dict[str, Any]:
        """The JSON of ``symrmt converge --json``: ``gamma``, ``ns``, ``seeds``, ``seed_seconds``, ``seconds``,
        ``target``, one block per quantity (:meth:`LadderFit.as_dict`, with its ``decisions``); never NaN."""
        decisions = self.decisions()
        return {"gamma": _plain(self.gamma), "ns": [int(n) for n in self.ns], "seeds": [int(k) for k in self.seeds],
                "seed_seconds": _plain(self.seed_seconds), "seconds": _plain(self.seconds), "target": self.target,
                **{fit.name: {**fit.as_dict(), "decisions": decisions[fit.name]} for fit in self.quantities}}

    def to_csv(self, path=None) -> str:
        """CSV, one row per quantity and gamma: the limit, its interval, the fit, the theory, then
        ``mean_<n>`` and ``se_<n>`` for every size; written to ``path`` if given."""
        return convergence_csv(self, path)

    def _repr_html_(self) -> str:
        return convergence_html(self)


def size_seed(seed: int, n: int) -> int:
    """The root seed of size ``n``: the first word of ``SeedSequence(seed, spawn_key=(n,))``.

    >>> size_seed(0, 256) == size_seed(0, 256) != size_seed(0, 512)
    True
    """
    return int(np.random.SeedSequence(seed, spawn_key=(int(n),)).generate_state(1)[0])


def ladder_seeds(ns: Sequence[int], top: int = DEFAULT_SEEDS, costs: Sequence[float] | None = None) -> np.ndarray:
    r"""Seeds per size so that each size costs about the same: :math:`\lceil s\, t_K/t(n)\rceil`, at least 2 and at
    most :data:`MAX_SEEDS`, where ``top`` = :math:`s` is the number at the largest size and ``costs`` the measured
    seconds per seed :math:`t(n)` of each size (module docstring). Without ``costs``, :math:`t(n) \propto n^2`,
    the cost of the products at large n (an approximation that gives small sizes too many seeds: they are
    overhead-bound).

    >>> ladder_seeds([256, 512, 1024, 2048, 4096]).tolist()
    [1536, 384, 96, 24, 6]
    >>> ladder_seeds([256, 512, 1024], 4, costs=[0.02, 0.05, 0.2]).tolist()
    [40, 16, 4]
    """
    ns = np.asarray(ns, dtype=np.float64)
    cost = ns**2 if costs is None else np.asarray(costs, dtype=np.float64)
    if cost.shape != ns.shape or not np.all(np.isfinite(cost)) or np.any(cost <= 0):
        raise ParameterError(f"costs = {_shown(costs)}: give one positive time per size.")
    wanted = np.ceil(top * cost[np.argmax(ns)] / cost - 1e-9)
    return np.clip(wanted, 2, max(MAX_SEEDS, top)).astype(np.int64)   # a top over MAX_SEEDS needs allow_long


def ladder_estimate(ns: Sequence[int], counts: Sequence[int], measured: bool, seconds: float,
                    probed: int | None = None) -> float:
    r"""Seconds a ladder is expected to take, from ``seconds`` per seed measured at size ``probed`` (default the
    second largest): a seed at n costs :math:`t\,\max(1, (n/n_{
m probed})^3)` (pessimistic: the reductions are
    cubic, and a smaller n never costs more than a larger one); with ``measured`` each size costs about what the
    largest one does (``counts[-1]`` seeds there, module docstring), else ``counts`` are the seeds of each size.

    >>> ladder_estimate([256, 512, 1024], [3, 3, 3], False, 0.01), ladder_estimate([256, 512, 1024], [3], True, 0.01)
    (0.3, 0.72)
    """
    ns = np.asarray(ns, dtype=np.float64)
    probed = ns[-2] if probed is None else probed
    per_seed = seconds * np.maximum(1.0, (ns / probed) ** 3)
    if measured:
        return float(ns.size * counts[-1] * per_seed[-1])
    return float(np.sum(np.asarray(counts, dtype=np.float64) * per_seed))


def _check_memory(n: int, c: float, seeds: int, gammas: int, method: str) -> None:
    """Refuse a ladder whose largest size would not fit in memory, before the smaller sizes run."""
    from ..simulation.memory import memory_estimate  # heavy: SciPy

    if method in ("auto", "exact", "tridiagonal", "lanczos") and np.isfinite(c * n) and 1 <= c * n < 2**40:
        check_fits(memory_estimate(int(n), max(3, int(round(c * n))), int(seeds), gammas, method),
                   f"n = {int(n)}, the largest size of the ladder,", "Use smaller sizes or a smaller c.")


def _check_cost(ns: np.ndarray, counts: np.ndarray, measured: bool, seconds: float) -> None:
    """Refuse a ladder over :data:`MAX_SEEDS` seeds at a size or over :data:`MAX_SECONDS`, with its estimate."""
    estimate = ladder_estimate(ns, counts, measured, seconds)
    if int(np.max(counts)) <= MAX_SEEDS and estimate <= MAX_SECONDS:
        return
    over = (f"seeds = {int(np.max(counts))} at a size, over the cap of {MAX_SEEDS}" if np.max(counts) > MAX_SEEDS
            else f"this ladder (n = {', '.join(str(int(n)) for n in ns)}) exceeds the cap of {_duration(MAX_SECONDS)}")
    raise ParameterError(f"{over}: it would take about {_duration(estimate)} here ({seconds:.3g} s per seed at "
                         f"n = {int(ns[-2])}). Use fewer seeds or smaller sizes, or pass allow_long=True "
                         "(--allow-long) to run it.")


def seed_cost(run: Callable[[int], Any]) -> float:
    """Seconds per seed of ``run(seeds)`` (a call of :func:`symrmt.simulate`), measured here: 2, 4, 8, ... seeds
    until a call has taken :data:`PROBE_SECONDS` or ran :data:`PROBE_SEEDS` seeds; the last call's time per seed
    (the fixed cost of a call is then spread over its seeds)."""
    count = 2
    while True:
        start = time.perf_counter()
        run(count)
        elapsed = time.perf_counter() - start
        if elapsed >= PROBE_SECONDS or count >= PROBE_SEEDS:
            return elapsed / count
        count *= 2


def converge(f, c: float, gamma, *, geometry=None, gram=None, d: float = 0.0, ns: Sequence[int] | None = None,
             seeds: int | Sequence[int] | None = None, seed: int = 0, method: str = "auto",
             progress: bool = True, params: Mapping[str, float] | None = None, attention: str = "entrywise",
             temperature: float | None = None, normalize: str | None = None,
             target: float = DEFAULT_TARGET, allow_long: bool = False) -> Convergence:
    r"""Simulate a ladder of sizes and extrapolate :math:`E_{\rm attn}`, :math:`E_{\rm lin}` and their gap to :math:`n = \infty`.

    Parameters
    ----------
    f : str, sympy.Expr, callable, HermiteCoefficients or None
        The nonlinearity, centered (:math:`a_0 = 0`); pass ``hermite(f, center=True)`` to center
        one. The theory uses its Hermite data and the simulation the same function. ``None`` with
        ``attention="softmax"``.
    c : float
        :math:`p/n`.
    gamma : float or array_like
        Ridge parameters, positive (a 1-d list).
    geometry, gram
        The geometry of :math:`(\mu, w_K, w_Q)` as a :class:`~symrmt.Geometry`, or the Gram matrix
        of :math:`(\mu, w_K^{(1..r)}, w_Q^{(1..r)})`; neither: no signal and no weights.
    d : float
        The diagonal of :math:`K`.
    ns : sequence of int, optional
        At least three distinct sizes (default :data:`DEFAULT_NS`).
    seeds : int or sequence of int, optional
        An int: the seeds at the largest size, the others by their cost measured here (:func:`ladder_seeds`,
        :func:`seed_cost`; default :data:`DEFAULT_SEEDS`); a sequence: the seeds of each size, in the order of
        ``ns`` (exactly reproducible).
    seed : int
        Root seed; size n uses ``simulate(seed=size_seed(seed, n))``.
    method : {"auto", "exact", "tridiagonal", "lanczos"}
        As in :func:`symrmt.simulate` (every method gives the same numbers to about 1e-8).
    progress : bool
        Progress bars on stderr (a terminal only, after 2 s).
    params : dict, optional
        One value per symbolic parameter of f, e.g. ``{"s": 2.0}`` for ``"tanh(s*x)"``.
    attention, temperature, normalize
        ``attention="softmax"`` simulates softmax attention at ``temperature`` (default 1), normalized over
        the keys (default) or the queries (:func:`symrmt.simulate`), against
        :func:`symrmt.theory.softmax.softmax_error`; f must be ``None``.
    target : float
        The relative half-width of the 95% interval of :math:`E_\infty` below which the ladder decides
        (default 3%; :meth:`Convergence.decisions`).
    allow_long : bool
        Run a ladder with more than :data:`MAX_SEEDS` seeds at a size, or estimated to take more than
        :data:`MAX_SECONDS` (:func:`ladder_estimate`); without it such a ladder is refused before its long part.

    Returns
    -------
    Convergence

    Raises
    ------
    ParameterError
        Fewer than three sizes, repeated sizes, seeds below 2, a ladder over the caps without ``allow_long``,
        or what :func:`symrmt.simulate` and the theory refuse (checked by the theory, and by the largest size first, before the
        long part of the run).

    See Also
    --------
    symrmt.simulate : One size of the ladder.
    symrmt.attention_error : The limit the extrapolation is compared with.

    Examples
    --------
    >>> res = converge("tanh(x)", 1.0, [0.1, 1.0], ns=[64, 128, 256], seeds=[8, 4, 3], progress=False)
    >>> res.seeds.tolist(), len(res.attention.limit), sorted(res.decisions()["attention"][0])[:2]
    ([8, 4, 3], 2, ['decision', 'half_width'])
    """
    from ..simulation import simulate  # heavy: SciPy
    from ..theory import linear_error  # heavy: SymPy

    attention_theory, simulated, kind, label = _nonlinearity(f, params, attention, temperature, normalize)
    # one c (a list of c would reach the theory, broadcast against gamma, and be blamed on gamma's shape)
    c = validate.positive_scalar("c", c, "converge runs one c = p/n; call it once per c.")
    ns, counts, measured = _ladder(ns, seeds)
    seed = validate.seed(seed)
    allow_long = validate.boolean("allow_long", allow_long)
    if isinstance(target, bool) or not isinstance(target, (int, float, np.floating)) or not 0 < target < 1:
        raise ParameterError(f"target = {_shown(target)}: give the relative half-width as a number in (0, 1), "
                             "e.g. 0.03.")
    theory_attention = np.atleast_1d(attention_theory(c, gamma, geometry, d, gram)).astype(np.float64)
    theory_linear = np.atleast_1d(linear_error(c, gamma, geometry, gram=gram)).astype(np.float64)
    grid = np.atleast_1d(np.asarray(gamma, dtype=np.float64))
    if grid.ndim != 1 or theory_attention.shape != grid.shape:
        raise ParameterError(f"gamma has shape {np.shape(gamma)}: give a positive number or a 1-d list of them.")
    runs, seconds, per_seed = {}, {}, {}

    def run(n: int, count: int):
        return simulate(simulated, int(n), c, grid, geometry, d, seeds=int(count), seed=size_seed(seed, n),
                        gram=gram, method=method, progress=progress, **kind)

    _check_memory(ns[-1], c, counts[-1], grid.size, method)
    # One short call first takes the once-per-process costs (f's compilation, the BLAS threads' calibration)
    # out of the timings; then a probe at the second largest size gives the estimate of the whole ladder (and
    # that size's cost, where the seeds are allocated by cost).
    run(ns[-2], 2)
    per_seed[ns[-2]] = seed_cost(lambda k: run(ns[-2], k))
    if not allow_long:
        _check_cost(ns, counts, measured, per_seed[ns[-2]])
    # The largest size first: its run measures the cost per seed that the smaller sizes are matched to.
    for index, n in progress_bar(list(enumerate(ns))[::-1], desc="converge", unit="size", enabled=progress):
        if measured and index < len(ns) - 1:
            # A smaller size never costs more per seed than a larger one: a probe slowed by a busy machine
            # is capped, so the seeds never grow with n.
            probed = per_seed[n] if n == ns[-2] else seed_cost(lambda k, n=n: run(n, k))
            per_seed[n] = min(probed, per_seed[ns[index + 1]])
            counts[index] = ladder_seeds([n, ns[-1]], int(counts[-1]), [per_seed[n], per_seed[ns[-1]]])[0]
        start = time.perf_counter()
        runs[n] = run(n, counts[index])
        seconds[n] = time.perf_counter() - start
        if measured and index == len(ns) - 1:
            per_seed[n] = seconds[n] / counts[index]
    simulations = tuple(runs[n] for n in ns)
    draws = {"attention": [r.attention_per_seed for r in simulations],
             "linear": [r.linear_per_seed for r in simulations]}
    draws["gap"] = [a - b for a, b in zip(draws["attention"], draws["linear"])]
    theory = {"attention": theory_attention, "linear": theory_linear, "gap": theory_attention - theory_linear}
    fits = {name: _ladder_fit(name, index, ns, counts, draws[name], theory[name], seed)
            for index, name in enumerate(QUANTITIES)}
    return Convergence(gamma=_frozen(grid), ns=_frozen(ns, np.int64), seeds=_frozen(counts, np.int64), **fits,
                       simulations=simulations, seconds=_frozen([seconds[n] for n in ns]),
                       c=float(simulations[0].c), d=float(simulations[0].d), seed=int(seed), f=label,
                       seed_seconds=_frozen([per_seed.get(n, np.nan) if measured else np.nan for n in ns]), target=float(target))


def _nonlinearity(f, params: Mapping[str, float] | None, attention: str, temperature: float | None,
                  normalize: str | None = None) -> tuple[Callable, Any, dict, str]:
    """``(the theory of E_attn as a function of (c, gamma, geometry, d, gram), the f to simulate, simulate's
    attention keywords, the label)``.

    Entrywise: the same, centered f for both, at the values ``params`` of its parameters (converge simulates
    one f). Softmax: :func:`symrmt.theory.softmax.softmax_error` and f = None.
    """
    from ..theory import attention_error  # heavy: SymPy
    from ..nonlinearity import HermiteCoefficients, hermite  # heavy: SymPy
    from ..nonlinearity.parametric import named_values  # heavy: SymPy
    from ..theory.softmax import softmax_error, softmax_formula  # heavy: theory

    if validate.choice("attention", attention, ATTENTIONS) == "softmax":
        if f is not None or params is not None:
            raise ParameterError(f"f = {f!r}, params = {params!r}: softmax attention fixes f; pass f=None and no params.")
        tau = validate.temperature(temperature)

        def theory(c, gamma, geometry, d, gram):       # d is 0: softmax masks the diagonal (simulate checks it)
            return softmax_error(c, gamma, temperature=tau, geometry=geometry, gram=gram)

        kind = {"attention": "softmax", "temperature": tau, **({"normalize": normalize} if normalize else {})}
        over = "" if normalize in (None, "keys") else ", over the queries"
        return theory, None, kind, f"softmax, tau = {tau:g}{over} (theory: {softmax_formula(tau)})"
    if temperature is not None or normalize is not None:
        raise ParameterError("temperature and normalize apply to attention='softmax' only.")
    h = f if isinstance(f, HermiteCoefficients) else hermite(f)
    if h.parameters or params is not None:
        h = h.at(**named_values(params, [s.name for s in h.parameters], h.f))
    return (lambda c, gamma, geometry, d, gram: attention_error(h, c, gamma, geometry, d, gram=gram)), h.f, {}, str(h.f)


def _ladder(ns: Sequence[int] | None, seeds: int | Sequence[int] | None) -> tuple[np.ndarray, np.ndarray, bool]:
    """Validated sizes (increasing), the seeds of each (an int: the largest size's, the others to be measured),
    and whether they are to be allocated by measured cost."""
    try:
        sizes = np.asarray(DEFAULT_NS if ns is None else ns)
    except (TypeError, ValueError):          # a ragged nested list
        sizes = np.asarray(None)
    if sizes.ndim != 1 or sizes.size < 3 or sizes.dtype.kind not in "iu":
        raise ParameterError(f"ns = {_shown(ns)}: give at least three integer sizes, e.g. [512, 1024, 2048, 4096].")
    if np.unique(sizes).size != sizes.size or np.any(sizes < 2):
        raise ParameterError(f"ns = {sizes.tolist()}: the sizes must be distinct integers >= 2.")
    order = np.argsort(sizes)
    try:
        counts = None if seeds is None else np.asarray(seeds)
    except (TypeError, ValueError):          # a ragged nested list
        counts = np.asarray([None])
    if counts is None or counts.ndim == 0:
        top = DEFAULT_SEEDS if seeds is None else seeds
        top = validate.seed_count(top, 2, hint=f"(the seeds at the largest size; {validate.TWO_SEEDS})")
        return sizes[order].astype(np.int64), np.full(sizes.size, int(top), dtype=np.int64), True
    if counts.shape != sizes.shape or counts.dtype.kind not in "iu" or np.any(counts < 2) \
            or np.any(counts > validate.MAX_GRID_POINTS):
        raise ParameterError(f"seeds = {_shown(seeds)}: give one integer in 2..{validate.MAX_GRID_POINTS} per size "
                             f"({sizes.size} sizes); {validate.TWO_SEEDS}.")
    return sizes[order].astype(np.int64), counts[order].astype(np.int64), False


def _ladder_fit(name: str, index: int, ns: np.ndarray, counts: np.ndarray, per_seed: list[np.ndarray],
                theory: np.ndarray, seed: int) -> LadderFit:
    """Per-size summaries and one extrapolation per gamma (each with its own bootstrap stream)."""
    summaries = [mean_se(values) for values in per_seed]
    mean = np.array([m for m, _ in summaries])
    se = np.array([s for _, s in summaries])
    fits = tuple(
        extrapolate(ns, mean[:, g], se[:, g], counts,
                    rng=np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(0, index, g))))
        for g in range(mean.shape[1]))
    return LadderFit(name, _frozen(mean), _frozen(se), fits, _frozen(theory))


def _duration(seconds: float) -> str:
    """``"40 s"``, ``"12 min"`` or ``"3.5 h"``."""
    if seconds < 120:
        return f"{seconds:.0f} s"
    return f"{seconds / 60:.0f} min" if seconds < 7200 else f"{seconds / 3600:.1f} h"


def _frozen(array, dtype=np.float64) -> np.ndarray:
    array = np.array(array, dtype=dtype)
    array.setflags(write=False)
    return array


def _plain(array: np.ndarray) -> list:
    """A nested list of floats, with None for NaN or inf (JSON has no NaN)."""
    values = np.asarray(array, dtype=np.float64)
    if values.ndim == 0:
        return float(values) if np.isfinite(values) else None
    return [_plain(v) for v in values]

