"""Sphinx helpers of symrmt's site: the CLI parser for sphinx-argparse, and the docstrings of public constants.

* :func:`parser` is :func:`symrmt.cli.parser.build_parser` with ``|`` escaped in the help texts, which
  sphinx-argparse reads as reStructuredText (``|w_K|`` would be a substitution there).
* A public constant re-exported by a package has no docstring of its own (``autodata`` would show its type's,
  ``int`` or ``tuple``); :func:`constant_doc` finds the ``#:`` comment where it is assigned, in the package's
  modules, and :func:`setup` makes an empty docstring of a public name a warning, so that ``sphinx-build -W``
  fails on an undocumented public name.
* :func:`link_page_names` turns a page named by its file in running text (``docs/theory.md`` or ``usage.md``,
  as the docstrings and the Markdown pages write it for readers of the repository) into a link to that page
  of the site, titled with the page's title: a page of the site never sends its reader to a bare file name.
* :func:`setup` loads the page assets, MathJax among them, on every page, not only on those whose body holds an
  equation: the navigation and the titles hold math too (the sidebar's general-W_K^T W_Q entry).
"""
from __future__ import annotations

import functools
import importlib
import pkgutil
import re

from docutils import nodes

from sphinx.pycode import ModuleAnalyzer
from sphinx.util import logging

LOG = logging.getLogger(__name__)


def parser():
    """The parser of ``symrmt``, its help texts escaped for reStructuredText."""
    from symrmt.cli.parser import build_parser

    top = build_parser()
    todo = [top]
    while todo:
        p = todo.pop()
        if p.description:
            p.description = p.description.replace("|", r"\|")
        for action in p._actions:
            if action.help:
                action.help = action.help.replace("|", r"\|")
            if action.choices and isinstance(action.choices, dict):       # the sub-parsers
                todo += [sub for sub in action.choices.values() if hasattr(sub, "_actions")]
    return top


@functools.lru_cache(maxsize=None)
def _comments(package: str) -> dict[str, list[str]]:
    """``name -> #: comment lines`` of every module-level assignment in ``package`` and its submodules."""
    found: dict[str, list[str]] = {}
    module = importlib.import_module(package)
    names = [package] + ([f"{package}.{m.name}" for m in pkgutil.walk_packages(module.__path__)]
                         if hasattr(module, "__path__") else [])
    for name in names:
        if name.endswith("__main__"):                    # running it would start the command line
            continue
        try:
            docs = ModuleAnalyzer.for_module(name).find_attr_docs()
        except Exception:  # noqa: BLE001 - a module without source: nothing to read
            continue
        for (scope, attribute), lines in docs.items():
            if scope == "" and any(line.strip() for line in lines):
                found.setdefault(attribute, [line for line in lines if line is not None])
    return found


def constant_doc(fullname: str) -> list[str]:
    """The ``#:`` comment of the public constant ``fullname`` (``symrmt.testing.GAMMAS``) where it is assigned."""
    package, _, attribute = fullname.rpartition(".")
    while package:
        lines = _comments(package).get(attribute)
        if lines:
            return list(lines)
        package = package.rpartition(".")[0] if package != "symrmt" else ""
        if package and not package.startswith("symrmt"):
            break
    return []


def _docstring(app, what, name, obj, options, lines) -> None:
    if what == "data" and name.startswith("symrmt"):
        lines[:] = constant_doc(name)
    if what in ("data", "function", "class", "exception") and name.startswith("symrmt") \
            and not any(line.strip() for line in lines):
        LOG.warning("public name %s has no docstring", name, type="symrmt", subtype="undocumented")


#: A page of the site named by its file, as the repository's texts write it.
PAGE_FILE = re.compile(r"(?<![\w/.])(?:docs/)?(\w+)\.md\b")
#: Nodes whose text is code or already a link: left as they are.
_LITERAL = (nodes.literal, nodes.literal_block, nodes.reference, nodes.raw, nodes.math, nodes.math_block,
            nodes.title)


def link_page_names(app, doctree, docname: str) -> None:
    """Replace each ``docs/NAME.md`` in the running text of ``docname`` by a link to the page ``NAME``."""
    env = app.builder.env
    for text in list(doctree.findall(nodes.Text)):
        parent = text.parent
        if parent is None or any(isinstance(node, _LITERAL) for node in _ancestors(parent)):
            continue
        pieces, start = [], 0
        for match in PAGE_FILE.finditer(text.astext()):
            page = match.group(1)
            if page not in env.found_docs:
                continue
            pieces.append(nodes.Text(text.astext()[start:match.start()]))
            title = env.titles[page].astext() if page in env.titles else page
            uri = app.builder.get_relative_uri(docname, page)
            pieces.append(nodes.reference("", title, internal=True, refuri=uri))
            start = match.end()
        if pieces:
            pieces.append(nodes.Text(text.astext()[start:]))
            parent.replace(text, pieces)


def _ancestors(node):
    while node is not None:
        yield node
        node = node.parent


def setup(app):
    app.connect("autodoc-process-docstring", _docstring)
    app.set_html_assets_policy("always")
    app.connect("doctree-resolved", link_page_names)
    return {"parallel_read_safe": True}
