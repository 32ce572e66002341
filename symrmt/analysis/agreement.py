r"""Whether a Monte Carlo agrees with the theory: a standardized difference and a verdict per point.

At each point (a quantity, :math:`E_{\rm attn}` or :math:`E_{\rm lin}`, at one ridge :math:`\gamma`) the
Monte Carlo gives a mean :math:`\bar E` over :math:`s` seeds with standard error :math:`\mathrm{se}`, and
the theory a number :math:`E_\infty`. The standardized difference is

.. math::

    z = \frac{\bar E - E_\infty}{\mathrm{se}}, \qquad
    |z| \le t = t_{0.975,\ s-1} \quad\Longleftrightarrow\quad E_\infty \in \text{the 95\% Student-}t
    \text{ interval of the mean},

the Student quantile because :math:`\mathrm{se}` is itself estimated from :math:`s` seeds
(:func:`symrmt.simulation.seeds.t_quantile`: 3.18 for 4 seeds against 1.96 for many). Every verdict states its
power, the probability that its seeds detect a 3% miss at its n (:func:`verdict_power`); 4 seeds at n = 1024
have 0.13, :data:`VERDICT_SEEDS` = 27 have 0.82. The verdict of a point:

``"agrees"``
    :math:`|z| \le t`.
``"finite-size gap"``
    :math:`|z| > t`, and the package has evidence of a finite-size gap at that point: a measured rate
    (:class:`FiniteSizeRate`, from a ``converge`` ladder of that setting, :func:`rates_from`) whose
    extrapolated gap :math:`g(n) = \sum_i b_i n^{-\alpha_i}`, with its standard error :math:`\mathrm{se}_g`,
    covers the miss: :math:`|\bar E - E_\infty - g(n)| \le t\,\sqrt{\mathrm{se}^2 + \mathrm{se}_g^2}`,
    and the ladder is decisive: the 95% half-width :math:`1.96\,\mathrm{se}_g` of its limit is at most
    ``converge``'s target, 3% of :math:`E_\infty` (:data:`symrmt.analysis.convergence.DEFAULT_TARGET`).
    The ladder measures :math:`E(n)` against its own extrapolated limit, not against the theory, so a wrong
    theory leaves :math:`\bar E - g(n)` at the true limit, away from it: the verdict keeps its power.
``"undecided"``
    :math:`|z| > t` in a known slow regime (:func:`slow_regimes`, named in the verdict) where no rate is
    given, or with a rate that covers the miss but is not decisive: one size cannot tell a finite-size gap
    from an error in the theory, and the verdict carries the ``symrmt converge`` command that measures the
    rate (:mod:`.convergence`).
``"disagrees"``
    :math:`|z| > t` outside every known slow regime without a rate, or beyond the gap a measured rate
    explains. No allowance is fitted to the package's own runs: the fast regimes' largest resolved bias,
    1.7% at n = 256 and 1.3% from n = 1024 on (docs/validation.md, "Finite size"), is below
    :math:`t\,\mathrm{se}` of the seeds a verdict needs (:func:`verdict_seeds`: 2.1% at n = 1024 with 27
    seeds), and a run with more seeds that resolves it calls it a disagreement until a ladder measures its
    rate.

The overall verdict accounts for the number :math:`m` of points judged: about 5% of them fall outside
their 95% interval by chance alone, so a point counts against the whole only beyond the family-wise
(Bonferroni) quantile :math:`t_{1 - 0.025/m,\ s-1}`; the overall verdict is the worst verdict of those
points, and ``"agrees"`` when there is none. NumPy and SciPy only; the theory's numbers are given to it.
"""
from __future__ import annotations

import dataclasses
import math
import shlex
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from .. import validate
from ..errors import ParameterError
from .convergence import DEFAULT_TARGET
from ..simulation.seeds import t_quantile

__all__ = ["Agreement", "QuantityAgreement", "FiniteSizeRate", "VERDICTS", "LEVEL", "VERDICT_SEEDS", "judge",
           "slow_regimes", "rates_from", "verdict_power", "verdict_seeds", "converge_command", "agreement_of",
           "attach_theory"]

#: The verdicts, from the best to the worst; ``"no theory"`` marks a point where the solver gave no number.
VERDICTS = ("agrees", "finite-size gap", "undecided", "disagrees")

#: Level of the two-sided Student-t interval of each point.
LEVEL = 0.95

#: theta'^2/p above this: a strong low-rank part (docs/validation.md, "Finite size": both slow regimes there
#: are governed by theta'^2/p, 0.25 to 0.4 at the bottom of their ladders; the fast rows stay below 0.02).
STRONG_LOW_RANK = 0.05

#: A ridge gamma <= SMALL_RIDGE * nu at c within a factor 2 of 1 is near the interpolation edge (docs/validation.md:
#: the largest misses of the grid sit at gamma = 0.01, c = 1, i.e. gamma/nu = 0.0017 to 0.025).
SMALL_RIDGE = 0.03

#: The seeds a verdict needs so that a 3% miss of E_attn is detected with power 0.8 at n = 1024: the test
#: |z| > t_{0.975, s-1} against a shift of 3% of E has the power of a noncentral t. The per-seed standard deviation
#: of E_attn at n = 1024, gamma = 0.1 and 1, is 2.1% to 5.3% of E in the fast regimes measured (tanh, c = 1:
#: noise, signal, aligned weights; 16 seeds each; docs/validation.md, "How many seeds a verdict needs"); at the
#: worst, 5.3%, 27 seeds give power 0.82 (4 seeds: 0.13). At gamma = 0.01 the sd is 6.5% to 8.0% and 27 seeds
#: give 0.47. The sd scales as n^-1/2 (11.2% -> 5.3% from n = 256 to 1024 at gamma = 0.1), so the same power
#: needs about 27 * 1024/n seeds at other n (:func:`verdict_seeds`).
VERDICT_SEEDS = 27

#: The worst relative per-seed sd of E_attn at n = 1024, gamma >= 0.1, behind :data:`VERDICT_SEEDS`.
RELATIVE_SD_1024 = 0.0525


def verdict_power(seeds: int, *, n: int = 1024, miss: float = 0.03, relative_sd: float = RELATIVE_SD_1024) -> float:
    r"""The probability that a relative ``miss`` of the theory is outside the 95% t interval of ``seeds`` seeds.

    The per-seed sd at size n is taken as ``relative_sd`` :math:`\cdot\sqrt{1024/n}` of E (its scaling in
    n); the test :math:`|z| > t_{0.975,\,s-1}` then has the power of a noncentral t with noncentrality
    :math:`\delta = \text{miss}\,\sqrt s / \text{sd}`.

    >>> round(verdict_power(VERDICT_SEEDS), 2), round(verdict_power(4), 2)
    (0.82, 0.13)
    """
    from scipy import stats  # heavy: SciPy

    if isinstance(seeds, bool) or int(seeds) != seeds or seeds < 2:
        raise ParameterError(f"seeds = {seeds!r}: {validate.TWO_SEEDS}.")
    seeds = int(seeds)
    sd = relative_sd * math.sqrt(1024.0 / n)
    delta = miss * math.sqrt(seeds) / sd
    t = float(t_quantile(seeds, LEVEL))
    return float(stats.nct.sf(t, seeds - 1, delta) + stats.nct.cdf(-t, seeds - 1, delta))


def verdict_seeds(n: int, *, power: float = 0.8, miss: float = 0.03) -> int:
    """The fewest seeds (at least 4) whose verdict at size ``n`` detects a relative ``miss`` with ``power``.

    >>> verdict_seeds(1024), verdict_seeds(256), verdict_seeds(4096)
    (27, 99, 9)
    """
    seeds = 4
    while verdict_power(seeds, n=n, miss=miss) < power and seeds < 100000:
        seeds += 1
    return seeds


@dataclass(frozen=True)
class FiniteSizeRate:
    r"""A measured finite-size law at one point: :math:`E(n) - E_\infty = \sum_i b_i n^{-\alpha_i}`.

    Attributes
    ----------
    exponents, amplitudes : tuple of float
        :math:`\alpha_i` and :math:`b_i` (a fit of
        :func:`symrmt.analysis.finite_size.extrapolate`).
    spread : float
        The standard error of the extrapolated gap :math:`g(n)` at the sizes of the ladder: that of its limit
        :math:`E_\infty` (the half-width of its 95% interval over 1.96), since the ladder fixes
        :math:`E(n) = E_\infty + g(n)` there.
    source : str
        Where it was measured (the ladder), printed with a verdict that uses it.

    Examples
    --------
    >>> rate = FiniteSizeRate((0.5,), (-1.6,), 0.004, "ladder 256..4096")
    >>> round(rate.gap(4096), 4), rate.describe(4096)
    (-0.025, 'gap -0.025 ± 0.004 at n = 4096 from -1.6 n^-0.5 (ladder 256..4096)')
    """

    exponents: tuple[float, ...]
    amplitudes: tuple[float, ...]
    spread: float
    source: str

    def gap(self, n: float) -> float:
        """The extrapolated gap :math:`g(n)` at size ``n``."""
        return float(sum(b * float(n) ** -a for a, b in zip(self.exponents, self.amplitudes)))

    def describe(self, n: float) -> str:
        """The gap at ``n`` with its law and its source, as a verdict prints it."""
        law = " ".join(f"{b:+.3g} n^-{a:g}" for a, b in zip(self.exponents, self.amplitudes)).lstrip("+")
        return f"gap {self.gap(n):+.3g} ± {self.spread:.2g} at n = {n:g} from {law} ({self.source})".replace(
            "gap +", "gap ")

    @classmethod
    def from_fit(cls, fit: Any, source: str) -> "FiniteSizeRate":
        """The rate of an :class:`~symrmt.analysis.finite_size.Extrapolation` (its correction and its limit's
        interval)."""
        spread = (fit.hi - fit.lo) / (2 * 1.959964)
        return cls(tuple(float(a) for a in fit.exponents), tuple(float(b) for b in fit.amplitudes), float(spread),
                   source)


def rates_from(convergence: Any, gamma: Any) -> dict[str, tuple["FiniteSizeRate | None", ...]]:
    """The measured rates of a :class:`~symrmt.analysis.convergence.Convergence` at the ridges ``gamma``:
    ``{"attention": ..., "linear": ...}``, None where the ladder has no such ridge. The ladder must be of the same
    setting (f, c, geometry, d) as the comparison; the rate says which ladder it came from."""
    gamma = np.atleast_1d(np.asarray(gamma, dtype=np.float64))
    source = "converge ladder n = " + ",".join(str(int(k)) for k in convergence.ns)
    out = {}
    for name in ("attention", "linear"):
        ladder = getattr(convergence, name)
        rates = []
        for g in gamma:
            hit = np.flatnonzero(np.isclose(convergence.gamma, g, rtol=1e-12, atol=0.0))
            rates.append(FiniteSizeRate.from_fit(ladder.fits[int(hit[0])], source) if hit.size else None)
        out[name] = tuple(rates)
    return out


@dataclass(frozen=True, eq=False)
class QuantityAgreement:
    r"""One quantity over the ridges: the theory, the Monte Carlo, :math:`z` and the verdicts (arrays ``(G,)``).

    ``regimes`` holds, per point, the known slow regimes that apply (a tuple of names, maybe empty); ``rates``
    the measured finite-size rate of each point (:class:`FiniteSizeRate`, None where none is known).
    """

    name: str
    gamma: np.ndarray
    theory: np.ndarray
    mean: np.ndarray
    se: np.ndarray
    z: np.ndarray
    verdicts: tuple[str, ...]
    regimes: tuple[tuple[str, ...], ...]
    rates: tuple["FiniteSizeRate | None", ...] = ()

    def as_dict(self) -> dict[str, list]:
        """``theory``, ``z`` (None where undefined), ``verdict``, ``regimes`` and ``rate`` (the measured rate's
        gap at the simulated n as printed, or None), lists over gamma."""
        return {"theory": _plain(self.theory), "z": _plain(self.z), "verdict": list(self.verdicts),
                "regimes": [list(r) for r in self.regimes],
                "rate": [None if r is None else r.source for r in (self.rates or (None,) * len(self.verdicts))]}


@dataclass(frozen=True, eq=False)
class Agreement:
    r"""The verdicts of one comparison: per point (:class:`QuantityAgreement`) and overall.

    Attributes
    ----------
    attention, linear : QuantityAgreement
        :math:`E_{\rm attn}` and :math:`E_{\rm lin}`.
    n, seeds : int
        The size and the seeds of the Monte Carlo.
    quantile : float
        :math:`t_{0.975,\ s-1}`, the bound of each point.
    family_quantile : float
        :math:`t_{1-0.025/m,\ s-1}` over the :math:`m` points with a theory (the overall verdict's bound).
    power : float
        The probability that this many seeds detect a 3% miss at this n (:func:`verdict_power`).
    overall : str
        One of :data:`VERDICTS`.
    summary : str
        One sentence that says why.
    command : str or None
        The ``symrmt converge`` command line that settles a finite-size gap (None when there is none).
    """

    attention: QuantityAgreement
    linear: QuantityAgreement
    n: int
    seeds: int
    quantile: float
    family_quantile: float
    power: float
    overall: str
    summary: str
    command: str | None = None

    @property
    def quantities(self) -> tuple[QuantityAgreement, QuantityAgreement]:
        return self.attention, self.linear

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready: ``overall``, ``summary``, ``command``, ``t``, ``t_family``, ``power``, ``level`` and one
        block per quantity (:meth:`QuantityAgreement.as_dict`)."""
        return {"overall": self.overall, "summary": self.summary, "command": self.command,
                "t": _plain(self.quantile), "t_family": _plain(self.family_quantile),
                "power": _plain(self.power), "level": LEVEL,
                **{q.name: q.as_dict() for q in self.quantities}}

    def lines(self) -> list[str]:
        """The verdict as printed under a table: the summary, then the command when there is one."""
        out = [f"verdict: {self.overall}. {self.summary}"]
        if self.command:
            out.append(f"to decide, measure the rate in n: {self.command}")
        return out


def judge(mean: Any, se: Any, seeds: int, theory: Any, n: int,
          regimes: Sequence[Sequence[str]] | None = None,
          rates: Sequence["FiniteSizeRate | None"] | None = None) -> tuple[np.ndarray, tuple[str, ...]]:
    r"""``(z, verdicts)`` of points with Monte Carlo ``mean`` and ``se`` over ``seeds`` draws at size ``n``.

    Parameters
    ----------
    mean, se, theory : array_like
        Shape ``(G,)``; a non-finite theory gives the verdict ``"no theory"`` and :math:`z` NaN.
    seeds, n : int
        Seeds behind each mean (:math:`\ge 2`) and the size (where a rate's gap is extrapolated to).
    regimes : sequence of sequences of str, optional
        The known slow regimes of each point (:func:`slow_regimes`).
    rates : sequence of FiniteSizeRate or None, optional
        The measured finite-size rate of each point (:func:`rates_from`), None where none is known.

    Examples
    --------
    >>> z, verdicts = judge([0.30, 0.35, 0.50], [0.01, 0.01, 0.01], 8, [0.30, 0.30, 0.30], n=4096)
    >>> z.round(1).tolist(), verdicts
    ([0.0, 5.0, 20.0], ('agrees', 'disagrees', 'disagrees'))
    >>> judge([0.35], [0.01], 8, [0.30], n=4096, regimes=[["a_1 = 0"]])[1]
    ('undecided',)
    >>> rate = FiniteSizeRate((0.5,), (3.2,), 0.004, "ladder")      # measured: E(4096) - E_inf = +0.05
    >>> judge([0.35, 0.35], [0.01, 0.01], 8, [0.30, 0.27], n=4096, rates=[rate, rate])[1]
    ('finite-size gap', 'disagrees')
    """
    mean, se, theory = (np.atleast_1d(np.asarray(v, dtype=np.float64)) for v in (mean, se, theory))
    if not (mean.shape == se.shape == theory.shape) or mean.ndim != 1:
        raise ParameterError("mean, se and theory must be 1-d arrays of one shape (one entry per point).")
    if isinstance(seeds, bool) or int(seeds) != seeds or seeds < 2:
        raise ParameterError(f"seeds = {seeds!r}: {validate.TWO_SEEDS}.")
    regimes = [()] * mean.size if regimes is None else [tuple(r) for r in regimes]
    rates = [None] * mean.size if rates is None else list(rates)
    if len(regimes) != mean.size or len(rates) != mean.size:
        raise ParameterError("regimes and rates must have one entry per point.")
    t = float(t_quantile(int(seeds), LEVEL))
    difference = mean - theory
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(difference == 0, 0.0, difference / se)
    verdicts = []
    for d, s, score, slow, rate, t_value in zip(difference, se, z, regimes, rates, theory):
        if not np.isfinite(d):
            verdicts.append("no theory")
        elif abs(score) <= t:
            verdicts.append("agrees")
        elif rate is not None:
            # The rate's gap is measured against the ladder's own limit: what it leaves of the miss is the
            # theory's distance from that limit, judged with both uncertainties.
            covered = abs(d - rate.gap(n)) <= t * math.hypot(s, rate.spread)
            # A ladder whose limit is known no better than converge's target cannot tell a gap from a miss
            # of that size: it explains nothing, as converge itself then says "undecided".
            decisive = 1.959964 * rate.spread <= DEFAULT_TARGET * abs(t_value)
            verdicts.append("disagrees" if not covered else "finite-size gap" if decisive else "undecided")
        else:
            verdicts.append("undecided" if slow else "disagrees")
    return z, tuple(verdicts)


def low_rank_strength(gram: np.ndarray) -> float:
    r""":math:`\theta' = \mu^\top W_{KQ}\,\mu = \|\mu\|^2 + \sum_k (\mu^\top w_K^{(k)})(\mu^\top w_Q^{(k)})` from the
    Gram matrix of :math:`(\mu, w_K^{(1..r)}, w_Q^{(1..r)})` (docs/theory.md, section 14)."""
    gram = np.asarray(gram, dtype=np.float64)
    r = (gram.shape[0] - 1) // 2
    return float(gram[0, 0] + sum(gram[0, 1 + k] * gram[0, 1 + r + k] for k in range(r)))


def slow_regimes(gamma: Any, *, c: float, p: int, a1: float | None, nu: float, gram: Any,
                 temperature: float | None = None) -> dict[str, tuple[tuple[str, ...], ...]]:
    r"""The known slow regimes at each ridge, for ``"attention"`` and ``"linear"`` (tuples of names per point).

    The regimes (docs/validation.md, "Finite size"; docs/theory.md, section 15):

    * ``a_1 = 0`` with a signal or weights (attention): the finite model still uses the low-rank part that
      the limit says it cannot, and the gap shrinks slower than any one power of n;
    * a strong low-rank part, :math:`\theta'^2/p \ge` :data:`STRONG_LOW_RANK` (attention);
    * softmax attention at :math:`\tau < 1` (attention): the normalizers are sums of log-normals of
      log-variance :math:`1/\tau^2`;
    * a small ridge near :math:`c = 1`, :math:`\gamma \le` :data:`SMALL_RIDGE` :math:`\nu` (:math:`\nu = 1` for
      the linear baseline) with :math:`1/2 \le c \le 2` (both quantities): the resolvent is steep at the
      smallest eigenvalues of the Gram matrix.

    >>> slow_regimes([0.01, 1.0], c=1.0, p=1024, a1=0.0, nu=1.0, gram=np.diag([1.0, 0, 0]))["attention"][0]
    ('a_1 = 0 with a signal or weights', 'small ridge gamma/nu = 0.01 at c = 1')
    """
    gamma = np.atleast_1d(np.asarray(gamma, dtype=np.float64))
    gram = np.asarray(gram, dtype=np.float64)
    common = []
    low_rank = bool(np.any(gram))
    if a1 is not None and low_rank and abs(a1) <= 1e-9 * math.sqrt(max(nu, 1e-300)):
        common.append("a_1 = 0 with a signal or weights")
    strength = low_rank_strength(gram) ** 2 / p
    if strength >= STRONG_LOW_RANK:
        common.append(f"strong low-rank part theta'^2/p = {strength:.2g}")
    if temperature is not None and temperature < 1.0:
        common.append(f"softmax at tau = {temperature:g} < 1")
    near_one = 0.5 <= c <= 2.0

    def ridge(g: float, scale: float) -> tuple[str, ...]:
        return ((f"small ridge gamma/nu = {g / scale:.2g} at c = {c:g}",)
                if near_one and g <= SMALL_RIDGE * scale else ())

    return {"attention": tuple(tuple(common) + ridge(g, nu) for g in gamma),
            "linear": tuple(ridge(g, 1.0) for g in gamma)}


def converge_command(*, c: float, gamma: Sequence[float], n: int, f: str | None = None, geometry: Any = None,
                     gram: Any = None, d: float = 0.0, temperature: float | None = None,
                     normalize: str | None = None) -> str:
    """The ``symrmt converge`` command line of a setting: a ladder n/2 .. 4n around the size simulated.

    >>> converge_command(c=0.5, gamma=[0.01], n=1024, f="(x**3 - 3*x)/sqrt(6)")
    "symrmt converge --f '(x**3 - 3*x)/sqrt(6)' --c 0.5 --gamma 0.01 --ns 512,1024,2048,4096"
    """
    parts = ["symrmt", "converge"]
    if temperature is not None:
        parts += ["--attention", "softmax", "--temperature", f"{temperature:g}"]
        if normalize not in (None, "keys"):
            parts += ["--normalize", normalize]
    else:
        f = "F" if f is None else str(f)          # a Python callable: the user writes it as a formula
        parts += [f"--f={f}"] if f.startswith("-") else ["--f", f]
    parts += ["--c", f"{c:g}", "--gamma", ",".join(f"{g:g}" for g in gamma)]
    if gram is not None and (geometry is None or np.shape(gram) != (3, 3)):
        parts += ["--gram", "[" + ", ".join("[" + ", ".join(f"{v:g}" for v in row) + "]"
                                          for row in np.asarray(gram, dtype=float)) + "]"]
    elif geometry is not None:
        for name, value in geometry.as_dict().items():
            if name in ("mu_norm", "wk_norm", "wq_norm", "cos_mu_wk", "cos_mu_wq", "cos_wk_wq") and value:
                parts += ["--" + name.replace("_", "-"), f"{value:g}"]
    if d:
        parts += ["--diag", f"{d:g}"]
    ladder = sorted({max(64, n // 2), n, 2 * n, 4 * n})
    parts += ["--ns", ",".join(str(k) for k in ladder)]
    return " ".join(shlex.quote(part) for part in parts)


def agreement_of(result, attention_theory: Any, linear_theory: Any, *, a1: float | None, nu: float,
                 f: str | None = None, temperature: float | None = None, normalize: str | None = None,
                 rates: dict[str, Sequence["FiniteSizeRate | None"]] | None = None) -> Agreement:
    r"""The :class:`Agreement` of a :class:`~symrmt.SimulationResult` with the theory at its ridges.

    ``attention_theory``, ``linear_theory``: the theory at ``result.gamma`` (NaN or masked where the solver gave
    none); ``a1``, ``nu``: f's Hermite data (softmax: those of its centered exponential, with ``temperature``);
    ``f``: f as a formula, for the ``converge`` command line; ``rates``: the measured finite-size rates at
    ``result.gamma`` (:func:`rates_from`), ``{"attention": ..., "linear": ...}``.
    """
    attention_theory = np.ma.filled(np.ma.masked_invalid(np.asarray(attention_theory, dtype=float)), np.nan)
    linear_theory = np.ma.filled(np.ma.masked_invalid(np.asarray(linear_theory, dtype=float)), np.nan)
    gram = result.gram if result.gram is not None else np.zeros((3, 3))
    regimes = slow_regimes(result.gamma, c=result.c, p=result.p, a1=a1, nu=nu, gram=gram, temperature=temperature)
    quantities = []
    for name, theory, mean, se in (("attention", attention_theory, result.attention_mean, result.attention_se),
                                   ("linear", linear_theory, result.linear_mean, result.linear_se)):
        theory = np.broadcast_to(theory, result.gamma.shape).astype(np.float64)
        rate = tuple((rates or {}).get(name) or (None,) * result.gamma.size)
        z, verdicts = judge(mean, se, result.seeds, theory, result.n, regimes[name], rate)
        quantities.append(QuantityAgreement(name, result.gamma, _frozen(theory), mean, se, _frozen(z), verdicts,
                                            regimes[name], rate))
    attention, linear = quantities
    judged = sum(int(np.isfinite(q.theory).sum()) for q in quantities)
    t = float(t_quantile(result.seeds, LEVEL))
    family = float(t_quantile(result.seeds, 1 - (1 - LEVEL) / max(judged, 1)))
    overall, summary, gaps = _overall(quantities, t, family, judged, result.seeds, result.n)
    command = None
    if gaps:
        command = converge_command(c=result.c, gamma=sorted(set(gaps)), n=result.n, f=f, geometry=result.geometry,
                                   gram=result.gram if result.geometry is None else None, d=result.d,
                                   temperature=temperature, normalize=normalize)
    return Agreement(attention, linear, result.n, result.seeds, t, family,
                     verdict_power(result.seeds, n=result.n), overall, summary, command)


def _overall(quantities, t: float, family: float, judged: int, seeds: int,
             n: int) -> tuple[str, str, list[float]]:
    """``(overall verdict, summary sentence, the ridges of the points that call for a ladder)``."""
    outside = [(q, g) for q in quantities for g in range(q.gamma.size)
               if q.verdicts[g] not in ("agrees", "no theory")]
    counted = [(q, g) for q, g in outside if abs(q.z[g]) > family]
    missing = sum(v == "no theory" for q in quantities for v in q.verdicts)
    head = (f"{len(outside)} of {judged} points outside their 95% t interval (|z| > t_{seeds - 1} = {t:.2f}; "
            f"about {0.05 * judged:.1f} expected by chance)")
    tail = f"; {missing} without a theory" if missing else ""
    power = (f" With {seeds} seeds at n = {n} a 3% miss is detected with probability {verdict_power(seeds, n=n):.2f}"
             f" ({verdict_seeds(n)} seeds give 0.8).")
    if not counted:
        if outside:
            return "agrees", (head + f", none beyond the family-wise bound {family:.2f} over {judged} points"
                              + tail + "." + power), []
        return "agrees", f"all {judged} points inside their 95% t interval (t_{seeds - 1} = {t:.2f}){tail}.{power}", []
    worst = max((q.verdicts[g] for q, g in counted), key=VERDICTS.index)

    def why(q, g) -> str:
        rate = q.rates[g] if q.rates else None
        if rate is not None and q.verdicts[g] == "undecided":
            return (": measured " + rate.describe(n) + ", too uncertain to decide: its limit's 95% half-width exceeds "
                    f"{DEFAULT_TARGET:.0%} of the theory")
        if rate is not None:
            return ": measured " + rate.describe(n)
        if q.regimes[g] and q.verdicts[g] == "undecided":
            return ": no rate known in " + "; ".join(q.regimes[g])
        return ""

    points = [f"{q.name} at gamma = {q.gamma[g]:.3g} (z = {q.z[g]:+.1f}, {q.verdicts[g]}{why(q, g)})"
              for q, g in counted]
    gaps = [float(q.gamma[g]) for q, g in outside if q.verdicts[g] == "undecided"]
    reading = {"finite-size gap": " The measured finite-size rate explains the miss at this n.",
               "undecided": " In a slow regime without a measured rate one size cannot tell a finite-size gap from "
                            "an error in the theory: run converge on a ladder of sizes, then compare with its rates.",
               "disagrees": " No measured finite-size rate explains the miss: the theory and the simulation "
                            "disagree here."}[worst]
    return worst, f"{head}; beyond the family-wise bound {family:.2f}: {', '.join(points)}{tail}.{reading}", gaps


def attach_theory(result, f: Any, params: Any = None):
    """``result`` with :attr:`~symrmt.SimulationResult.agreement`: the theory at its ridges and the verdicts
    (:func:`agreement_of`); ``f`` and ``params`` as given to :func:`symrmt.simulate`."""
    from ..theory.ridge import attention_error, linear_error  # heavy: theory, only theory=True solves it

    if result.weights is not None:
        raise ParameterError("theory=True needs the weights as a Gram matrix (gram= or geometry=): the theory of "
                             "general weights= is that of their fit (symrmt.weights); compare with it directly.")
    geometry, gram = (result.geometry, None) if result.geometry is not None else (None, result.gram)
    softmax = result.softmax
    if softmax is not None:
        from ..theory.softmax import softmax_error, softmax_formula, softmax_hermite  # heavy: theory

        tau = softmax["temperature"]
        a1, nu = (float(v) for v in softmax_hermite(tau))
        attention = softmax_error(result.c, result.gamma, temperature=tau, geometry=geometry, gram=gram)
        label, extra = softmax_formula(tau), {"temperature": tau, "normalize": softmax.get("normalize")}
    else:
        from ..nonlinearity import HermiteCoefficients, hermite  # heavy: SymPy

        h = f if isinstance(f, HermiteCoefficients) else hermite(f, params=params)
        if h.parameters:
            h = h.at(**(params or {}))
        a1, nu = float(h.a1), float(h.nu)
        attention = attention_error(h, result.c, result.gamma, geometry, result.d, gram=gram, partial=True)
        label, extra = (f if isinstance(f, str) else _formula(h.f)), {}
    linear = linear_error(result.c, result.gamma, geometry, gram=gram, partial=True)
    verdict = agreement_of(result, attention, linear, a1=a1, nu=nu, f=label, **extra)
    return dataclasses.replace(result, agreement=verdict)


def _formula(f: Any) -> str | None:
    """f as a formula the CLI reads (a SymPy expression), else None (a Python callable has none)."""
    import sympy  # heavy: SymPy

    return str(f) if isinstance(f, sympy.Basic) else None


def _frozen(array: np.ndarray) -> np.ndarray:
    array = np.array(array, dtype=np.float64)
    array.setflags(write=False)
    return array


def _plain(values: Any) -> Any:
    """Floats with None for NaN or inf (JSON has no NaN)."""
    values = np.asarray(values, dtype=np.float64)
    if values.ndim == 0:
        return float(values) if np.isfinite(values) else None
    return [_plain(v) for v in values]
