r"""A solved model read back by symbol (:class:`RidgeSolution`), and :func:`solve_model`, which solves any registered one.

Every registered model (:mod:`symrmt.models`) is solved here: a derived system is bound once
(:meth:`symrmt.models.Model.bind`), compiled and solved in the form asked (:mod:`symrmt.theory.forms`); a model with a
numeric solver of its own goes through its hook. The models' own entry points (:mod:`.ridge`, :mod:`.baselines`,
:mod:`.softmax`, :mod:`.heads`) are thin calls of :func:`solve_model`.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

import numpy as np

from ..display import solve_as_dict, solve_html, to_csv
from ..solve import PointFailure, SolveResult
from ..models import Model
from ..models import get as get_model
from .forms import DEFAULT_FORM, check_form, solve_in_form

__all__ = ["RidgeSolution", "ridge_solution", "solve_model", "masked"]


@dataclass(frozen=True)
class RidgeSolution:
    r"""A solved model at every point: its observables keyed by the system's own symbols, the unknowns, residuals.

    ``solution[key]`` reads an observable by its symbol or its name (``"E"``, ``"Phi"``); ``error`` and ``phi``
    are those of a ridge system (:func:`symrmt.derive.attention.ridge_system`: :math:`E` and
    :math:`\Phi = y^\top Q y/n`). With ``partial=True`` the arrays are :class:`numpy.ma.MaskedArray`, masked
    where the point could not be solved (``failed``; the data there is NaN, also after ``filled()``), and
    ``failures`` says why, point by point. ``form_used`` names, per point, the form that answered it
    (:class:`symrmt.theory.forms.Route`).

    Examples
    --------
    >>> import numpy as np, symrmt
    >>> s = symrmt.solve_attention("tanh(x)", c=1.0, gamma=[0.01, 0.1, 1.0])
    >>> np.round(s.error, 3).tolist(), s.unknowns.shape[-1] == len(s.unknown_names)
    ([0.167, 0.453, 0.743], True)
    """

    observables: Mapping
    unknowns: np.ndarray
    residual: np.ndarray
    unknown_names: tuple = ()
    failed: np.ndarray | None = None
    failures: tuple[PointFailure, ...] = ()
    form_used: np.ndarray | None = None

    def __getitem__(self, key) -> np.ndarray:
        if key in self.observables:
            return self.observables[key]
        named = {str(k): v for k, v in self.observables.items()}
        if key in named:
            return named[key]
        raise KeyError(f"{key!r}: the observables are {list(named)}")

    @property
    def error(self) -> np.ndarray:
        """:math:`E(\\gamma)`, the ridge error."""
        from ..derive.symbols import ERROR  # heavy: SymPy

        return self[ERROR]

    @property
    def phi(self) -> np.ndarray:
        r""":math:`\Phi = y^\top Q y/n`."""
        from ..derive.symbols import PHI  # heavy: SymPy

        return self[PHI]

    def as_dict(self) -> dict:
        """Plain lists: ``error``, ``phi``, ``residual`` and one entry per unknown."""
        return solve_as_dict(self, self.unknown_names)

    def to_csv(self, path=None, gamma=None) -> str:
        """CSV, one row per point (``gamma`` adds it as the first column); written to ``path`` if given."""
        return to_csv(self, path, gamma)

    def _repr_html_(self) -> str:
        return solve_html(self, unknowns=self.unknown_names)


def ridge_solution(result: SolveResult, partial: bool = False) -> RidgeSolution:
    """The :class:`RidgeSolution` of a solved system: every observable by its symbol.

    With ``partial`` the arrays are masked where ``result.failed``.

    Parameters
    ----------
    result : SolveResult
        What :func:`symrmt.solve.solve` returned.
    partial : bool
        Mask the points that failed (True), or keep them as they are.

    Returns
    -------
    RidgeSolution
        ``error`` and the other observables by their symbols, the unknowns and the residuals.

    Raises
    ------
    Nothing
        It only reads ``result``.

    See Also
    --------
    solve_model : Solves a model and calls this.

    Examples
    --------
    >>> import numpy as np
    >>> from symrmt.models import LINEAR
    >>> from symrmt.solve import solve
    >>> from symrmt.theory import ridge_solution
    >>> rank, parameters = LINEAR.bind(c=1.0, gamma=[0.1, 1.0])
    >>> np.round(ridge_solution(solve(LINEAR.compiled(rank), parameters)).error, 4).tolist()
    [0.1562, 0.4472]
    """
    failed = result.failed if result.failed is not None else np.zeros(np.shape(result.residual), bool)
    observables, unknowns, residual = dict(result.observables), result.unknowns, result.residual
    if partial:
        observables = {k: masked(v, failed) for k, v in observables.items()}
        unknowns, residual = masked(unknowns, failed), masked(residual, failed)
    return RidgeSolution(observables, unknowns, residual, tuple(str(t) for t in result.unknown_keys), failed,
                         result.failures, getattr(result, "form_used", None))


def solve_model(model: Model | str, form: str = DEFAULT_FORM, partial: bool = False, **arguments) -> RidgeSolution:
    """Solve any registered model (:mod:`symrmt.models`) at the user's ``arguments`` (those of its ``bind``).

    The arguments are read and checked once (:meth:`symrmt.models.Model.bind`); ``form`` and ``partial``
    as in :func:`solve_attention`. A model with a numeric solver of its own (general M, softmax, summed heads:
    :mod:`symrmt.models.numeric`) is solved by its hook (:meth:`symrmt.models.Model.solve_hook`), which returns a
    :class:`RidgeSolution` (or a :class:`symrmt.solve.SolveResult`). An argument the model does not take is refused
    in one line (:meth:`symrmt.models.Model.check_arguments`). The built-in models have their own functions below;
    this one serves a model registered by its user as well.

    Parameters
    ----------
    model : Model or str
        A registered model (:func:`symrmt.models.names`) or its name.
    form : {"auto", "algebraic", "quadrature"}
        Which form of the system solves it.
    partial : bool
        False (default): :class:`~symrmt.errors.ConvergenceError` for a point that cannot be solved; True: the other
        points, masked where one failed.
    **arguments
        The model's arguments (those of its ``bind``), e.g. ``f``, ``c``, ``gamma``.

    Returns
    -------
    RidgeSolution
        ``error`` and the other observables by their symbols, the unknowns and the residuals.

    Raises
    ------
    ParameterError
        An unknown model, or an argument its ``bind`` refuses.
    ConvergenceError
        Without ``partial``, when some point cannot be solved.

    See Also
    --------
    attention_error, linear_error, kernel_ridge_error : The built-in models' own functions.
    symrmt.models.register : Register a model of one's own.

    Examples
    --------
    >>> round(float(solve_model("kernel_ridge", f="tanh(x)", c=1.0, gamma=0.1).error), 3)
    0.242
    """
    model = get_model(model)
    model.check_arguments(arguments)
    hook = model.solve_hook()
    if hook is not None:                      # a numeric solver of its own (symrmt.models.numeric)
        solution = hook(form=form, partial=partial, **arguments)
        return solution if isinstance(solution, RidgeSolution) else ridge_solution(solution, partial)
    check_form(form)
    rank, parameters = model.bind(**arguments)
    return ridge_solution(solve_in_form(model, rank, parameters, form, partial), partial)


def masked(values: np.ndarray, failed: np.ndarray) -> np.ma.MaskedArray:
    """``values`` masked where ``failed`` (broadcast over leading axes), NaN underneath and as fill value.

    A failed point then cannot pass for a number: it prints as ``--``, reductions skip it, and
    ``np.asarray`` or ``filled()`` give NaN, never a plausible value.
    """
    data = np.array(values, dtype=np.result_type(values, float))
    mask = np.broadcast_to(failed, data.shape)
    data[mask] = np.nan
    return np.ma.MaskedArray(data, mask=mask.copy(), fill_value=np.nan)
