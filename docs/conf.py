"""Sphinx configuration of symrmt's documentation site.

Build it (from the repository root, after ``pip install ".[docs]"``)::

    sphinx-build -W -b html docs docs/_build/html

The Markdown pages are read by MyST (dollar and amsmath math), the tutorial notebook is executed by MyST-NB at
build time (small sizes, a minute or two), the gallery is made from the figure scripts of ``derivations/`` by
sphinx-gallery, which runs each (seconds, small n) and keeps its figure and thumbnail, the command-line reference
is generated from :func:`symrmt.cli.parser.build_parser` by sphinx-argparse, and the API reference by autosummary
from the public ``__all__`` lists (``docs/api/``). The theme is pydata-sphinx-theme (SciPy's, NumPy's), and the
math is rendered by a MathJax 3 served from the built site itself (``_static/mathjax``, copied there from the
``sphinx-mathjax-offline`` package), so that the pages read offline.
"""
from __future__ import annotations

import os
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))          # document this checkout, not another installed copy
# ... and run the tutorial's kernel on it too (a separate process, started in docs/)
os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
sys.path.insert(0, str(ROOT / "docs" / "_ext"))

import symrmt  # noqa: E402

project = "symrmt"
author = "symrmt authors"
copyright = "symrmt authors, MIT License"
release = version = symrmt.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "sphinx-mathjax-offline",      # MathJax 3 copied into _static/mathjax: no CDN, the math renders offline
    "numpydoc",
    "myst_nb",                     # MyST Markdown pages and the notebook
    "sphinx_gallery.gen_gallery",
    "sphinxarg.ext",
    "reference",                   # docs/_ext/reference.py: the CLI parser, constants' docstrings, MathJax everywhere
]
templates_path = ["_templates"]

exclude_patterns = ["_build", "**.ipynb_checkpoints", "figures/*.csv", "gallery/*.ipynb", "sg_execution_times.rst"]
source_suffix = {".rst": "restructuredtext", ".md": "myst-nb", ".ipynb": "myst-nb"}

# MyST: $...$ and $$...$$ math, amsmath environments, and GitHub's heading anchors (the pages link to them).
myst_enable_extensions = ["dollarmath", "amsmath"]
myst_heading_anchors = 4
myst_dmath_double_inline = True
myst_fence_as_directive = ["math"]     # GitHub's ```math blocks
# docs/tutorial.ipynb is executed at build time (its sizes are small), its outputs cached beside the doctrees,
# and a failing cell fails the build; tests/docs/test_notebook.py runs it too and checks its figures' rules.
nb_execution_mode = "cache"
nb_execution_timeout = 600
nb_execution_raise_on_error = True
nb_execution_show_tb = True

# autodoc, autosummary and numpydoc: one page per public name.
autosummary_generate = True
autosummary_imported_members = True
# Signatures without type hints (as NumPy's and SciPy's pages): the types are in each Parameters section, and
# the hints' unions (ArrayLike = float | ndarray | list, Mapping[...] | None) made every signature a wall of text.
autodoc_typehints = "none"
autodoc_member_order = "bysource"
autodoc_default_options = {"members": False}
autosummary_context = {"top_level": list(symrmt.__all__)}   # a class re-exported at the top is indexed there
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False

# sphinx-gallery: one page per figure script of derivations/ (each a short example through the public API,
# run at build time at small sizes, seconds each; its figure becomes the page's image and the thumbnail).
# The gallery is the registered figures (symrmt.figures.FIGURES, what `symrmt figure --list` names); the other
# scripts there (finite_size.py, general_weights_*.py, gaussian_equivalence.py, softmax_limits.py, ...) write tables,
# run for minutes to hours and draw no figure: they are not gallery entries.
from symrmt.figures import FIGURES as _FIGURES  # noqa: E402 - after sys.path holds this checkout

sphinx_gallery_conf = {
    "examples_dirs": "../derivations",
    "gallery_dirs": "gallery",
    "filename_pattern": r".*\.py$",
    "ignore_pattern": r"(?<!\w)(?!(?:" + "|".join(sorted(_FIGURES)) + r")\.py$)\w+\.py$",
    "plot_gallery": "True",
    "download_all_examples": False,
    "remove_config_comments": True,
    "within_subsection_order": "FileNameSortKey",
    "copyfile_regex": "",
    "show_signature": False,
    "abort_on_example_error": True,
}

# The CLI reference and the code blocks are copied into a shell: no curly quotes, no "--" turned into a dash.
smartquotes = False

html_theme = "pydata_sphinx_theme"
html_title = f"symrmt {release}"
html_static_path: list[str] = []
html_theme_options = {
    "secondary_sidebar_items": ["page-toc"],          # in-page contents on every page (theory.md is long)
    "show_toc_level": 2,
    "header_links_before_dropdown": 4,                # usage, tutorial, gallery, API; the CLI and the rest: More
    "icon_links": [{"name": "arXiv:2506.18656", "url": "https://arxiv.org/abs/2506.18656",
                    "icon": "fa-solid fa-file-lines"}],
}
html_sidebars = {"*": []}       # the top-level pages have no subpages: no empty section navigation beside them
suppress_warnings = ["myst.header"]    # pages that start below level 1 (none at present)
