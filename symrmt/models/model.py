r"""A model of the package as one object, and the registry every other layer reads.

A :class:`Model` holds everything that differs from one model to another: its name, whether it takes a
rank of weights, how its fixed-point system is derived (in either form), the form that ``form="auto"``
prefers, how user arguments bind to the system's parameter symbols (:meth:`Model.bind`, the one
check), the observables it reports, and its Monte Carlo. Adding a model is one module that builds a
:class:`Model` and calls :func:`register`; the solver, the code generation, the LaTeX printer and the
command line read the registry and never spell a model's name.

Nothing here imports SymPy at import time: the command line reads the registry to build its choices.
"""
from __future__ import annotations

import dataclasses
import importlib
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Callable

from ..errors import ParameterError

__all__ = ["Model", "register", "unregister", "get", "names", "models", "system_domains"]

#: The forms a system is derived in (:mod:`symrmt.derive.algebraic`).
DERIVED_FORMS = ("quadrature", "algebraic")


@dataclass(frozen=True, eq=False)
class Model:
    r"""One model: its derivation, its parameters, its observables and its Monte Carlo.

    Attributes
    ----------
    name : str
        The name users give (``symrmt latex --kind NAME``, ``symrmt.theory.solve_model(NAME, ...)``).
    summary : str
        One line: what the model is.
    derive : callable
        ``derive(rank, form) -> FixedPointSystem`` for ``form`` in ``("quadrature", "algebraic")``; built
        once per argument pair (cache it). ``rank`` is 1 for a model that takes none.
    read : callable
        ``read(**user_arguments) -> Bound``: reads the user's arguments into the system's parameter symbols
        (:class:`~.binding.Bound`: the rank, ``{symbol: array}`` and the user's names); the domains and the
        broadcasting are checked afterwards, once, by :meth:`bind`.
    takes_rank : bool
        Whether the weights may have any rank :math:`r` (the rank then comes from the Gram matrix).
    auto_form : {"algebraic", "quadrature"}
        The form ``form="auto"`` solves in, where it holds (quadrature: no algebraic attempt at all).
    observables : tuple of str
        The names of the observables the model reports, as the system's symbols print (``("E", "Phi")``).
    simulator : str, optional
        ``"module:function"`` of its Monte Carlo, imported on first use.

    Examples
    --------
    >>> from symrmt import models
    >>> models.LINEAR.name, models.LINEAR.takes_rank, models.ATTENTION.takes_rank
    ('linear', False, True)
    """

    name: str
    summary: str
    derive: Callable[[int, str], Any]
    read: Callable[..., Any]
    takes_rank: bool = False
    auto_form: str = "algebraic"
    observables: tuple[str, ...] = ()
    simulator: str | None = None

    def __post_init__(self) -> None:
        if self.auto_form not in DERIVED_FORMS:
            raise ValueError(f"auto_form = {self.auto_form!r}: use one of {DERIVED_FORMS}")

    def system(self, rank: int = 1, form: str = "quadrature", without_linear_part: bool = False):
        r"""The derived :class:`~symrmt.derive.FixedPointSystem` at ``rank`` in ``form``.

        ``without_linear_part``: the special case :math:`a_1 = 0`, substituted before the form is derived. Its
        algebraic form differs from the general one (which divides by :math:`a_1`): :math:`\lambda` then
        enters the pencil only through :math:`C = c\lambda`, a rank-one term (:mod:`symrmt.derive.algebraic`).
        """
        if form not in DERIVED_FORMS:
            raise ParameterError(f"form = {form!r}: a system is derived in one of {DERIVED_FORMS}.")
        rank = rank if self.takes_rank else 1
        if without_linear_part:
            return _without_linear_part(self, rank, form)
        return self.derive(rank, form)

    def compiled(self, rank: int = 1, form: str = "quadrature", without_linear_part: bool = False):
        """The system compiled for the solver (:func:`symrmt.codegen.compile_system`, once per system), kept on disk
        between processes (:mod:`symrmt.codegen.system_cache`: a new process then derives nothing)."""
        return _compiled(self, rank if self.takes_rank else 1, form, bool(without_linear_part))

    def system_summary(self, rank: int = 1):
        """Name, parameters with their domains, unknowns and observables of the derived system at ``rank``
        (:class:`symrmt.codegen.system_cache.SystemSummary`, kept on disk like :meth:`compiled`)."""
        return _summary(self, rank if self.takes_rank else 1)

    def bind(self, **user_arguments):
        """``(rank, Parameters)``: the user's arguments read by :attr:`read` and checked once against the domains.

        The domains are those the derivation states for each parameter (practical bounds included,
        :mod:`symrmt.validate`); the result is what :func:`symrmt.solve.solve` trusts without checking again.
        """
        from ..solve import check_parameters
        from ..validate import RANGE_HINT

        bound = self.read(**user_arguments)
        summary = self.system_summary(bound.rank)
        return bound.rank, check_parameters(summary.parameters, summary.domains, bound.values, RANGE_HINT,
                                            bound.sources)

    def simulate(self, *args, **kwargs):
        """The model's Monte Carlo (:attr:`simulator`), called with the arguments given."""
        if self.simulator is None:
            raise ParameterError(f"the {self.name} model has no Monte Carlo.")
        module, function = self.simulator.split(":")
        return getattr(importlib.import_module(module), function)(*args, **kwargs)


#: ``id(system) -> (system, keys, domains)``: the numeric domains of each derived system, converted once (the systems
#: live as long as the process, cached by their builders).
_DOMAINS: dict[int, tuple] = {}


def system_domains(system) -> tuple[tuple, dict]:
    """``(keys, domains)`` of ``system``'s parameters as the solver checks them, converted from SymPy once."""
    from ..codegen import parameter_domains

    entry = _DOMAINS.get(id(system))
    if entry is None or entry[0] is not system:
        entry = _DOMAINS[id(system)] = (system, tuple(system.parameters), parameter_domains(system))
    return entry[1], entry[2]


def _request(model: Model, rank: int, form: str, without_linear_part: bool = False) -> dict:
    return {"model": model.name, "rank": rank, "form": form, "without_linear_part": without_linear_part}


@lru_cache(maxsize=None)
def _compiled(model: Model, rank: int, form: str, without_linear_part: bool):
    from ..codegen import compile_system
    from ..codegen.system_cache import compiled

    build = lambda: compile_system(model.system(rank, form, without_linear_part))  # noqa: E731
    if not _ours(model):
        return build()
    return compiled(_request(model, rank, form, without_linear_part), build)


@lru_cache(maxsize=None)
def _summary(model: Model, rank: int):
    from ..codegen.system_cache import SystemSummary, summary

    if not _ours(model):
        return SystemSummary.of(model.system(rank))
    return summary(_request(model, rank, "quadrature"), lambda: model.system(rank))


def _ours(model: Model) -> bool:
    """Whether the model's derivation is the package's own (its sources are in the disk cache's tag); a model
    registered from outside is derived in every process."""
    derive = getattr(model.derive, "func", model.derive)           # a functools.partial: its function
    return (getattr(derive, "__module__", None) or "").startswith("symrmt.models.")


@lru_cache(maxsize=None)
def _without_linear_part(model: Model, rank: int, form: str):
    from ..derive import symbols as S
    from ..derive.algebraic import in_form

    if S.a1 not in model.system(rank).parameters:
        raise ParameterError(f"the {model.name} model has no a_1: without_linear_part does not apply")
    special = model.system(rank).subs({S.a1: 0})
    return in_form(dataclasses.replace(special, name=f"{special.name} (a_1 = 0)"), form)


_REGISTRY: dict[str, Model] = {}


def register(model: Model) -> Model:
    """Add ``model`` to the registry (its name must be new) and return it.

    Parameters
    ----------
    model : Model
        The model, with a name no other registered model has.

    Returns
    -------
    Model
        ``model`` itself.

    Raises
    ------
    ValueError
        Another model of the same name is registered already.

    See Also
    --------
    unregister : Remove it.
    get : Look one up by name.

    Examples
    --------
    >>> import dataclasses
    >>> from symrmt import models
    >>> mine = models.register(dataclasses.replace(models.LINEAR, name="my_linear"))
    >>> models.get("my_linear") is mine
    True
    >>> models.unregister("my_linear")
    """
    if model.name in _REGISTRY and _REGISTRY[model.name] is not model:
        raise ValueError(f"a model named {model.name!r} is registered already")
    _REGISTRY[model.name] = model
    return model


def unregister(name: str) -> None:
    """Remove a model (for tests that register one of their own).

    Parameters
    ----------
    name : str
        The model's name; an unknown name is ignored.

    Returns
    -------
    None

    Raises
    ------
    Nothing
        An unknown name is ignored.

    See Also
    --------
    register : Add a model.

    Examples
    --------
    >>> import dataclasses
    >>> from symrmt import models
    >>> _ = models.register(dataclasses.replace(models.LINEAR, name="my_linear"))
    >>> models.unregister("my_linear")
    >>> "my_linear" in models.names()
    False
    """
    _REGISTRY.pop(name, None)


def get(name: str | Model) -> Model:
    """The registered model called ``name`` (a :class:`Model` is returned as it is).

    Parameters
    ----------
    name : str or Model
        A registered model's name (:func:`names`), or a model.

    Returns
    -------
    Model
        The registered model.

    Raises
    ------
    ParameterError
        An unknown name (the message lists the registered ones).

    See Also
    --------
    names : The registered names.
    symrmt.solve_model : Solve a model at the user's arguments.

    Examples
    --------
    >>> from symrmt import models
    >>> models.get("linear") is models.LINEAR is models.get(models.LINEAR)
    True
    """
    if isinstance(name, Model):
        return name
    try:
        return _REGISTRY[name]
    except (KeyError, TypeError):
        raise ParameterError(f"kind = {name!r}: use one of {names()}.") from None


def names(where: Callable[[Model], bool] | None = None) -> tuple[str, ...]:
    """The registered models' names, in the order of registration (those for which ``where`` holds).

    Parameters
    ----------
    where : callable, optional
        A test on a :class:`Model`; default every model.

    Returns
    -------
    tuple of str
        The names, in the order of registration.

    Raises
    ------
    Exception
        Only what ``where`` raises.

    See Also
    --------
    models : The models themselves.

    Examples
    --------
    >>> from symrmt import models
    >>> models.names()[:2], models.names(lambda m: m.takes_rank)
    (('attention', 'linear'), ('attention', 'kernel_ridge'))
    """
    return tuple(m.name for m in _REGISTRY.values() if where is None or where(m))


def models() -> tuple[Model, ...]:
    """Every registered model, in the order of registration.

    Returns
    -------
    tuple of Model
        Every registered model, in the order of registration.

    Raises
    ------
    Nothing
        It only reads the registry.

    See Also
    --------
    names : Their names, optionally filtered.
    get : One model by name.

    Examples
    --------
    >>> from symrmt import models
    >>> models.models()[0] is models.ATTENTION
    True
    """
    return tuple(_REGISTRY.values())
