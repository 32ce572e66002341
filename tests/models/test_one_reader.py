"""One check per argument (issue 38 item 2): the bound of gamma is used in one module, validate.py.

Every reader of gamma (the derivation's domain, the Monte Carlo, the sweep specs, general M, summed heads,
softmax) checks it against ``symrmt.validate.DOMAINS``, so the largest ridge is named in code in one place;
the test walks the syntax trees (docstrings and messages may mention the name, code may not).
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
