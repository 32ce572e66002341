r"""General M and its elliptic model as registered models: their solve hooks (:mod:`symrmt.models.numeric`).

:func:`symrmt.theory.solve_model` calls these where a derived model's system would be compiled and solved;
the numbers are those of :mod:`symrmt.general` (the fixed point in normalized traces of words in M, followed
in :math:`\gamma` by the package's one-curve continuation, :func:`symrmt.solve.curve.follow`), returned as a :class:`~symrmt.theory.RidgeSolution` keyed by the
observable symbols :math:`E` and :math:`\Phi` like every other model. The arguments are read once, by the
readers of the main path (:func:`symrmt.general.solver.read_arguments`). A point the continuation cannot
solve is a :class:`~symrmt.errors.ConvergenceError` (the solver's failure, as on the main path); the whole grid
is one continuation, so ``partial`` cannot keep the other points and is refused.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from .. import validate
from ..errors import ParameterError
from .forms import DEFAULT_FORM, check_form
from .ridge import RidgeSolution

__all__ = ["solve_general", "solve_elliptic", "UNKNOWNS"]

#: The unknowns of the general-M fixed point: the upper triangle of the 3 x 3 traces t.
UNKNOWNS = ("t11", "t12", "t13", "t22", "t23", "t33")


def _numeric(model: str, form: str, partial: Any) -> None:
    """Refuse ``form`` and ``partial`` where they cannot apply: a numeric solver has no forms, one continuation."""
    check_form(form)
    if form != DEFAULT_FORM:
        raise ParameterError(f"form = {form!r}: the {model} model is solved numerically, not from a derived system "
                             "in a form; leave form out.")
    if validate.boolean("partial", partial):
        raise ParameterError(f"partial=True: the {model} model solves the whole gamma grid by one continuation, so "
                             "a failed point cannot be left out; leave partial out.")


def _solution(general, shape: tuple, with_phi: bool) -> RidgeSolution:
    """The :class:`RidgeSolution` of a :class:`symrmt.general.GeneralSolution`, in the shape of the user's gamma."""
    from ..derive.symbols import ERROR, PHI  # heavy: SymPy

    iu = np.triu_indices(3)
    observables = {ERROR: general.error.reshape(shape)}
    if with_phi:
        observables[PHI] = general.phi.reshape(shape)
    unknowns = np.moveaxis(general.t[:, iu[0], iu[1]], -1, 0).reshape((len(UNKNOWNS), *shape))
    return RidgeSolution(observables, unknowns, general.residual.reshape(shape), UNKNOWNS,
                         np.zeros(shape, bool), ())


def solve_general(f: Any, c: Any, gamma: Any, weights: Any, mu: Any = None, d: Any = 0.0, *,
                  form: str = DEFAULT_FORM, partial: bool = False) -> RidgeSolution:
    r"""The solve hook of ``attention_general``: :math:`E_\mathrm{attn}` and :math:`\Phi` for scores
    :math:`X^\top M X/\sqrt p` (:func:`symrmt.general.solve_general`; arguments as there).

    Examples
    --------
    >>> import numpy as np, symrmt
    >>> s = symrmt.solve_model("attention_general", f="tanh(x)", c=1.0, gamma=[0.1, 1.0], weights=np.eye(64))
    >>> np.round(s.error, 4).tolist()
    [0.4532, 0.7427]
    """
    from ..general import solve_general as general  # heavy: SciPy

    _numeric("attention_general", form, partial)
    solution = general(f, c, gamma, weights, mu, d)
    return _solution(solution, np.shape(gamma), with_phi=True)


def solve_elliptic(f: Any, c: Any, gamma: Any, weights: Any, d: Any = 0.0, rank: int = 0, mu: Any = None, *,
                   form: str = DEFAULT_FORM, partial: bool = False) -> RidgeSolution:
    r"""The solve hook of ``attention_elliptic``: M replaced by :math:`sI + L + E` (:mod:`symrmt.general.elliptic`).

    Examples
    --------
    >>> import numpy as np, symrmt
    >>> s = symrmt.solve_model("attention_elliptic", f="tanh(x)", c=1.0, gamma=0.1, weights=np.eye(64))
    >>> round(float(s.error), 4)
    0.4532
    """
    from ..general.elliptic import solve_elliptic as elliptic  # heavy: SciPy

    _numeric("attention_elliptic", form, partial)
    solution = elliptic(f, c, gamma, weights, d, rank=rank, mu=mu)
    return _solution(solution, np.shape(gamma), with_phi=False)
