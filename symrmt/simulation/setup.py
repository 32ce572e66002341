r"""The validated arguments of a Monte Carlo call and its loop over seeds: :class:`Setup`.

:func:`~symrmt.simulation.simulate`, :func:`~symrmt.simulation.simulate_kernel_ridge`,
:func:`~symrmt.simulation.simulate_heads` and :func:`~symrmt.simulation.simulate_spectrum` read their
arguments with the checks here, in one order: the sizes, geometry, weights and d
(:func:`validated_model`), what the call adds (the kind of attention, :func:`with_attention`; the
heads), then :math:`\gamma` and the seeds (:meth:`Setup.of`). f comes last (:meth:`Setup.with_f`),
after the memory check: turning a formula into a NumPy function may import SymPy, and a run that
would not fit is refused first. Every call then draws seed k from
``np.random.default_rng(np.random.SeedSequence(seed).spawn(seeds)[k])`` (:meth:`Setup.run_seeds`),
so seed k of one of them sees the same y, X and K as seed k of another.
"""
from __future__ import annotations

import dataclasses
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Callable, Iterator, TypeVar

import numpy as np

from .. import validate
from .seeds import mean_se
from ..errors import ParameterError
from ..geometry import Geometry, resolve_gram
from ..nonlinearity.adapter import label_of, numpy_callable
from ..nonlinearity.simulated import centered_for_simulation
from ..runtime.memory import room_for_thread
from ..runtime.progress import progress_bar
from .model import Model, draw
from .result import frozen
from .softmax import ATTENTIONS, NORMALIZATIONS
from ..weight_matrix import WeightMatrix, read_weight_matrix
from .weights import align_signal

__all__ = ["Setup", "validated_model", "resolve_geometry", "with_attention", "with_f", "gamma_grid", "seed_count",
           "seed_generators"]

T = TypeVar("T")


def resolve_geometry(geometry: Any, gram: Any) -> tuple[Geometry | None, np.ndarray]:
    """``(geometry or None, gram)`` from exactly one of the two (neither: no signal, no weights).

    The Gram matrix is checked by :func:`symrmt.geometry.resolve_gram`, as in the theory; a
    rank-one geometry also comes back as a :class:`Geometry` (reported in the result).
    """
    matrix = resolve_gram(geometry, gram)
    if gram is not None:
        return (Geometry.from_gram(matrix) if matrix.shape == (3, 3) else None), matrix
    return geometry or Geometry(), matrix


def _dimension(n: Any, c: Any, vectors: int) -> tuple[int, float, int]:
    """Validate ``n`` and ``c``; return ``(n, c, p)`` with ``p = round(c n) >= vectors``."""
    n = validate.integer("n", n, 2, "Use at least two tokens (n >= 2).")
    c = float(validate.inside("c", np.asarray(validate.positive_scalar("c", c, "c is the ratio p/n.")),
                              validate.DOMAINS["c"], validate.RANGE_HINT))        # the theory's words, one check
    if n > 2.0**62 / c:                  # compared exactly: c * n would overflow for a huge int n
        raise ParameterError(f"c*n = {c}*{n}: p = round(c*n) is far too large to simulate; use a smaller c or n.")
    p = int(round(c * n))
    if p < max(vectors, 3):
        raise ParameterError(
            f"p = round(c*n) = round({c}*{n}) = {p}: need p >= {max(vectors, 3)} to place mu, w_K and w_Q; "
            "increase n or c."
        )
    return n, c, p


def validated_model(n: Any, c: Any, geometry: Any, gram: Any, d: Any, random_frame: Any,
                    weights: Any = None, mu: Any = None) -> tuple[Model, float]:
    """``(model, c)``: sizes, geometry, weights, the signal vector ``mu`` and d validated (f comes later: it may
    import SymPy, and sizes are refused first)."""
    random_frame = validate.boolean("random_frame", random_frame)
    if mu is not None and weights is None:
        raise ParameterError("mu= is the signal vector of weights=M; without weights give the signal as geometry= "
                             "or gram=.")
    geometry, matrix = resolve_geometry(geometry, gram)
    n, c, p = _dimension(n, c, matrix.shape[0])
    d = float(validate.inside("d", np.asarray(validate.real_scalar("d", d)), validate.DOMAINS["d"],
                              validate.RANGE_HINT))
    if weights is not None:
        _signal_only(matrix)
        weights = read_weight_matrix(weights, p, f"round(c*n) = round({c:g}*{n})")
        if weights.frobenius_norm() == 0.0:
            raise ParameterError("weights: M = 0 has score variance ||M||_F^2/p = 0, where the Hermite data of "
                                 "f(sigma .) are undefined (the theory refuses it too); give a nonzero M.")
        if mu is not None:
            weights, geometry, matrix = _placed_signal(weights, mu, matrix, random_frame, p)
    return Model(n, p, d, geometry, matrix, random_frame, weights=weights), c


def _placed_signal(weights: WeightMatrix, mu: Any, gram: np.ndarray, random_frame: Any,
                   p: int) -> tuple[WeightMatrix, Geometry, np.ndarray]:
    r"""``weights=M, mu=vector``: the draw puts :math:`\mu` along :math:`e_1`, so M is seen from a frame whose first
    axis is :math:`\mu/\|\mu\|` (:func:`~symrmt.simulation.weights.align_signal`, the same law of the errors) and
    the geometry holds :math:`\|\mu\|` alone."""
    vector = validate.signal_vector(mu, p)
    if gram[0, 0] != 0.0:
        raise ParameterError("the signal is given twice (mu= and the geometry's mu): give the vector as mu= alone.")
    if random_frame:
        raise ParameterError("random_frame=True draws a random direction for mu, but mu= fixes it: leave "
                             "random_frame out.")
    norm = float(np.linalg.norm(vector))
    if norm == 0.0:
        return weights, Geometry(), Geometry().gram()
    geometry = Geometry(mu_norm=norm)
    return read_weight_matrix(align_signal(weights, vector), p), geometry, geometry.gram()


def _signal_only(gram: np.ndarray) -> None:
    """With ``weights=``, the geometry may only hold mu: a Gram matrix cannot place vectors relative to M."""
    if np.any(gram[1:]):
        raise ParameterError("weights= holds the whole W_K^T W_Q: give only mu in the geometry (Geometry(mu_norm=...) "
                             "or a Gram matrix whose w_K, w_Q rows are 0), and put the spikes into the weights.")


def with_attention(model: Model, f: Any, attention: Any, temperature: Any, mask_diagonal: Any,
                   normalize: Any = None) -> Model:
    """The model with its kind of attention: entrywise (f given, no softmax keywords) or softmax (f None, d = 0)."""
    attention = validate.choice("attention", attention, ATTENTIONS)
    if attention == "entrywise":
        if f is None:
            raise ParameterError("f = None: entrywise attention needs a nonlinearity (e.g. 'tanh(x)'); "
                                 "for softmax attention pass attention='softmax'.")
        if temperature is not None or mask_diagonal is not True or normalize is not None:
            raise ParameterError("temperature, mask_diagonal and normalize apply to attention='softmax' only; leave "
                                 "them out for entrywise attention (its diagonal is d).")
        return model
    if f is not None:
        raise ParameterError(f"f = {f!r}: softmax attention fixes f (exp(S/tau), normalized over the keys); "
                             "pass f=None.")
    normalize = validate.choice("normalize", "keys" if normalize is None else normalize, NORMALIZATIONS,
                                "('keys': each query's weights over its keys sum to one, standard attention; "
                                "'queries': the transposed model.)")
    if model.d != 0.0:
        raise ParameterError(f"d = {model.d!r}: softmax attention masks the diagonal (K_ii = 0); leave d = 0, "
                             "or pass mask_diagonal=False to keep the self-token in the softmax.")
    if not isinstance(mask_diagonal, (bool, np.bool_)):
        raise ParameterError(f"mask_diagonal = {mask_diagonal!r}: must be True or False.")
    tau = validate.temperature(temperature)                 # the one reader (None: its default)
    return dataclasses.replace(model, attention="softmax", temperature=tau, mask_diagonal=bool(mask_diagonal),
                               normalize=normalize, label=f"softmax(tau={tau:g})")


def with_f(model: Model, f: Any, params: Any = None, check_centered: bool = False) -> Model:
    """The model with f as a checked NumPy function (the one adapter; SymPy only for formulas); with
    ``check_centered``, f at the values ``params`` of its parameters, refused unless :math:`a_0 = 0`;
    softmax attention: as is (it fixes f)."""
    if model.attention == "softmax":
        if params is not None:
            raise ParameterError(f"params = {params!r}: softmax attention fixes f (no parameters); leave params out.")
        return model
    if check_centered:
        f = centered_for_simulation(f, params)
    return dataclasses.replace(model, f=numpy_callable(f), label=label_of(f))


def gamma_grid(gamma: Any) -> np.ndarray:
    """The ridge parameters as a float64 grid, each finite, positive and at most :data:`symrmt.validate.MAX_GAMMA`."""
    # read and range-checked as the theory reads it (the same line for the same bad value), then made a 1-d grid
    validate.inside("gamma", validate.positive_array("gamma", gamma), validate.DOMAINS["gamma"],
                    validate.RANGE_HINT)
    return validate.positive_grid("gamma", gamma)


def seed_count(seeds: Any, seed: Any, minimum: int) -> tuple[int, int]:
    """``(seeds, seed)`` validated: at least ``minimum`` draws (two for a t interval), a non-negative root."""
    hint = (validate.TWO_SEEDS[0].upper() + validate.TWO_SEEDS[1:] + "." if minimum == 2
            else "Use at least one seed.")
    return validate.seed_count(seeds, minimum, hint=hint), validate.seed(seed)


def seed_generators(seed: int, seeds: int) -> list[np.random.Generator]:
    """One generator per draw, the children of ``np.random.SeedSequence(seed)``: a run with more seeds extends one
    with fewer without changing its first draws."""
    return [np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(seeds)]


@dataclass(frozen=True)
class Setup:
    r"""A validated Monte Carlo call: the model, the ratio c as asked, the :math:`\gamma` grid and the seeds.

    Attributes
    ----------
    model : Model
        Sizes, geometry or weights, d, the kind of attention; f once :meth:`with_f` has adapted it.
    c : float
        The ratio asked for (:math:`p = \operatorname{round}(c n)` is ``model.p``).
    grid : numpy.ndarray or None
        The ridge parameters, float64 (``None`` for a call without them: the spectra, whose setup is
        ``Setup(model, c, None, *seed_count(seeds, seed, 1))``).
    seeds, seed : int
        Number of draws and the root of their ``SeedSequence``.
    """

    model: Model
    c: float
    grid: np.ndarray | None
    seeds: int
    seed: int

    @classmethod
    def of(cls, model: Model, c: float, gamma: Any, seeds: Any, seed: Any) -> Setup:
        """The setup of a validated ``model`` (:func:`validated_model`): ``gamma``, then the seeds (at least two,
        for a t interval), validated in that order."""
        return cls(model, c, gamma_grid(gamma), *seed_count(seeds, seed, 2))

    def with_f(self, f: Any, params: Any = None) -> Setup:
        """The setup with f adapted, refused unless centered at ``params`` (:func:`with_f`)."""
        return dataclasses.replace(self, model=with_f(self.model, f, params, check_centered=True))

    def run_seeds(self, one_draw: Callable[[np.random.Generator, list | None], T], *, progress: bool = True,
                  ahead: bool = False) -> list[T]:
        """``[one_draw(rng_k, drawn_k) for each seed k]``, in order, under a progress bar.

        ``drawn_k`` is ``None``, or with ``ahead`` a one-element list holding ``draw(model, rng_k)`` made in a
        worker thread while the seed before is being solved (the caller pops it, so that nothing else keeps the
        arrays alive). Exact: each seed has its own generator, so what a seed draws does not depend on when. One
        more X is alive meanwhile: the caller asks for it only where
        :func:`~symrmt.simulation.routes.concurrent` allows four arrays of the draw's size
        (:mod:`~symrmt.simulation.memory` counts it there), and where the address-space limit leaves room for
        the worker thread (:func:`symrmt.runtime.memory.room_for_thread`).
        """
        generators = seed_generators(self.seed, self.seeds)
        ahead = ahead and room_for_thread(2 * 8.0 * self.model.n * self.model.p)   # no spin under ulimit -v
        drawn = _drawn_ahead(self.model, generators) if ahead else (None,) * self.seeds
        bar = progress_bar(zip(generators, drawn), desc="simulate", unit="seed", total=self.seeds, enabled=progress)
        return [one_draw(rng, box) for rng, box in bar]

    def curve(self, per_seed: np.ndarray) -> dict[str, Any]:
        """The fields of a :class:`~symrmt.simulation.result.CurveResult` of the draws ``per_seed`` (seeds, G):
        the grid, the mean, the standard error and the draws (read-only), and the settings."""
        model = self.model
        gamma, mean, se, per_seed = frozen(self.grid, *mean_se(per_seed), per_seed)
        return dict(gamma=gamma, mean=mean, se=se, per_seed=per_seed, n=model.n, p=model.p, c=self.c, d=model.d,
                    seeds=self.seeds, seed=self.seed, gram=model.gram)


def _drawn_ahead(model: Model, generators: list[np.random.Generator]) -> Iterator[list]:
    """Each seed's ``draw(model, rng)`` in a one-element list, in order, the next one drawn in a worker thread while
    the caller works on this one (the draw, 0.4 of a score GEMM at n = 2048, then overlaps the single-threaded
    reductions of the seed before)."""
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="symrmt-draw") as pool:
        pending = pool.submit(draw, model, generators[0])
        for following in [*generators[1:], None]:
            box = [pending.result()]
            pending = None if following is None else pool.submit(draw, model, following)
            yield box
