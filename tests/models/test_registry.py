"""symrmt.models: one Model per model, registered once; a model added from outside the package runs everywhere."""
import ast
import json
import pathlib

import numpy as np
import pytest
import sympy as sp

import symrmt
from symrmt import models
from symrmt.cli import main
from symrmt.derive import symbols as S
from symrmt.derive.attention import attention_system, linear_system, ridge_system
from symrmt.derive.density import density_system
from symrmt.derive.gaussian_equivalent import data_low_rank
from symrmt.derive.dyson import ridge_scale
from symrmt.derive.kernel_ridge import kernel_ridge_system
from symrmt.derive.pencil import ridge_pencil
from symrmt.derive.woodbury import PlacedTerm
from symrmt.errors import ParameterError
from symrmt.models.binding import Bound
from symrmt.validate import positive_array, real_array

PACKAGE = pathlib.Path(symrmt.__file__).parent


def test_every_model_derives_its_system():
    assert models.ATTENTION.system(2) is attention_system(2) and models.LINEAR.system() is linear_system()
    assert models.GRAM_DENSITY.system() is density_system("gram")
    assert models.KERNEL_DENSITY.system() is density_system("kernel")
    assert models.KERNEL_RIDGE.system(2) is kernel_ridge_system(2)
    assert models.LINEAR.system(3) is linear_system()                 # a model without a rank ignores it
    assert models.names() == ("attention", "linear", "gram_density", "kernel_density", "kernel_ridge",
                              "attention_general", "attention_elliptic", "softmax", "summed_heads", "concatenated_heads")
    with pytest.raises(ParameterError, match="kind = 'ridge'"):
        models.get("ridge")


def test_a_name_is_registered_once():
    with pytest.raises(ValueError, match="registered already"):
        models.register(models.Model("attention", "again", models.ATTENTION.derive, models.ATTENTION.read))


def test_the_special_case_without_a_linear_part_is_derived_once_and_only_where_a1_exists():
    special = models.ATTENTION.system(1, "algebraic", without_linear_part=True)
    assert special is models.ATTENTION.system(1, "algebraic", without_linear_part=True)
    assert S.a1 not in special.parameters and "(a_1 = 0)" in special.name
    with pytest.raises(ParameterError, match="no a_1"):
        models.LINEAR.system(1, "quadrature", without_linear_part=True)


def test_parameters_are_checked_once_against_the_system_domain_with_the_practical_bound():
    rank, parameters = models.ATTENTION.bind(f=(0.5, 0.5), c=[0.5, 2.0], gamma=0.1)
    assert rank == 1 and parameters.shape == (2,) and parameters[S.gamma].tolist() == [0.1, 0.1]
    from symrmt.validate import MAX_GAMMA

    with pytest.raises(ParameterError, match=r"gamma = 2e\+12: must be in \(0, 1e\+12\]"):
        models.ATTENTION.bind(f=(0.5, 0.5), c=1.0, gamma=2 * MAX_GAMMA)
    with pytest.raises(ParameterError, match=r"the shapes of .*gamma \(3,\).*gram \(2,\)"):
        models.ATTENTION.bind(f=(0.5, 0.5), c=1.0, gamma=[0.1, 0.2, 0.3],
                                    gram={"theta": [0.0, 1.0], "alpha_K": 0.0, "alpha_Q": 0.0, "omega_KK": 0.0,
                                          "omega_QQ": 0.0, "omega_KQ": 0.0})


def test_the_solver_trusts_parameters_it_is_given_and_checks_a_mapping():
    from symrmt.solve import solve

    compiled = models.LINEAR.compiled()
    _, parameters = models.LINEAR.bind(c=1.0, gamma=[0.1, 1.0])
    trusted = solve(compiled, parameters)
    checked = solve(compiled, {S.c: 1.0, S.gamma: [0.1, 1.0], S.theta: 0.0})
    assert np.array_equal(trusted[sp.Symbol("E")], checked[sp.Symbol("E")])
    with pytest.raises(ParameterError, match="gamma contains"):
        solve(compiled, {S.c: 1.0, S.gamma: [0.1, -1.0], S.theta: 0.0})


# A toy model, defined here and nowhere in the package: ridge regression on the scaled features d X, which by
# the scale law must be linear regression at gamma / d^2.
def _derive_scaled_ridge(rank: int, form: str):
    from symrmt.derive.algebraic import in_form

    system = _scaled_ridge_system()
    return system if form == "quadrature" else in_form(system, form)


_SYSTEMS: dict = {}


def _scaled_ridge_system():
    if "system" not in _SYSTEMS:
        pencil = ridge_pencil(S.d, sp.Integer(0), S.c * S.lam)
        terms = [PlacedTerm(3, 3, data_low_rank(), sp.Integer(1))]
        _SYSTEMS["system"] = ridge_system("scaled ridge", pencil, terms, (S.c, S.gamma, S.d, S.theta),
                                          ridge_scale(1 + S.d**2))
    return _SYSTEMS["system"]


def _bind_scaled_ridge(c, gamma, d, theta=0.0) -> Bound:
    return Bound(1, {S.c: positive_array("c", c), S.gamma: positive_array("gamma", gamma), S.d: real_array("d", d),
                     S.theta: real_array("theta", theta)}, {})


def scaled_ridge_model() -> models.Model:
    """The toy derived model, not yet registered (tests/sweep registers it in a sweep's workers too)."""
    return models.Model(
        name="scaled_ridge", summary="ridge regression on d X (a toy model of the tests)",
        derive=_derive_scaled_ridge, read=_bind_scaled_ridge, auto_form="quadrature", observables=("E", "Phi"))


@pytest.fixture
def toy():
    model = models.register(scaled_ridge_model())
    yield model
    models.unregister(model.name)


def test_a_model_registered_from_outside_runs_through_theory_latex_and_the_cli(toy, capsys):
    c, gamma, d = np.array([0.5, 1.0, 2.0]), np.geomspace(1e-3, 10, 7)[:, None], 1.5
    e = symrmt.theory.solve_model("scaled_ridge", c=c, gamma=gamma, d=d, theta=1.0).error
    expected = symrmt.linear_error(c, gamma / d**2, symrmt.Geometry(mu_norm=1.0))
    assert np.allclose(e, expected, rtol=1e-9, atol=0)                       # the scale law, to the solver's 1e-10
    algebraic = symrmt.theory.solve_model(toy, form="algebraic", c=c, gamma=gamma, d=d).error
    assert np.allclose(algebraic, symrmt.linear_error(c, gamma / d**2), rtol=1e-8, atol=0)
    assert r"\gamma & d & 0" in symrmt.latex(kind="scaled_ridge")            # its own pencil, printed
    assert main(["latex", "--kind", "scaled_ridge", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["kind"] == "scaled_ridge"
    with pytest.raises(ParameterError, match="c = -1"):
        symrmt.theory.solve_model("scaled_ridge", c=-1.0, gamma=0.1, d=1.0)


def test_the_cli_refuses_an_unregistered_kind(capsys):
    assert main(["latex", "--kind", "scaled_ridge"]) == 2
    assert "invalid choice" in capsys.readouterr().err


#: Functions that take a model: a literal model name passed to one of them is a dispatch on a string.
TAKES_A_MODEL = {"solve_in_form", "answered_algebraically", "system_for", "get_model", "solve_model"}


def _dispatches_on_a_model_name(tree: ast.AST, names: set) -> list[int]:
    """Lines that select a model by its name: ``kind == "linear"``, ``kind in (...)``, ``kind="..."`` or a model
    name passed to a function that takes a model."""
    def literal(node):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return node.value in names
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            return any(literal(e) for e in node.elts)
        return False

    def kind(node):
        name = node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else ""
        return "kind" in name

    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            if any(literal(n) for n in sides) and any(kind(n) for n in sides):
                lines.append(node.lineno)
        elif isinstance(node, ast.Call):
            function = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", "")
            if function == "get" and getattr(node.func, "value", None) is not None:     # models.get(...), not dict.get
                function = "get_model" if getattr(node.func.value, "id", "") == "models" else function
            if (function in TAKES_A_MODEL and any(literal(a) for a in node.args)) or any(
                    k.arg == "kind" and literal(k.value) for k in node.keywords):
                lines.append(node.lineno)
    return sorted(set(lines))


def test_no_module_outside_the_registry_dispatches_on_a_model_name():
    names = set(models.names())
    found = {}
    for path in PACKAGE.rglob("*.py"):
        if path.parent.name == "models":
            continue
        lines = _dispatches_on_a_model_name(ast.parse(path.read_text()), names)
        if lines:
            found[str(path.relative_to(PACKAGE))] = lines
    assert found == {}


def test_the_dispatch_check_catches_a_planted_kind_string():
    planted = ast.parse('if args.kind == "linear":\n    pass\nsolve_in_form("attention", 1, {})\n'
                        'latex(f, kind="kernel_ridge")\nlabel = "attention"\n')
    assert _dispatches_on_a_model_name(planted, set(models.names())) == [1, 3, 4]


# A toy model with a numeric solver of its own (no derived system): ridge on one feature of unit variance, whose
# error the hook computes by bisection on the stationarity condition w (1 + gamma) = 1: E = (1 - w)^2 + gamma w^2
# at that w, i.e. gamma / (1 + gamma). The registry, solve_model and the CLI must hand its numbers through unchanged.
def _toy_numeric_solver(c, gamma, *, form="auto", partial=False):
    from symrmt.derive.symbols import ERROR
    from symrmt.theory import RidgeSolution
    from symrmt.validate import positive_array

    c, gamma = np.broadcast_arrays(positive_array("c", c), positive_array("gamma", gamma))
    low, high = np.zeros(gamma.shape), np.ones(gamma.shape)
    for _ in range(60):                                   # bisection: its own numeric solver
        w = (low + high) / 2
        above = w * (1 + gamma) > 1
        high, low = np.where(above, w, high), np.where(above, low, w)
    w = (low + high) / 2
    error = ((1 - w) ** 2 + gamma * w * w) * (1 + 0 * c)
    return RidgeSolution({ERROR: error}, np.zeros((0, *error.shape)), np.zeros(error.shape), (),
                         np.zeros(error.shape, bool), ())


@pytest.fixture
def toy_numeric():
    model = models.register(models.Model(name="toy_numeric", summary="a toy with its own solver",
                                         solver=_toy_numeric_solver, observables=("E",)))
    yield model
    models.unregister(model.name)


def test_a_model_with_its_own_solver_runs_through_solve_model_and_the_cli(toy_numeric, capsys):
    c, gamma = np.array([0.5, 2.0]), np.array([[0.1], [1.0]])
    e = symrmt.theory.solve_model("toy_numeric", c=c, gamma=gamma).error
    assert e.shape == (2, 2) and np.allclose(e, gamma / (1 + gamma), rtol=1e-14, atol=0)   # 60 halvings: w to 1e-18
    with pytest.raises(ParameterError, match="takes no argument 'f'"):
        symrmt.theory.solve_model("toy_numeric", f="tanh(x)", c=1.0, gamma=0.1)
    with pytest.raises(ParameterError, match="solved numerically"):
        toy_numeric.system()
    assert main(["theory", "--kind", "toy_numeric", "--c", "0.5", "--gamma", "0.1,1", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["kind"] == "toy_numeric" and out["E"] == e[:, 0].tolist()


def _branches_on_a_model(tree: ast.AST, names: set) -> list[int]:
    """Lines of ``symrmt/cli`` that branch on a model instead of asking the registry: a model's name or ``--attention``
    mode compared with an ``attention``, ``kind`` or ``mode`` value (``args.attention == "softmax"``, ``kind in
    ("linear",)``), and a theory chosen by the presence of weights: ``if ... weights is (not) None`` (or ``if
    args.weights``) whose branch returns a call, or ``other_path(...) if weights is not None else ...``."""
    def literal(node):
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            return any(literal(e) for e in node.elts)
        return isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in names

    def named(node, word):
        if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "getattr" and len(node.args) > 1:
            node = node.args[1]
            return isinstance(node, ast.Constant) and node.value == word
        name = node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else ""
        return word in name

    def on_weights(test):
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            test = test.operand
        if isinstance(test, ast.Compare):
            return named(test.left, "weights") and isinstance(test.ops[0], (ast.Is, ast.IsNot))
        return named(test, "weights")

    def returns_a_call(body):
        return bool(body) and isinstance(body[0], ast.Return) and isinstance(body[0].value, ast.Call)

    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            if any(literal(n) for n in sides) and any(named(n, w) for n in sides for w in ("attention", "kind", "mode")):
                lines.append(node.lineno)
        elif isinstance(node, ast.If) and on_weights(node.test) and (returns_a_call(node.body)
                                                                    or returns_a_call(node.orelse)):
            lines.append(node.lineno)
        elif isinstance(node, ast.IfExp) and on_weights(node.test) and (isinstance(node.body, ast.Call)
                                                                       or isinstance(node.orelse, ast.Call)):
            lines.append(node.lineno)
    return sorted(set(lines))


def _cli_names() -> set:
    """What a branch on a model would compare with: the registered names and the ``--attention`` modes."""
    from symrmt.models import cli_hooks

    return set(models.names()) | set(cli_hooks.attentions())


def test_the_command_line_has_no_branch_on_a_model():
    """Issue 38: the command line asks the registry (symrmt.models.cli_hooks) which model the flags pick, and reads
    what the model declares; it spells no model's name or mode in a branch."""
    found = {}
    for path in (PACKAGE / "cli").rglob("*.py"):
        lines = _branches_on_a_model(ast.parse(path.read_text()), _cli_names())
        if lines:
            found[str(path.relative_to(PACKAGE / "cli"))] = lines
    assert found == {}


def test_the_branch_check_catches_planted_branches():
    planted = ast.parse('if args.attention == "softmax":\n    pass\n'
                        'if getattr(args, "weights", None) is not None:\n    return weights_theory(args)\n'
                        'if args.weights is not None:\n    given["weights"] = read(args)\n'
                        'label = "softmax"\n'
                        'if weights is not None:\n    return attention_error(f, c, gamma, weights=weights)\n'
                        'if args.weights is None:\n    return curves(args)\n'
                        'body = weights_theory(args) if args.weights is not None else None\n'
                        'if args.weights:\n    return weights_theory(args)\n'
                        'if mode in ("entrywise", "other"):\n    pass\n'
                        'given = [] if args.weights is None else ["--layer"]\n')
    assert _branches_on_a_model(planted, _cli_names()) == [1, 3, 8, 10, 12, 13, 15]
