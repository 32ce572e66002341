r"""A model of the package as one object, and the registry every other layer reads.

A :class:`Model` holds everything that differs from one model to another: its name, whether it takes a
rank of weights, how its fixed-point system is derived (in either form), the form that ``form="auto"``
prefers, how user arguments bind to the system's parameter symbols (:meth:`Model.bind`, the one
check), the observables it reports, and its Monte Carlo. Adding a model is one module that builds a
:class:`Model` and calls :func:`register`; the solver, the code generation, the LaTeX printer and the
command line read the registry and never spell a model's name.

A model with a numeric solver of its own (general M, softmax, summed heads) gives ``solver``, the solve hook
(``"module:function"`` or a callable, ``solver(form=..., partial=..., **user_arguments) -> RidgeSolution``), instead
of a derivation (a system of its own follows its path through :func:`symrmt.solve.curve.follow`, as general
M's does); ``symrmt.theory.solve_model`` calls it where it would compile and solve the derived system, and
``domains`` states, in words, the ranges it checks that no derivation states. A model whose Monte Carlo has no
theory says so in ``no_theory``. Having no derived system to print, such a model may give ``latex``, the statement
:func:`symrmt.latex` prints for it (:meth:`Model.statement`); without it, printing is refused in one line.

Nothing here imports SymPy at import time: the command line reads the registry to build its choices.
"""
from __future__ import annotations

import dataclasses
import functools
import hashlib
import importlib
import inspect
import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Callable, Iterable, Mapping

from ..errors import ParameterError, ParameterTypeError, shown
from ..solve import check_parameters
from ..validate import RANGE_HINT

__all__ = ["Model", "register", "unregister", "get", "names", "models", "system_domains", "NAME_PATTERN"]

#: A model's name: a letter, then letters, digits, ``_`` or ``-`` (it is a command-line choice and a cache key).
NAME_PATTERN = re.compile(r"[A-Za-z][A-Za-z0-9_-]{0,63}")

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
    solver : str or callable, optional
        The solve hook of a model with a numeric solver of its own: ``solver(form=..., partial=...,
        **user_arguments)`` returns a :class:`symrmt.theory.RidgeSolution` (``"module:function"``, imported on
        first use, or the function). None (the default): the derived system is compiled and solved.
    domains : dict of str to str
        The ranges a numeric solver checks that no derivation states, in words (``{"heads": "an integer >= 1"}``).
    no_theory : str, optional
        Where a model has a Monte Carlo but no deterministic equivalent: why (``solve_model`` refuses with it).
    latex : str or callable, optional
        The printed statement of a model without a derived system (its own equation): ``latex(**options) -> str``
        (``"module:function"``, imported on first use, or the function), called by :func:`symrmt.latex` with the
        options the user gave (those it does not take are refused). None: such a model has nothing to print.

    Examples
    --------
    >>> from symrmt import models
    >>> models.LINEAR.name, models.LINEAR.takes_rank, models.ATTENTION.takes_rank
    ('linear', False, True)
    """

    name: str
    summary: str
    derive: Callable[[int, str], Any] | None = None
    read: Callable[..., Any] | None = None
    takes_rank: bool = False
    auto_form: str = "algebraic"
    observables: tuple[str, ...] = ()
    simulator: str | None = None
    solver: str | Callable[..., Any] | None = None
    domains: Mapping[str, str] = field(default_factory=dict)
    no_theory: str | None = None
    latex: str | Callable[..., str] | None = None

    def __post_init__(self) -> None:
        if self.auto_form not in DERIVED_FORMS:
            raise ParameterError(f"auto_form = {shown(self.auto_form)}: use one of {DERIVED_FORMS}.")
        derived = self.derive is not None and self.read is not None
        if not (derived or self.solver is not None or self.no_theory is not None):
            raise ParameterError(f"model {shown(self.name)}: give derive and read (a derived system), a solver (a "
                                 "numeric one), or no_theory (why there is none).")
        for name in ("derive", "read"):
            if getattr(self, name) is not None and not callable(getattr(self, name)):
                raise ParameterTypeError(f"model {shown(self.name)}: {name} must be a function, not "
                                         f"{type(getattr(self, name)).__name__}.")
        for name in ("solver", "latex"):
            hook = getattr(self, name)
            if hook is not None and not (callable(hook) or (isinstance(hook, str) and hook.count(":") == 1)):
                raise ParameterTypeError(f"model {shown(self.name)}: {name} must be a function or 'module:function'.")

    @property
    def derived(self) -> bool:
        """Whether the model's theory is a derived system (compiled and solved by the package's solver)."""
        return self.solver is None and self.derive is not None

    def solve_hook(self) -> Callable[..., Any] | None:
        """The numeric solver (:attr:`solver`, imported on first use), or None for a derived model."""
        return _imported(self.solver)

    def statement(self, **options: Any) -> str:
        r"""The LaTeX of a model without a derived system: its :attr:`latex` hook called with ``options``.

        Refused in one line (:class:`~symrmt.errors.ParameterError`): a model with no theory, a numeric model without
        the hook, and an option the hook does not take (it would change nothing).

        Examples
        --------
        >>> import dataclasses
        >>> from symrmt import models
        >>> toy = dataclasses.replace(models.SOFTMAX, name="toy", latex=lambda: r"E = \frac{\gamma}{1 + \gamma}")
        >>> print(toy.statement())
        E = \frac{\gamma}{1 + \gamma}
        """
        if self.no_theory is not None:
            raise ParameterError(f"the {self.name} model has no deterministic equivalent to print: {self.no_theory}")
        hook = _imported(self.latex)
        if hook is None:
            raise ParameterError(f"the {self.name} model is solved numerically (symrmt.theory.solve_model) and has no "
                                 "printed statement: it registers no latex hook.")
        taken = _signature_names(hook, solver=False)
        stray = [] if taken is None else [name for name in options if name not in taken]
        if stray:
            raise ParameterError(f"the {self.name} model prints its statement without {', '.join(stray)}: leave "
                                 f"{'them' if len(stray) > 1 else 'it'} out.")
        return hook(**options)

    def taken(self, offered: Iterable[str], needs: Iterable[str] = (), by: str = "the caller") -> tuple[str, ...]:
        """The names among ``offered`` that the model takes (all of them where it takes any keyword), for a caller
        that offers the same arguments to every model (a sweep); how those arguments map to the model's parameters
        is the model's own (its ``read`` or solver).

        Refused in one line (:class:`~symrmt.errors.ParameterError`): a model without a theory, one that does not
        take each of ``needs`` (the caller's axes), and one that requires an argument ``offered`` lacks (``by`` names
        the caller in the message).

        Examples
        --------
        >>> from symrmt import models
        >>> models.LINEAR.taken(("f", "c", "gamma", "d", "geometry", "gram"), needs=("c", "gamma"))
        ('c', 'gamma', 'geometry', 'gram')
        """
        offered = tuple(offered)
        if self.no_theory is not None:
            raise ParameterError(f"the {self.name} model has no deterministic equivalent: {self.no_theory}")
        known = self.arguments()
        taken = offered if known is None else tuple(name for name in offered if name in known)
        absent = [name for name in needs if name not in taken]
        required = [name for name in _required(self) if name not in offered]
        if absent:
            raise ParameterError(f"the {self.name} model takes no {', '.join(absent)}: {by} solves each model over "
                                 f"{', '.join(needs)}; choose another model.")
        if required:
            raise ParameterError(f"the {self.name} model needs {', '.join(required)}, which {by} does not give (it "
                                 f"gives {', '.join(offered)}); choose another model.")
        return taken

    def arguments(self) -> tuple[str, ...] | None:
        """The names of the user arguments the model takes (those of ``read`` or of the solver), None if any."""
        return _arguments(self)

    def check_arguments(self, arguments: Mapping[str, Any]) -> None:
        """Refuse, in one line, the user arguments the model does not take (before anything is solved)."""
        if self.no_theory is not None:
            raise ParameterError(f"the {self.name} model has no deterministic equivalent: {self.no_theory}")
        known = self.arguments()
        unknown = [] if known is None else [k for k in arguments if k not in known]
        if unknown and known is not None:
            raise ParameterTypeError(f"the {self.name} model takes no argument {', '.join(map(shown, unknown))}: "
                                     f"it takes {', '.join(known)}.")

    def _require_derived(self) -> None:
        if not self.derived:
            raise ParameterError(f"the {self.name} model is solved numerically (symrmt.theory.solve_model): it has no "
                                 "derived system to print, compile or bind.")

    def system(self, rank: int = 1, form: str = "quadrature", without_linear_part: bool = False):
        r"""The derived :class:`~symrmt.derive.FixedPointSystem` at ``rank`` in ``form``.

        ``without_linear_part``: the special case :math:`a_1 = 0`, substituted before the form is derived. Its
        algebraic form differs from the general one (which divides by :math:`a_1`): :math:`\lambda` then
        enters the pencil only through :math:`C = c\lambda`, a rank-one term (:mod:`symrmt.derive.algebraic`).
        """
        self._require_derived()
        if form not in DERIVED_FORMS:
            raise ParameterError(f"form = {form!r}: a system is derived in one of {DERIVED_FORMS}.")
        rank = rank if self.takes_rank else 1
        if without_linear_part:
            return _without_linear_part(self, rank, form)
        assert self.derive is not None                 # _require_derived above
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
        self._require_derived()
        self.check_arguments(user_arguments)
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


def _imported(hook: str | Callable[..., Any] | None) -> Callable[..., Any] | None:
    """A hook given as ``"module:function"`` imported (on first use), a function or None as it is."""
    if hook is None or callable(hook):
        return hook
    module, function = hook.split(":")
    return getattr(importlib.import_module(module), function)


def _signature_names(function: Callable[..., Any], required: bool = False, solver: bool = True) -> tuple[str, ...] | None:
    """The keyword arguments ``function`` takes (those without a default where ``required``), None if any; a solver's
    ``form`` and ``partial`` are no user arguments of its model."""
    parameters = inspect.signature(function).parameters.values()
    if any(p.kind is p.VAR_KEYWORD for p in parameters) and not required:
        return None
    own = ("form", "partial") if solver else ()
    return tuple(p.name for p in parameters if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
                 and p.name not in own and not (required and p.default is not p.empty))


def _user_function(model: Model) -> Callable[..., Any] | None:
    """The function whose signature lists the model's user arguments: its solver, or its ``read``."""
    return model.solve_hook() if model.solver is not None else model.read


@lru_cache(maxsize=None)
def _arguments(model: Model) -> tuple[str, ...] | None:
    """:meth:`Model.arguments`, read once per model (a signature costs a millisecond; every solve asks)."""
    function = _user_function(model)
    return () if function is None else _signature_names(function)


@lru_cache(maxsize=None)
def _required(model: Model) -> tuple[str, ...]:
    """The user arguments the model cannot do without (no default)."""
    function = _user_function(model)
    return () if function is None else _signature_names(function, required=True) or ()


#: ``id(system) -> (system, keys, domains)``: the numeric domains of each derived system, converted once (the systems
#: live as long as the process, cached by their builders).
_DOMAINS: dict[int, tuple] = {}


def system_domains(system) -> tuple[tuple, dict]:
    """``(keys, domains)`` of ``system``'s parameters as the solver checks them, converted from SymPy once."""
    from ..codegen import parameter_domains  # heavy: SymPy

    entry = _DOMAINS.get(id(system))
    if entry is None or entry[0] is not system:
        entry = _DOMAINS[id(system)] = (system, tuple(system.parameters), parameter_domains(system))
    return entry[1], entry[2]


def _request(model: Model, rank: int, form: str, without_linear_part: bool = False) -> dict:
    return {"model": model.name, "derivation": _derivation(model), "rank": rank, "form": form,
            "without_linear_part": without_linear_part}


def _derivation(model: Model) -> str:
    """What derives the model's system, for the disk cache's key: the module, name and bound arguments of its
    ``derive`` (the sources of those modules are in the cache's tag), so that an entry belongs to a derivation,
    not to a name another model may take in a later process."""
    derive, bound = model.derive, []
    while isinstance(derive, functools.partial):
        bound.append(repr((derive.args, sorted(derive.keywords.items()))))
        derive = derive.func
    what = f"{getattr(derive, '__module__', None)}.{getattr(derive, '__qualname__', type(derive).__qualname__)}"
    return hashlib.sha256("\0".join([what, *bound]).encode()).hexdigest()[:32]


@lru_cache(maxsize=None)
def _compiled(model: Model, rank: int, form: str, without_linear_part: bool):
    from ..codegen import compile_system  # heavy: SymPy
    from ..codegen.system_cache import compiled  # heavy: SymPy

    build = lambda: compile_system(model.system(rank, form, without_linear_part))
    if not _ours(model):
        return build()
    return compiled(_request(model, rank, form, without_linear_part), build)


@lru_cache(maxsize=None)
def _summary(model: Model, rank: int):
    from ..codegen.system_cache import SystemSummary, summary  # heavy: SymPy

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
    from ..derive import symbols as S  # heavy: SymPy
    from ..derive.algebraic import in_form  # heavy: SymPy

    if S.a1 not in model.system(rank).parameters:
        raise ParameterError(f"the {model.name} model has no a_1: without_linear_part does not apply")
    special = model.system(rank).subs({S.a1: 0})
    return in_form(dataclasses.replace(special, name=f"{special.name} (a_1 = 0)"), form)


_REGISTRY: dict[str, Model] = {}
#: The names of the package's own models (:func:`seal_built_ins`): they cannot be unregistered.
_BUILT_IN: set[str] = set()


def check_name(name: Any) -> str:
    """``name`` if it is a model's name (:data:`NAME_PATTERN`); else the one-line refusal."""
    if not isinstance(name, str):
        raise ParameterTypeError(f"a model's name must be a string, not {type(name).__name__} ({shown(name)}).")
    if not NAME_PATTERN.fullmatch(name):
        raise ParameterError(f"model name {shown(name)}: use a letter, then up to 63 letters, digits, _ or - "
                             "(it is a command-line choice).")
    return name


def register(model: Model) -> Model:
    """Add ``model`` to the registry (its name must be new) and return it.

    Refuses, in one line, anything that is not a :class:`Model` (:class:`~symrmt.errors.ParameterTypeError`), a
    name that is empty, not a string or not of :data:`NAME_PATTERN`, and a name registered already by another
    model (:class:`~symrmt.errors.ParameterError`).

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
    ParameterTypeError
        ``model`` is not a :class:`Model`.
    ParameterError
        An empty, non-string or malformed name, or a name another model has already.

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
    if not isinstance(model, Model):
        raise ParameterTypeError(f"register takes a symrmt.models.Model, not {type(model).__name__}: build one with "
                                 "Model(name=..., summary=..., ...).")
    check_name(model.name)
    if model.name in _REGISTRY and _REGISTRY[model.name] is not model:
        raise ParameterError(f"a model named {shown(model.name)} is registered already: choose another name, or "
                             "unregister yours first.")
    _REGISTRY[model.name] = model
    return model


def seal_built_ins() -> None:
    """Mark the models registered so far as the package's own (called once, by :mod:`symrmt.models`)."""
    _BUILT_IN.update(_REGISTRY)


def unregister(name: str) -> None:
    """Remove a model registered by its user (for tests that register one of their own); a built-in is refused.

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
    if isinstance(name, str) and name in _BUILT_IN:
        raise ParameterError(f"the {name} model is one of the package's own: it cannot be unregistered.")
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
        raise ParameterError(f"kind = {shown(name)}: use one of {names()}.") from None


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
