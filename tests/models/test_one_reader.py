"""One check per argument (issue 38 item 2): the bound of gamma is used in one module, validate.py.

Every reader of gamma (the derivation's domain, the Monte Carlo, the sweep specs, general M, summed heads,
softmax) checks it against ``symrmt.validate.DOMAINS``, so the largest ridge is named in code in one place;
the test walks the syntax trees (docstrings and messages may mention the name, code may not). A domain's bound taken
out of ``DOMAINS`` (``DOMAINS["gamma"][1]``, for a message) may not be compared either, directly or through a name
it was assigned to: the one comparison is validate's (``inside``, ``beyond_gamma``).
"""
import ast
import pathlib

import symrmt

PACKAGE = pathlib.Path(symrmt.__file__).parent
BOUNDS = ("MAX_GAMMA",)


def uses(tree: ast.AST, names=BOUNDS) -> list[int]:
    """Lines that use one of ``names`` in code (a name, an attribute or an import), not in text."""
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id in names:
            lines.append(node.lineno)
        elif isinstance(node, ast.Attribute) and node.attr in names:
            lines.append(node.lineno)
        elif isinstance(node, ast.ImportFrom) and any(alias.name in names for alias in node.names):
            lines.append(node.lineno)
    return sorted(set(lines))


def test_the_bound_of_gamma_is_used_in_validate_only():
    found = {str(path.relative_to(PACKAGE)): lines for path in PACKAGE.rglob("*.py")
             if path.name != "validate.py" and (lines := uses(ast.parse(path.read_text())))}
    assert found == {}


def test_the_check_catches_a_planted_use():
    planted = ast.parse('"""MAX_GAMMA in a docstring is text."""\nfrom ..validate import MAX_GAMMA\n'
                        'x = validate.MAX_GAMMA\nif gamma > MAX_GAMMA:\n    pass\n')
    assert uses(planted) == [2, 3, 4]


def _bound_of_a_domain(node: ast.AST) -> bool:
    """``DOMAINS[...][...]`` (or ``validate.DOMAINS[...][...]``): a domain's bound taken out of the table."""
    if not (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Subscript)):
        return False
    table = node.value.value
    return getattr(table, "id", getattr(table, "attr", "")) == "DOMAINS"


def compared_bounds(tree: ast.AST) -> list[int]:
    """Lines that compare a domain's bound (or MAX_GAMMA), directly or through a name assigned from one."""
    def holds_a_bound(expression, tainted):
        return any(_bound_of_a_domain(n) or (isinstance(n, ast.Name) and (n.id in tainted or n.id in BOUNDS))
                   or (isinstance(n, ast.Attribute) and n.attr in BOUNDS) for n in ast.walk(expression))

    tainted: set = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and holds_a_bound(node.value, set()):
            tainted |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    return sorted({node.lineno for node in ast.walk(tree) if isinstance(node, ast.Compare)
                   and any(holds_a_bound(side, tainted) for side in [node.left, *node.comparators])})


def test_no_bound_of_a_domain_is_compared_outside_validate():
    found = {str(path.relative_to(PACKAGE)): lines for path in PACKAGE.rglob("*.py")
             if path.name != "validate.py" and (lines := compared_bounds(ast.parse(path.read_text())))}
    assert found == {}


def test_the_comparison_check_catches_planted_comparisons():
    planted = ast.parse('largest = DOMAINS["gamma"][1]\nbad = ~(ridge <= largest)\n'
                        'if gamma > validate.DOMAINS["gamma"][1]:\n    pass\n'
                        'inside("gamma", gamma, DOMAINS["gamma"])\nok = ridge < 1e3\n'
                        'if g >= MAX_GAMMA:\n    pass\n')
    assert compared_bounds(planted) == [2, 3, 7]
