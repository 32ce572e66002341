r"""The public functions of the Monte Carlo: :func:`simulate`, :func:`simulate_once`, :func:`simulate_spectrum`.

Each call validates its arguments (:mod:`symrmt.validate`, :func:`symrmt.geometry.resolve_gram`),
fixes its routes (:class:`~symrmt.simulation.routes.Plan`), refuses a run that would not fit in
memory (:mod:`~symrmt.simulation.memory`) and only then turns f into a NumPy function through
the one adapter (:func:`symrmt.nonlinearity.adapter.numpy_callable`, which imports SymPy only
for formulas and expressions), draws (:mod:`~symrmt.simulation.model`) and solves
(:mod:`~symrmt.simulation.linalg`).
"""
from __future__ import annotations

import dataclasses
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable, Iterator, Mapping

import numpy as np

from .. import validate
from ..errors import ParameterError
from ..geometry import Geometry, check_symmetric_kernel, resolve_gram
from ..nonlinearity.adapter import label_of, numpy_callable
from ..runtime.progress import progress_bar
from .softmax import ATTENTIONS, NORMALIZATIONS, softmax_scale
from ..analysis.seeds import mean_se
from . import linalg, routes, threads
from .memory import check_memory
from .model import Model, attention_matrix, draw, scores, warn_large_norms
from .result import SimulationResult
from .routes import METHODS, Plan
from .weights import resolve_weights

__all__ = ["SimulationResult", "simulate", "simulate_once", "simulate_spectrum"]

#: The ``matrix`` values of :func:`simulate_spectrum`.
SPECTRA = ("gram", "kernel")


# ---------------------------------------------------------------------------
# Arguments
# ---------------------------------------------------------------------------

def _resolve_geometry(geometry: Any, gram: Any) -> tuple[Geometry | None, np.ndarray]:
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
    c = validate.within("c", validate.positive_scalar("c", c, "c is the ratio p/n."), *validate.C_RANGE,
                        validate.RANGE_HINT)
    if n > 2.0**62 / c:                  # compared exactly: c * n would overflow for a huge int n
        raise ParameterError(f"c*n = {c}*{n}: p = round(c*n) is far too large to simulate; use a smaller c or n.")
    p = int(round(c * n))
    if p < max(vectors, 3):
        raise ParameterError(
            f"p = round(c*n) = round({c}*{n}) = {p}: need p >= {max(vectors, 3)} to place mu, w_K and w_Q; "
            "increase n or c."
        )
    return n, c, p


def _model(n: Any, c: Any, geometry: Any, gram: Any, d: Any, random_frame: Any,
           weights: Any = None) -> tuple[Model, float]:
    """Validate sizes, geometry, weights and d (f comes later: it may import SymPy, and sizes are refused first)."""
    geometry, matrix = _resolve_geometry(geometry, gram)
    n, c, p = _dimension(n, c, matrix.shape[0])
    d = validate.within("d", validate.real_scalar("d", d), -validate.MAX_DIAGONAL, validate.MAX_DIAGONAL,
                        validate.RANGE_HINT)
    if weights is not None:
        _signal_only(matrix)
        weights = resolve_weights(weights, p, f"round(c*n) = round({c:g}*{n})")
    return Model(n, p, d, geometry, matrix, bool(random_frame), weights=weights), c


def _signal_only(gram: np.ndarray) -> None:
    """With ``weights=``, the geometry may only hold mu: a Gram matrix cannot place vectors relative to M."""
    if np.any(gram[1:]):
        raise ParameterError("weights= holds the whole W_K^T W_Q: give only mu in the geometry (Geometry(mu_norm=...) "
                             "or a Gram matrix whose w_K, w_Q rows are 0), and put the spikes into the weights.")


def _gamma_grid(gamma: Any) -> np.ndarray:
    grid = validate.positive_grid("gamma", gamma, "(gamma -> 0 is the interpolation limit; use a small positive "
                                                  "value such as 1e-4.)")
    return validate.within("gamma", grid, 0.0, validate.MAX_GAMMA, validate.RANGE_HINT)


def _seeds(seeds: Any, seed: Any, minimum: int) -> tuple[int, int]:
    hint = "The standard error needs at least two seeds (std with ddof=1)." if minimum == 2 else "Use at least one seed."
    seeds = validate.within("seeds", validate.integer("seeds", seeds, minimum, hint), minimum, validate.MAX_GRID_POINTS,
                            "(as the seeds of a sweep)")
    return (seeds,
            validate.integer("seed", seed, 0, "Use a non-negative integer seed."))


def _with_attention(model: Model, f: Any, attention: Any, temperature: Any, mask_diagonal: Any,
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
    tau = validate.temperature(1.0 if temperature is None else temperature)
    return dataclasses.replace(model, attention="softmax", temperature=tau, mask_diagonal=bool(mask_diagonal),
                               normalize=normalize, label=f"softmax(tau={tau:g})")


def _softmax_summary(model: Model) -> dict | None:
    """:attr:`SimulationResult.softmax` of ``model``."""
    if model.attention != "softmax":
        return None
    return {"temperature": model.temperature, "mask_diagonal": model.mask_diagonal,
            "normalize": model.normalize, "scale": softmax_scale(model.n, model.p, model.temperature)}


def _with_f(model: Model, f: Any, params: Any = None, check_centered: bool = False) -> Model:
    """The model with f as a checked NumPy function (the one adapter; SymPy only for formulas); with
    ``check_centered``, f at the values ``params`` of its parameters, refused unless :math:`a_0 = 0`;
    softmax attention: as is (it fixes f)."""
    if model.attention == "softmax":
        if params is not None:
            raise ParameterError(f"params = {params!r}: softmax attention fixes f (no parameters); leave params out.")
        return model
    if check_centered:
        from ..nonlinearity.centering import centered_for_simulation    # NumPy and SciPy only for callables

        f = centered_for_simulation(f, params)
    return dataclasses.replace(model, f=numpy_callable(f), label=label_of(f))


def _one_draw(model: Model, plan: Plan, grid: np.ndarray, rng: np.random.Generator,
              drawn: list | None = None) -> tuple[np.ndarray, np.ndarray, tuple[str, str]]:
    """:func:`simulate_once` after validation; also returns the routes used.

    ``drawn``: a list holding ``draw(model, rng)`` made ahead (:func:`_drawn_ahead`); it is emptied,
    so that the routes can release X and K as they go.

    The level-3 products run on the BLAS threads that :mod:`~symrmt.simulation.threads` measured
    fastest at this size; the reductions inside set their own.
    """
    with threads.blas_threads(threads.policy(max(model.n, model.p)).products):
        y, X, vectors = draw(model, rng) if drawn is None else drawn.pop()
        S, C = scores(X, vectors, plan.keeps_gram, model.weights)
        K = attention_matrix(S, model)
        del S
        instance = routes.Instance(y, X, K, C)
        del X, K, C  # the instance owns them now and releases them route by route
        attention, linear, used = routes.errors(plan, instance, grid)
    return (routes.unit_interval(attention, "attention", grid), routes.unit_interval(linear, "linear", grid), used)


# ---------------------------------------------------------------------------
# Public functions
# ---------------------------------------------------------------------------

def simulate_once(
    f: Callable[[np.ndarray], np.ndarray] | str | Any,
    n: int,
    c: float,
    gamma: Any,
    geometry: Geometry | None,
    d: float,
    rng: np.random.Generator,
    random_frame: bool = False,
    *,
    gram: Any = None,
    method: str = "auto",
    weights: Any = None,
    attention: str = "entrywise",
    temperature: float | None = None,
    mask_diagonal: bool = True,
    normalize: str | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    r"""One draw of the model: :math:`(E_{\rm attn}(\gamma), E_{\rm lin}(\gamma))` on the whole grid.

    Parameters
    ----------
    f : callable, str, sympy.Expr or None
        The nonlinearity: a vectorized NumPy function (``np.tanh``), a formula such as
        ``"tanh(x)"`` or a SymPy expression in ``x``, drawn with as it is (the building
        block of :func:`simulate` and of sweeps, whose callers check that f is centered);
        ``None`` for softmax attention.
    n, c : int, float
        Tokens and ratio; :math:`p = \operatorname{round}(c n)`.
    gamma : float or array_like
        Ridge parameters, all finite and :math:`> 0`.
    geometry : Geometry or None
        Norms and cosines of :math:`(\mu, w_K, w_Q)`; ``None`` with ``gram``, or for
        no signal and no weights.
    d : float
        Diagonal :math:`K_{ii}`.
    rng : numpy.random.Generator
        Source of the draw, consumed in the order y, Z, frame (:mod:`symrmt.simulation`).
    random_frame : bool
        Rotate the vectors by a Haar-random frame drawn from ``rng``.
    gram : array_like, optional
        Gram matrix of :math:`(\mu, w_K^{(1..r)}, w_Q^{(1..r)})`, instead of ``geometry``.
    method : {"auto", "exact", "tridiagonal", "lanczos"}
        How the two quadratic forms are computed (:mod:`symrmt.simulation.routes`); all
        agree to about 1e-8 relative.
    weights : array_like or tuple, optional
        Any :math:`W_K^\top W_Q`, as in :func:`simulate`.
    attention, temperature, mask_diagonal, normalize
        Entrywise or softmax attention, as in :func:`simulate`.

    Returns
    -------
    attention, linear : numpy.ndarray
        Shape ``(G,)`` each, in the order of ``gamma``.

    Examples
    --------
    >>> e_attn, e_lin = simulate_once(np.tanh, 50, 1.0, [0.1, 1.0], Geometry(), 0.0,
    ...                               np.random.default_rng(0))
    >>> e_attn.shape, bool(np.all((0 <= e_lin) & (e_lin <= 1)))
    ((2,), True)
    """
    model, _ = _model(n, c, geometry, gram, d, random_frame, weights)
    model = _with_attention(model, f, attention, temperature, mask_diagonal, normalize)
    grid = _gamma_grid(gamma)
    plan = Plan.of(validate.choice("method", method, METHODS), model.n, model.p)
    if not isinstance(rng, np.random.Generator):
        raise ParameterError(f"rng = {rng!r}: must be a numpy.random.Generator (np.random.default_rng(seed)).")
    check_memory(plan, 1, grid.size, weights=model.weights)
    warn_large_norms(model.gram, model.p)
    attention, linear, _ = _one_draw(_with_f(model, f), plan, grid, rng)
    return attention, linear


def simulate(
    f: Callable[[np.ndarray], np.ndarray] | str | Any,
    n: int,
    c: float,
    gamma: Any,
    geometry: Geometry | None = None,
    d: float = 0.0,
    seeds: int = 4,
    seed: int = 0,
    random_frame: bool = False,
    *,
    gram: Any = None,
    method: str = "auto",
    progress: bool = True,
    weights: Any = None,
    params: Mapping[str, float] | None = None,
    attention: str = "entrywise",
    temperature: float | None = None,
    mask_diagonal: bool = True,
    normalize: str | None = None,
    theory: bool = False,
) -> SimulationResult:
    r"""Monte Carlo of :math:`E_{\rm attn}(\gamma)` and :math:`E_{\rm lin}(\gamma)` over ``seeds`` draws.

    The model is docs/theory.md, section 1, with rank-r weights (section 5):
    :math:`X = Z + \mu y^\top`,
    :math:`S = X^\top (I + \sum_k w_K^{(k)} w_Q^{(k)\top}) X/\sqrt p`,
    :math:`K_{ij} = f(S_{ij})/\sqrt p` (:math:`i \ne j`), :math:`K_{ii} = d` (or the rescaled
    softmax :math:`K'` with ``attention="softmax"``), and

    .. math::

        E_{\rm attn}(\gamma) = \frac{\gamma^2}{n} y^\top
        \Big(\frac{K^\top X^\top X K}{n} + \gamma I_n\Big)^{-2} y
        = \frac1n \big\| y - K^\top X^\top w \big\|^2, \quad
        w = (X K K^\top X^\top + n\gamma I_p)^{-1} X K y .

    Parameters
    ----------
    f : str, sympy.Expr, HermiteCoefficients or callable
        The nonlinearity, centered (:math:`a_0 = \mathbb E f(\xi) = 0`, checked: an f that
        is not is refused, ``hermite(f, center=True)`` centers it): a string parsed by
        :func:`symrmt.nonlinearity.parse_nonlinearity` (e.g. ``"tanh(x)"``; names other than
        x are parameters, given in ``params``), a SymPy expression in a symbol named ``x``,
        the result of :func:`~symrmt.nonlinearity.hermite` (its f is used), or a vectorized
        NumPy function.; ``None`` with ``attention="softmax"``, which fixes it.
    n : int
        Number of tokens, :math:`n \ge 2`.
    c : float
        :math:`p/n > 0`; :math:`p = \operatorname{round}(c n) \ge 1 + 2r`.
    gamma : float or array_like
        Ridge parameters, finite and :math:`> 0`; all of them come from one
        factorization or one Lanczos run per matrix and seed.
    geometry : Geometry, optional
        Norms and cosines of :math:`(\mu, w_K, w_Q)` (rank one). Default, and with
        neither ``geometry`` nor ``gram``: no signal, no weights.
    d : float
        The diagonal of :math:`K`.
    seeds : int
        Number of independent draws, :math:`\ge 2` (the standard error needs two).
    seed : int
        Root of ``np.random.SeedSequence(seed).spawn(seeds)``: the first k draws of a
        run with more seeds equal those of a run with k seeds.
    random_frame : bool
        Rotate the vectors by a Haar-random frame in each draw (the law does not
        depend on it; the option exists to check that).
    gram : array_like, optional
        The Gram matrix of :math:`(\mu, w_K^{(1)}, \dots, w_K^{(r)}, w_Q^{(1)}, \dots, w_Q^{(r)})`,
        shape ``(1+2r, 1+2r)``, positive semi-definite. ``Geometry.gram()`` is the
        r = 1 case. Give ``geometry`` or ``gram``, not both.
    method : {"auto", "exact", "tridiagonal", "lanczos"}
        How the quadratic forms are computed: ``"exact"`` is one eigh or SVD per
        matrix; ``"tridiagonal"`` one Householder tridiagonalization started from y;
        ``"lanczos"`` Lanczos quadrature with certified Gauss / Gauss--Radau bounds
        (up to 4000 steps, then tridiagonal); ``"auto"`` (default) Lanczos while a
        cost model says it beats the tridiagonal route, else tridiagonal. Every
        route falls back to ``"exact"`` where its rounding estimate exceeds 1e-5
        (very small gamma), so all agree with ``"exact"`` to about 1e-8 relative.
    progress : bool
        Show a progress bar over seeds on stderr when stderr is a terminal and the
        run takes more than 2 s (tqdm).
    weights : array_like or tuple, optional
        Any attention weights instead of :math:`I + \sum_k w_K^{(k)} w_Q^{(k)\top}`
        (:mod:`symrmt.simulation.weights`): a real ``(p, p)`` matrix :math:`M`, with
        :math:`S = X^\top M X/\sqrt p` (:math:`M = W_K^\top W_Q`, key on the left; for a
        real model's fit pass ``MatrixFit.weights()``), or the factored
        ``(s, w_K, w_Q)``, :math:`M = sI + \sum_k w_K^{(k)} w_Q^{(k)\top}` with ``w_K``,
        ``w_Q`` of shape ``(r, p)``. p must equal ``round(c*n)``. The geometry then
        gives :math:`\mu` alone, placed along :math:`e_1` (a random direction per seed with
        ``random_frame``; another direction with
        :func:`~symrmt.simulation.weights.align_signal`).
    params : dict, optional
        One value per symbolic parameter of f, e.g. ``{"s": 2.0}`` for ``"tanh(s*x)"``.
    attention : {"entrywise", "softmax"}
        ``"softmax"``: :math:`K' = \sigma_\tau K^{\rm sm}` with
        :math:`K^{\rm sm}_{ij} = e^{S_{ij}/\tau}/\sum_{k \ne j} e^{S_{kj}/\tau}` (:math:`i \ne j`,
        :math:`K^{\rm sm}_{jj} = 0`): key i, query j, each column (query) normalized over its keys, and
        :math:`\sigma_\tau = (n-1)e^{1/(2\tau^2)}/\sqrt p` (:mod:`symrmt.simulation.softmax`). f must be ``None``
        and d 0. A ridge :math:`\lambda` on the plain :math:`XK^{\rm sm}` is :math:`\gamma = \sigma_\tau^2\lambda`.
    temperature : float, optional
        Softmax only: :math:`\tau` (default 1), at least :data:`symrmt.validate.MIN_TEMPERATURE`.
    mask_diagonal : bool
        Softmax only: ``False`` keeps the self-token :math:`S_{ii} \approx \sqrt p` in each softmax,
        which then puts almost all the weight on it (:math:`K' \to \sigma_\tau I`, the features
        become :math:`\sigma_\tau X`: degenerate, for demonstration).
    normalize : {"keys", "queries"}, optional
        Softmax only: ``"keys"`` (default) normalizes each query's weights over its keys (each column of
        :math:`K^{\rm sm}` sums to one, as transformers compute it); ``"queries"`` each row, the transposed
        model (:mod:`symrmt.simulation.softmax`). Both have the same deterministic equivalent.
    theory : bool
        Also solve the theory at the same points and attach the verdict of each
        (:func:`symrmt.analysis.agreement.compare`): ``result.agreement``.

    Returns
    -------
    SimulationResult

    Raises
    ------
    ParameterError
        For invalid sizes, ridge parameters, seeds, geometry, weights or method, for
        both ``geometry`` and ``gram``, for weight vectors in the geometry next to
        ``weights``, and when the run would not fit in the available memory (checked
        before anything is allocated).
    SymrmtInputError
        When ``f`` is not centered, not real or not finite on the scores, or ``params``
        does not give one value per parameter of f.
    ConvergenceError
        When an error leaves [0, 1] by more than round-off.

    Warns
    -----
    FiniteSizeWarning
        When a norm exceeds :math:`p^{1/4}`.

    Examples
    --------
    >>> res = simulate(np.tanh, n=64, c=1.0, gamma=[0.1, 1.0], seeds=2)
    >>> res.attention_mean.shape, res.attention_per_seed.shape
    ((2,), (2, 2))
    >>> gram = np.diag([1.0, 0.5, 0.25, 0.5, 0.25])   # rank 2: (mu, w_K1, w_K2, w_Q1, w_Q2)
    >>> simulate(np.tanh, n=64, c=1.0, gamma=0.1, gram=gram, seeds=2).gram.shape
    (5, 5)
    >>> simulate(None, n=64, c=1.0, gamma=0.1, seeds=2, attention="softmax", temperature=2.0).softmax["temperature"]
    2.0
    """
    model, c = _model(n, c, geometry, gram, d, random_frame, weights)
    model = _with_attention(model, f, attention, temperature, mask_diagonal, normalize)
    grid = _gamma_grid(gamma)
    seeds, seed = _seeds(seeds, seed, 2)
    if not isinstance(theory, (bool, np.bool_)):
        raise ParameterError(f"theory = {theory!r}: must be True or False.")
    if theory and model.weights is not None:
        raise ParameterError("theory=True needs the weights as a Gram matrix (gram= or geometry=): the theory of "
                             "general weights= is that of their fit (symrmt.weights); compare with it directly.")
    method = validate.choice("method", method, METHODS)
    plan = Plan.of(method, model.n, model.p)
    check_memory(plan, seeds, grid.size, weights=model.weights)
    warn_large_norms(model.gram, model.p)
    model = _with_f(model, f, params, check_centered=True)
    generators = _generators(seed, seeds)
    drawn = _drawn_ahead(model, generators) if routes.concurrent(model.n, model.p) else (None,) * seeds
    bar = progress_bar(zip(generators, drawn), desc="simulate", unit="seed", total=seeds, enabled=progress)
    draws = [_one_draw(model, plan, grid, rng, box) for rng, box in bar]
    attention = np.array([a for a, _, _ in draws])
    linear = np.array([lin for _, lin, _ in draws])
    result = SimulationResult(
        *_frozen(grid, *mean_se(attention), *mean_se(linear), attention, linear),
        n=model.n, p=model.p, c=c, d=model.d, seeds=seeds, seed=seed, geometry=model.geometry,
        gram=model.gram, method=method, routes=_route_counts([used for _, _, used in draws]),
        weights=None if model.weights is None else model.weights.summary(), softmax=_softmax_summary(model),
    )
    if theory:
        from ..analysis.agreement import attach_theory

        result = attach_theory(result, f, params)
    return result


def simulate_spectrum(
    f: Callable[[np.ndarray], np.ndarray] | str | Any,
    n: int,
    c: float,
    matrix: str = "gram",
    geometry: Geometry | None = None,
    d: float = 0.0,
    seeds: int = 1,
    seed: int = 0,
    random_frame: bool = False,
    *,
    gram: Any = None,
    progress: bool = True,
    weights: Any = None,
    params: Mapping[str, float] | None = None,
    attention: str = "entrywise",
    temperature: float | None = None,
    mask_diagonal: bool = True,
    normalize: str | None = None,
) -> np.ndarray:
    r"""All eigenvalues of the attention Gram matrix or of the kernel matrix, pooled over seeds.

    ``matrix="gram"``: the n eigenvalues of :math:`K^\top X^\top X K/n` (the matrix
    whose resolvent gives :math:`E_{\rm attn}`; when p < n, n - p of them are exactly
    0). ``matrix="kernel"``: the n eigenvalues of :math:`K` itself, which must be
    symmetric: no weights, or :math:`w_K^{(k)} = w_Q^{(k)}` for every k. Both are
    exact (LAPACK eigvalsh of the smaller Gram, resp. of K), for comparison with
    the spectral density of docs/theory.md, section 5.

    The draws are those of :func:`simulate` with the same ``seed``, ``geometry`` /
    ``gram``, ``d`` and ``random_frame`` (same ``SeedSequence`` children, same draw
    order), so seed k here is seed k there.

    Parameters
    ----------
    f, n, c, geometry, d, seed, random_frame, gram, progress, weights, params, attention, temperature, mask_diagonal, normalize
        As in :func:`simulate` (f must be centered; softmax attention: ``matrix="gram"`` only, its :math:`K'` is
        not symmetric).
    matrix : {"gram", "kernel"}
        Which matrix.
    seeds : int
        Number of independent draws, :math:`\ge 1`.

    Returns
    -------
    numpy.ndarray
        Shape ``(seeds * n,)``: the ascending eigenvalues of seed 0, then of seed 1, ...

    Raises
    ------
    ParameterError
        For invalid parameters, ``matrix="kernel"`` with :math:`w_K \ne w_Q` (or a
        non-symmetric ``weights``), or a run that would not fit in memory.

    Examples
    --------
    >>> eigenvalues = simulate_spectrum(np.tanh, n=40, c=0.5, seeds=2)
    >>> eigenvalues.shape, int(np.sum(eigenvalues[:40] == 0.0))
    ((80,), 20)
    >>> bool(np.all(simulate_spectrum(np.tanh, n=40, c=1.0, matrix="kernel") > -1))
    True
    """
    matrix = validate.choice("matrix", matrix, SPECTRA, "('gram': K^T X^T X K/n, 'kernel': K.)")
    model, _ = _model(n, c, geometry, gram, d, random_frame, weights)
    model = _with_attention(model, f, attention, temperature, mask_diagonal, normalize)
    seeds, seed = _seeds(seeds, seed, 1)
    if matrix == "kernel" and model.attention == "softmax":
        raise ParameterError("matrix='kernel' needs a symmetric K; softmax attention normalizes each query, so its "
                             "K' is not symmetric. Use matrix='gram'.")
    if matrix == "kernel":
        check_symmetric_kernel(model.gram)
        if model.weights is not None and not model.weights.is_symmetric():
            raise ParameterError("matrix='kernel' needs a symmetric attention matrix K, i.e. symmetric weights "
                                 "M = M^T; these weights make K asymmetric. Use matrix='gram', or (M + M^T)/2.")
    check_memory(Plan.of("exact", model.n, model.p), seeds, 0, spectrum=matrix, weights=model.weights)
    warn_large_norms(model.gram, model.p)
    model = _with_f(model, f, params, check_centered=True)
    bar = progress_bar(_generators(seed, seeds), desc="simulate", unit="seed", enabled=progress)
    spectra = [_spectrum_once(model, rng, matrix) for rng in bar]
    return np.concatenate(spectra)


def _spectrum_once(model: Model, rng: np.random.Generator, matrix: str) -> np.ndarray:
    """The eigenvalues of one draw (``matrix`` as in :func:`simulate_spectrum`), ascending."""
    from scipy.linalg import eigvalsh

    _, X, vectors = draw(model, rng)
    S, _ = scores(X, vectors, keep_gram=False, weights=model.weights)
    K = attention_matrix(S, model)
    del S
    if matrix == "kernel":
        del X
        # eigvalsh reads one triangle: K is symmetric up to rounding whenever sum_k w_K w_Q^T is
        # (geometry.symmetric_kernel), also when the vectors of a pair differ (w_Q = -w_K, swapped pairs).
        return eigvalsh(K, overwrite_a=True, check_finite=False)
    features = X @ K
    del K, X
    n, p = model.n, model.p
    small = linalg.gram_matrix(features) if p >= n else linalg.cogram_matrix(features)
    del features
    eigenvalues = eigvalsh(small, overwrite_a=True, check_finite=False)
    return np.sort(np.concatenate([np.zeros(max(n - p, 0)), eigenvalues]))


def _drawn_ahead(model: Model, generators: list[np.random.Generator]) -> Iterator[list]:
    """Each seed's ``draw(model, rng)`` in a one-element list (the caller pops it: nothing else keeps the
    arrays alive), in order, the next one drawn in a worker thread while the caller works on this one.

    Exact: each seed has its own generator, so what a seed draws does not depend on when. The
    draw (0.4 of a score GEMM at n = 2048) then overlaps the single-threaded reductions of the
    seed before. One more X is alive meanwhile, so :func:`simulate` asks for it only where
    :func:`~symrmt.simulation.routes.concurrent` allows four arrays of the draw's size
    (:mod:`~symrmt.simulation.memory` counts it there).
    """
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="symrmt-draw") as pool:
        pending = pool.submit(draw, model, generators[0])
        for following in [*generators[1:], None]:
            box = [pending.result()]
            pending = None if following is None else pool.submit(draw, model, following)
            yield box


def _generators(seed: int, seeds: int) -> list[np.random.Generator]:
    return [np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(seeds)]


def _route_counts(used: list[tuple[str, str]]) -> dict[str, dict[str, int]]:
    counts: dict[str, dict[str, int]] = {"attention": {}, "linear": {}}
    for attention, linear in used:
        counts["attention"][attention] = counts["attention"].get(attention, 0) + 1
        counts["linear"][linear] = counts["linear"].get(linear, 0) + 1
    return counts


def _frozen(*arrays: np.ndarray) -> list[np.ndarray]:
    """Read-only float64 copies, so that a frozen result is really immutable."""
    out = []
    for array in arrays:
        array = np.array(array, dtype=np.float64)
        array.setflags(write=False)
        out.append(array)
    return out
