r"""``symrmt.simulate``: the Monte Carlo, with the theory and its verdicts attached on request.

The simulator (:func:`symrmt.simulation.simulate`) knows no theory. ``theory=True`` is composed here,
above it: the simulation runs unchanged, then :func:`~symrmt.analysis.agreement.attach_theory` solves
the theory at the same ridges and attaches the verdict of each point. The arguments are checked before
anything is drawn, so a refused comparison costs no simulation.
"""
from __future__ import annotations

from typing import Any, Callable, Mapping

import numpy as np

from ..errors import ParameterError
from ..geometry import Geometry
from ..simulation import SimulationResult
from ..simulation import simulate as simulate_alone
from .agreement import attach_theory

__all__ = ["simulate"]


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
    theory: bool = False,
) -> SimulationResult:
    r"""Monte Carlo of :math:`E_{\rm attn}(\gamma)` and :math:`E_{\rm lin}(\gamma)`, and the theory beside it.

    The Monte Carlo is :func:`symrmt.simulation.simulate` with the same arguments, the same draws and
    the same numbers; ``theory=True`` adds the theory at the same ridges and a verdict per point.

    Parameters
    ----------
    f, n, c, gamma, geometry, d, seeds, seed, random_frame, gram, method, progress, weights, mu, params, attention, temperature, mask_diagonal, normalize, test_tokens, tokens
        As in :func:`symrmt.simulation.simulate`.
    theory : bool
        Also solve the theory at the same points and attach the verdict of each
        (:func:`symrmt.analysis.agreement.agreement_of`: agrees, finite-size gap, undecided or disagrees, with
        the power of ``seeds`` against a 3% miss): ``result.agreement``.

    Returns
    -------
    SimulationResult

    Raises
    ------
    ParameterError
        As :func:`symrmt.simulation.simulate`; also when ``theory`` is not a bool, and for ``theory=True``
        with ``weights=M`` (its theory is :func:`symrmt.attention_error` with ``weights=M``), both before
        anything is drawn.

    See Also
    --------
    symrmt.simulation.simulate : The Monte Carlo alone, which this function calls with the same arguments.
    symrmt.attention_error : The theory of :math:`E_\mathrm{attn}` that ``theory=True`` puts beside it.
    symrmt.linear_error : The theory of :math:`E_\mathrm{lin}`.

    Examples
    --------
    >>> res = simulate(np.tanh, n=64, c=1.0, gamma=[0.1, 1.0], seeds=2, progress=False)
    >>> res.attention_mean.shape, res.agreement is None
    ((2,), True)
    >>> simulate(np.tanh, n=64, c=1.0, gamma=1.0, seeds=2, progress=False, theory=True).agreement.attention.theory.shape
    (1,)
    """
    if not isinstance(theory, (bool, np.bool_)):
        raise ParameterError(f"theory = {theory!r}: must be True or False.")
    if theory and weights is not None:
        raise ParameterError("theory=True needs the weights as a Gram matrix (gram= or geometry=); the theory of "
                             "weights=M is symrmt.attention_error(f, c, gamma, weights=M, mu=...): compare with it.")
    result = simulate_alone(f, n, c, gamma, geometry, d, seeds, seed, random_frame, gram=gram, method=method,
                            progress=progress, weights=weights, mu=mu, params=params, attention=attention,
                            temperature=temperature, mask_diagonal=mask_diagonal, normalize=normalize,
                            test_tokens=test_tokens, tokens=tokens)
    return attach_theory(result, f, params) if theory else result
