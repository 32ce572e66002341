r"""The public functions of the Monte Carlo: :func:`simulate`, :func:`simulate_once`, :func:`simulate_spectrum`.

Each call validates its arguments (:mod:`~symrmt.simulation.setup`: :mod:`symrmt.validate`,
:func:`symrmt.geometry.resolve_gram`), fixes its routes (:class:`~symrmt.simulation.routes.Plan`), refuses a run that would not fit in
memory (:mod:`~symrmt.simulation.memory`) and only then turns f into a NumPy function through
the one adapter (:func:`symrmt.nonlinearity.adapter.numpy_callable`, which imports SymPy only
for formulas and expressions), draws (:mod:`~symrmt.simulation.model`) and solves
(:mod:`~symrmt.simulation.linalg`).
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any, Callable, Mapping

import numpy as np
from scipy.linalg import eigvalsh

from .. import validate
from .seeds import mean_se
from ..errors import ParameterError
from ..geometry import Geometry, check_symmetric_kernel
from . import linalg, routes, threads
from .memory import check_memory
from .model import Model, attention_matrix, draw, scores, warn_large_norms
from .new_tokens import token_count, token_errors
from .tokens import token_law
from .result import SimulationResult, TestErrors, frozen
from .routes import METHODS, Plan
from .setup import Setup, gamma_grid, seed_count, validated_model, with_attention, with_f
from .softmax import softmax_scale

__all__ = ["SimulationResult", "simulate", "simulate_once", "simulate_spectrum"]

#: The ``matrix`` values of :func:`simulate_spectrum`.
SPECTRA = ("gram", "kernel")


def _softmax_summary(model: Model) -> dict | None:
    """:attr:`SimulationResult.softmax` of ``model``."""
    if model.attention != "softmax":
        return None
    return {"temperature": model.temperature, "mask_diagonal": model.mask_diagonal,
            "normalize": model.normalize, "scale": softmax_scale(model.n, model.p, model.temperature)}


def _one_draw(model: Model, plan: Plan, grid: np.ndarray, rng: np.random.Generator,
              drawn: list | None = None, tokens: int | None = None) -> tuple[Any, ...]:
    """:func:`simulate_once` after validation; also returns the routes used, and with ``tokens`` the test errors.

    ``drawn``: a list holding ``draw(model, rng)`` made ahead (:meth:`~.setup.Setup.run_seeds`); it is emptied,
    so that the routes can release X and K as they go. ``tokens``: also the test errors of the draw over that many
    fresh tokens (:func:`~.new_tokens.token_errors`, from ``rng`` after the context; the interpolation errors do not
    change), returned after the routes.

    The level-3 products run on the BLAS threads that :mod:`~symrmt.simulation.threads` measured
    fastest at this size; the reductions inside set their own.
    """
    with threads.blas_threads(threads.policy(max(model.n, model.p)).products):
        y, X, vectors = draw(model, rng) if drawn is None else drawn.pop()
        S, C = scores(X, vectors, plan.keeps_gram, model.weights)
        K = attention_matrix(S, model)
        del S
        tested = () if tokens is None else token_errors(model, y, X, K, vectors, grid, tokens, rng)
        instance = routes.Instance(y, X, K, C)
        del X, K, C  # the instance owns them now and releases them route by route
        attention, linear, used = routes.errors(plan, instance, grid)
    return (routes.unit_interval(attention, "attention", grid), routes.unit_interval(linear, "linear", grid), used,
            *tested)


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
    mu: Any = None,
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
        agree to 1e-6 relative.
    weights : array_like or tuple, optional
        Any :math:`W_K^\top W_Q`, as in :func:`simulate`.
    mu : array_like, optional
        The signal vector of ``weights``, as in :func:`simulate`.
    attention, temperature, mask_diagonal, normalize
        Entrywise or softmax attention, as in :func:`simulate`.

    Returns
    -------
    attention, linear : numpy.ndarray
        Shape ``(G,)`` each, in the order of ``gamma``.

    Raises
    ------
    ParameterError, SymrmtInputError
        As :func:`simulate` (which checks the arguments; this function trusts them).

    See Also
    --------
    simulate : Every seed, with means, standard errors and checks.

    Examples
    --------
    >>> e_attn, e_lin = simulate_once(np.tanh, 50, 1.0, [0.1, 1.0], Geometry(), 0.0,
    ...                               np.random.default_rng(0))
    >>> e_attn.shape, bool(np.all((0 <= e_lin) & (e_lin <= 1)))
    ((2,), True)
    """
    model, _ = validated_model(n, c, geometry, gram, d, random_frame, weights, mu)
    model = with_attention(model, f, attention, temperature, mask_diagonal, normalize)
    grid = gamma_grid(gamma)
    plan = Plan.of(validate.choice("method", method, METHODS), model.n, model.p)
    if not isinstance(rng, np.random.Generator):
        raise ParameterError(f"rng = {rng!r}: must be a numpy.random.Generator (np.random.default_rng(seed)).")
    check_memory(plan, 1, grid.size, weights=model.weights)
    warn_large_norms(model.gram, model.p)
    attention, linear, *_ = _one_draw(with_f(model, f), plan, grid, rng)
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
    mu: Any = None,
    params: Mapping[str, float] | None = None,
    attention: str = "entrywise",
    temperature: float | None = None,
    mask_diagonal: bool = True,
    normalize: str | None = None,
    test_tokens: int | bool | None = None,
    tokens: Any = None,
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
        Number of independent draws, :math:`\ge 2` (a t interval needs two: :data:`symrmt.validate.TWO_SEEDS`).
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
        (very small gamma), so all agree with ``"exact"`` to 1e-6 relative (the Lanczos
        bracket's width ``LANCZOS_RTOL``; the other routes to rounding).
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
        ``random_frame``; another direction with ``mu=``). ``M = 0`` is refused (score variance 0, as in
        the theory).
    mu : array_like, optional
        With ``weights=``: the signal vector :math:`\mu \in \mathbb R^p` itself, the argument
        :func:`symrmt.attention_error` takes with ``weights=M`` (then the geometry must not hold a
        :math:`\mu` and ``random_frame`` must be False). The draw puts :math:`\mu` along :math:`e_1` and
        sees M from a frame whose first axis is :math:`\mu/\|\mu\|`
        (:func:`~symrmt.simulation.weights.align_signal`): the law of the errors is that of
        :math:`(M, \mu)`. Refused: a vector of the wrong length, non-finite entries, mu without weights.
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
    test_tokens : int or bool, optional
        Also the in-context test error of the same probe on this many fresh tokens
        :math:`x = y_*\mu + z` per draw (``True``: :data:`~symrmt.simulation.new_tokens.DEFAULT_TEST_TOKENS`),
        for attention (:math:`\hat y = w^\top (X k(x) + d x)`, the context tokens as keys, x the query) and for
        ridge regression on X: ``result.test`` (:class:`~symrmt.simulation.result.TestErrors`;
        :mod:`~symrmt.simulation.new_tokens`). Entrywise attention only. Default ``None``: no test error, and the
        draws, numbers and result are those of a call without it (the test tokens are drawn after the context).
    tokens : str, TokenLaw or callable, optional
        The law of the noise entries of :math:`Z` (and of the test tokens' z): ``"gaussian"`` (default, the
        theory's law), ``"rademacher"``, ``"two_point:q"``, ``"student_t:nu"`` (:math:`\nu > 4`), ``"sparse:s"``,
        or a sampler ``sample(rng, shape)`` of centred, unit-variance entries (:func:`~symrmt.simulation.tokens.
        token_law`). Its fourth moment :math:`m_4` is reported in ``result.tokens``. The Gaussian default draws
        exactly as before.

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

    See Also
    --------
    symrmt.attention_error, symrmt.linear_error : The deterministic equivalents the Monte Carlo checks.
    symrmt.converge : The Monte Carlo over a ladder of n, extrapolated to n = infinity.

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
    model, c = validated_model(n, c, geometry, gram, d, random_frame, weights, mu)
    model = replace(model, tokens=token_law(tokens, seed=seed if isinstance(seed, int) else 0))
    setup = Setup.of(with_attention(model, f, attention, temperature, mask_diagonal, normalize), c, gamma, seeds, seed)
    model = setup.model
    law = model.tokens
    tokens = token_count(test_tokens)
    if tokens is not None and model.attention != "entrywise":
        raise ParameterError("test_tokens: the test error is simulated for entrywise attention (an f) only; leave "
                             "test_tokens out with attention='softmax'.")
    method = validate.choice("method", method, METHODS)
    plan = Plan.of(method, model.n, model.p)
    check_memory(plan, setup.seeds, setup.grid.size, weights=model.weights, test_tokens=tokens is not None)
    warn_large_norms(model.gram, model.p)
    setup = setup.with_f(f, params)
    model, grid = setup.model, setup.grid
    draws = setup.run_seeds(lambda rng, drawn: _one_draw(model, plan, grid, rng, drawn, tokens), progress=progress,
                            ahead=routes.concurrent(model.n, model.p))
    attention = np.array([drawn[0] for drawn in draws])
    linear = np.array([drawn[1] for drawn in draws])
    result = SimulationResult(
        *frozen(grid, *mean_se(attention), *mean_se(linear), attention, linear),
        n=model.n, p=model.p, c=c, d=model.d, seeds=setup.seeds, seed=setup.seed, geometry=model.geometry,
        gram=model.gram, method=method, routes=_route_counts([drawn[2] for drawn in draws]),
        weights=None if model.weights is None else model.weights.summary(), softmax=_softmax_summary(model),
        test=None if tokens is None else _test_errors(tokens, draws),
        tokens=None if law.is_gaussian else law.summary(),
    )
    return result


def _test_errors(tokens: int, draws: list[tuple]) -> TestErrors:
    """:attr:`SimulationResult.test` from the draws of :func:`_one_draw` with ``tokens``: means and standard errors
    over seeds by the same :func:`~.seeds.mean_se` as the interpolation errors."""
    attention = np.array([drawn[3] for drawn in draws])
    linear = np.array([drawn[4] for drawn in draws])
    return TestErrors(tokens, *frozen(*mean_se(attention), *mean_se(linear), attention, linear))


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

    See Also
    --------
    symrmt.spectral_density : The limiting density of the same eigenvalues.
    symrmt.simulate : The interpolation error of the same finite model.

    Examples
    --------
    >>> eigenvalues = simulate_spectrum(np.tanh, n=40, c=0.5, seeds=2)
    >>> eigenvalues.shape, int(np.sum(eigenvalues[:40] == 0.0))
    ((80,), 20)
    >>> bool(np.all(simulate_spectrum(np.tanh, n=40, c=1.0, matrix="kernel") > -1))
    True
    """
    matrix = validate.choice("matrix", matrix, SPECTRA, "('gram': K^T X^T X K/n, 'kernel': K.)")
    model, c = validated_model(n, c, geometry, gram, d, random_frame, weights)
    setup = Setup(with_attention(model, f, attention, temperature, mask_diagonal, normalize), c, None, *seed_count(seeds, seed, 1))
    model = setup.model
    if matrix == "kernel" and model.attention == "softmax":
        raise ParameterError("matrix='kernel' needs a symmetric K; softmax attention normalizes each query, so its "
                             "K' is not symmetric. Use matrix='gram'.")
    if matrix == "kernel":
        check_symmetric_kernel(model.gram)
        if model.weights is not None and not model.weights.is_symmetric():
            raise ParameterError("matrix='kernel' needs a symmetric attention matrix K, i.e. symmetric weights "
                                 "M = M^T; these weights make K asymmetric. Use matrix='gram', or (M + M^T)/2.")
    check_memory(Plan.of("exact", model.n, model.p), setup.seeds, 0, spectrum=matrix, weights=model.weights)
    warn_large_norms(model.gram, model.p)
    setup = setup.with_f(f, params)
    spectra = setup.run_seeds(lambda rng, _: _spectrum_once(setup.model, rng, matrix), progress=progress)
    return np.concatenate(spectra)


def _spectrum_once(model: Model, rng: np.random.Generator, matrix: str) -> np.ndarray:
    """The eigenvalues of one draw (``matrix`` as in :func:`simulate_spectrum`), ascending."""
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


def _route_counts(used: list[tuple[str, str]]) -> dict[str, dict[str, int]]:
    counts: dict[str, dict[str, int]] = {"attention": {}, "linear": {}}
    for attention, linear in used:
        counts["attention"][attention] = counts["attention"].get(attention, 0) + 1
        counts["linear"][linear] = counts["linear"].get(linear, 0) + 1
    return counts
