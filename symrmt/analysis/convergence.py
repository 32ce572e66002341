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

Seeds per size. The cost of one seed of ``simulate(method="auto")`` grows about like
:math:`n^2` from n = 256 to 4096 on a 2-core machine (a factor 3 to 6 per doubling:
matrix-vector products below 2048, GEMMs and reductions above; measured by
``benchmarks/bench_converge.py``, docs/performance.md), so :func:`ladder_seeds` gives size
:math:`n` the seeds :math:`\lceil s\,(n_K/n)^2 \rceil`, capped at :data:`MAX_SEEDS`, where
:math:`s` is the number at the largest size (default 6): each size then costs about the
same. Size :math:`n` draws from ``simulate(seed=size_seed(seed, n))``, a root that depends
only on ``seed`` and n, so the sizes are independent and a size's draws do not depend on
the rest of the ladder.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from ..errors import ParameterError
from .finite_size import Extrapolation, extrapolate
from ..runtime.progress import progress_bar
from .seeds import mean_se

__all__ = ["Convergence", "LadderFit", "converge", "ladder_seeds", "size_seed", "DEFAULT_NS", "DEFAULT_SEEDS",
           "MAX_SEEDS", "QUANTITIES"]

#: The default ladder of sizes.
DEFAULT_NS = (256, 512, 1024, 2048, 4096)

#: Seeds at the largest size by default.
DEFAULT_SEEDS = 6

#: The cost of one seed grows about like n**COST_EXPONENT over the default ladder (module docstring).
COST_EXPONENT = 2.0

#: No size gets more seeds than this (a small n next to a large one would otherwise get tens of thousands).
MAX_SEEDS = 2000

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

    def as_dict(self) -> dict[str, list]:
        """``mean``, ``se`` (lists over n of lists over gamma), ``limit``, ``limit_lo``, ``limit_hi``,
        ``exponent``, ``theory`` and ``agrees`` (lists over gamma); non-finite numbers become None."""
        return {"mean": _plain(self.mean), "se": _plain(self.se), "limit": _plain(self.limit),
                "limit_lo": _plain(self.limit_lo), "limit_hi": _plain(self.limit_hi),
                "exponent": _plain(self.exponent), "theory": _plain(self.theory),
                "agrees": [bool(a) for a in self.agrees]}


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
    c, d : float
        Ratio p/n and the diagonal of K.
    seed : int
        The root seed (:func:`size_seed`).
    f : str
        The nonlinearity, as simulated (softmax attention: ``"softmax, tau = T (theory: f)"``).
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

    @property
    def quantities(self) -> tuple[LadderFit, LadderFit, LadderFit]:
        """``(attention, linear, gap)``."""
        return self.attention, self.linear, self.gap

    def as_dict(self) -> dict[str, Any]:
        """The JSON of ``symrmt converge --json``: ``gamma``, ``ns`` and one block per quantity
        (:meth:`LadderFit.as_dict`); never NaN."""
        return {"gamma": _plain(self.gamma), "ns": [int(n) for n in self.ns],
                **{fit.name: fit.as_dict() for fit in self.quantities}}

    def to_csv(self, path=None) -> str:
        """CSV, one row per quantity and gamma: the limit, its interval, the fit, the theory, then
        ``mean_<n>`` and ``se_<n>`` for every size; written to ``path`` if given."""
        from ..presentation.display import convergence_csv

        return convergence_csv(self, path)

    def _repr_html_(self) -> str:
        from ..presentation.display import convergence_html

        return convergence_html(self)


def size_seed(seed: int, n: int) -> int:
    """The root seed of size ``n``: the first word of ``SeedSequence(seed, spawn_key=(n,))``.

    >>> size_seed(0, 256) == size_seed(0, 256) != size_seed(0, 512)
    True
    """
    return int(np.random.SeedSequence(seed, spawn_key=(int(n),)).generate_state(1)[0])


def ladder_seeds(ns: Sequence[int], top: int = DEFAULT_SEEDS) -> np.ndarray:
    r"""Seeds per size so that each size costs about the same: :math:`\lceil s\,(n_K/n)^2\rceil`, at most
    :data:`MAX_SEEDS` (module docstring); ``top`` = :math:`s` is the number at the largest size.

    >>> ladder_seeds([256, 512, 1024, 2048, 4096]).tolist()
    [1536, 384, 96, 24, 6]
    """
    ns = np.asarray(ns, dtype=np.float64)
    wanted = np.ceil(top * (ns.max() / ns) ** COST_EXPONENT - 1e-9)
    return np.minimum(wanted, max(MAX_SEEDS, top)).astype(np.int64)


def converge(f, c: float, gamma, *, geometry=None, gram=None, d: float = 0.0, ns: Sequence[int] | None = None,
             seeds: int | Sequence[int] | None = None, seed: int = 0, method: str = "auto",
             progress: bool = True, params: Mapping[str, float] | None = None, attention: str = "entrywise",
             temperature: float | None = None, normalize: str | None = None) -> Convergence:
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
        An int: the seeds at the largest size, the others by :func:`ladder_seeds` (default
        :data:`DEFAULT_SEEDS`); a sequence: the seeds of each size, in the order of ``ns``.
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

    Returns
    -------
    Convergence

    Raises
    ------
    ParameterError
        Fewer than three sizes, repeated sizes, seeds below 2, or what :func:`symrmt.simulate`
        and the theory refuse (checked by the theory, and by the largest size first, before the
        long part of the run).

    Examples
    --------
    >>> res = converge("tanh(x)", 1.0, [0.1, 1.0], ns=[64, 128, 256], seeds=3, progress=False)
    >>> res.seeds.tolist(), len(res.attention.limit), sorted(res.as_dict())
    ([48, 12, 3], 2, ['attention', 'gamma', 'gap', 'linear', 'ns'])
    """
    from .. import linear_error, simulate

    attention_theory, simulated, kind, label = _nonlinearity(f, params, attention, temperature, normalize)
    ns, counts = _ladder(ns, seeds)
    theory_attention = np.atleast_1d(attention_theory(c, gamma, geometry, d, gram)).astype(np.float64)
    theory_linear = np.atleast_1d(linear_error(c, gamma, geometry, gram=gram)).astype(np.float64)
    grid = np.atleast_1d(np.asarray(gamma, dtype=np.float64))
    if grid.ndim != 1 or theory_attention.shape != grid.shape:
        raise ParameterError(f"gamma has shape {np.shape(gamma)}: give a positive number or a 1-d list of them.")
    runs, seconds = {}, {}
    for n, count in progress_bar(list(zip(ns[::-1], counts[::-1])), desc="converge", unit="size", enabled=progress):
        start = time.perf_counter()
        runs[n] = simulate(simulated, int(n), c, grid, geometry, d, seeds=int(count), seed=size_seed(seed, n),
                           gram=gram, method=method, progress=progress, **kind)
        seconds[n] = time.perf_counter() - start
    simulations = tuple(runs[n] for n in ns)
    per_seed = {"attention": [r.attention_per_seed for r in simulations],
                "linear": [r.linear_per_seed for r in simulations]}
    per_seed["gap"] = [a - b for a, b in zip(per_seed["attention"], per_seed["linear"])]
    theory = {"attention": theory_attention, "linear": theory_linear, "gap": theory_attention - theory_linear}
    fits = {name: _ladder_fit(name, index, ns, counts, per_seed[name], theory[name], seed)
            for index, name in enumerate(QUANTITIES)}
    return Convergence(gamma=_frozen(grid), ns=_frozen(ns, np.int64), seeds=_frozen(counts, np.int64), **fits,
                       simulations=simulations, seconds=_frozen([seconds[n] for n in ns]),
                       c=float(simulations[0].c), d=float(simulations[0].d), seed=int(seed), f=label)


def _nonlinearity(f, params: Mapping[str, float] | None, attention: str, temperature: float | None,
                  normalize: str | None = None) -> tuple[Callable, Any, dict, str]:
    """``(the theory of E_attn as a function of (c, gamma, geometry, d, gram), the f to simulate, simulate's
    attention keywords, the label)``.

    Entrywise: the same, centered f for both, at the values ``params`` of its parameters (converge simulates
    one f). Softmax: :func:`symrmt.theory.softmax.softmax_error` and f = None.
    """
    from .. import attention_error, validate
    from ..nonlinearity import HermiteCoefficients, hermite
    from ..nonlinearity.parametric import named_values
    from ..simulation.softmax import ATTENTIONS
    from ..theory.softmax import softmax_error, softmax_formula

    if validate.choice("attention", attention, ATTENTIONS) == "softmax":
        if f is not None or params is not None:
            raise ParameterError(f"f = {f!r}, params = {params!r}: softmax attention fixes f; pass f=None and no params.")
        tau = validate.temperature(1.0 if temperature is None else temperature)

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


def _ladder(ns: Sequence[int] | None, seeds: int | Sequence[int] | None) -> tuple[np.ndarray, np.ndarray]:
    """Validated sizes (increasing) and the seeds of each."""
    sizes = np.asarray(DEFAULT_NS if ns is None else ns)
    if sizes.ndim != 1 or sizes.size < 3 or sizes.dtype.kind not in "iu":
        raise ParameterError(f"ns = {_shown(ns)}: give at least three integer sizes, e.g. [512, 1024, 2048, 4096].")
    if np.unique(sizes).size != sizes.size or np.any(sizes < 2):
        raise ParameterError(f"ns = {sizes.tolist()}: the sizes must be distinct integers >= 2.")
    order = np.argsort(sizes)
    if seeds is None or np.ndim(seeds) == 0:
        top = DEFAULT_SEEDS if seeds is None else seeds
        if isinstance(top, bool) or not isinstance(top, (int, np.integer)) or top < 2:
            raise ParameterError(f"seeds = {seeds!r}: give an integer >= 2 (the seeds at the largest size).")
        return sizes[order].astype(np.int64), ladder_seeds(sizes[order], int(top))
    counts = np.asarray(seeds)
    if counts.shape != sizes.shape or counts.dtype.kind not in "iu" or np.any(counts < 2):
        raise ParameterError(f"seeds = {_shown(seeds)}: give one integer >= 2 per size ({sizes.size} sizes).")
    return sizes[order].astype(np.int64), counts[order].astype(np.int64)


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


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:80] + "..."
