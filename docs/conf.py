"""Sphinx configuration of symrmt's documentation site.

Build it (from the repository root, after ``pip install ".[docs]"``)::

    sphinx-build -W -b html docs docs/_build/html

The Markdown pages are read by MyST (dollar and amsmath math), the notebook by MyST-NB without running it,
the gallery is made from ``derivations/`` by sphinx-gallery without running a script (their figures take
minutes to an hour; each page shows the committed image from ``docs/figures``), the command-line reference is
generated from :func:`symrmt.cli.parser.build_parser` by sphinx-argparse, and the API reference by autosummary
from the public ``__all__`` lists (``docs/api/``).
"""
from __future__ import annotations

import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))          # document this checkout, not another installed copy
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
    "numpydoc",
    "myst_nb",                     # MyST Markdown pages and the notebook
    "sphinx_gallery.gen_gallery",
    "sphinxarg.ext",
    "reference",                   # docs/_ext/reference.py: the CLI parser, constants' docstrings, undocumented names
]
templates_path = ["_templates"]

exclude_patterns = ["_build", "**.ipynb_checkpoints", "figures/*.csv", "gallery/*.ipynb", "sg_execution_times.rst"]
source_suffix = {".rst": "restructuredtext", ".md": "myst-nb", ".ipynb": "myst-nb"}

# MyST: $...$ and $$...$$ math, amsmath environments, and GitHub's heading anchors (the pages link to them).
myst_enable_extensions = ["dollarmath", "amsmath"]
myst_heading_anchors = 4
myst_dmath_double_inline = True
myst_fence_as_directive = ["math"]     # GitHub's ```math blocks
nb_execution_mode = "off"          # docs/tutorial.ipynb is executed by tests/docs/test_notebook.py

# autodoc, autosummary and numpydoc: type hints in the signatures, one page per public name.
autosummary_generate = True
autosummary_imported_members = True
autodoc_typehints = "signature"
autodoc_member_order = "bysource"
autodoc_default_options = {"members": False}
autosummary_context = {"top_level": list(symrmt.__all__)}   # a class re-exported at the top is indexed there
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False

# sphinx-gallery: one page per script of derivations/, none executed ("plot_gallery" off: the publication
# figures take minutes to an hour); each script's docstring shows its committed image from docs/figures.
sphinx_gallery_conf = {
    "examples_dirs": "../derivations",
    "gallery_dirs": "gallery",
    "filename_pattern": r"^$",
    "plot_gallery": "False",
    "download_all_examples": False,
    "remove_config_comments": True,
    "within_subsection_order": "FileNameSortKey",
    "copyfile_regex": "",
    "show_signature": False,
}

html_theme = "alabaster"
html_title = f"symrmt {release}"
html_static_path: list[str] = []
suppress_warnings = ["myst.header"]    # pages that start below level 1 (none at present)
