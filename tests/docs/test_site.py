"""The documentation site builds with warnings as errors, and every link inside it leads to a page and anchor.

``sphinx-build -W`` fails on a broken cross-reference or intra-doc link (MyST checks ``page.md#anchor``), on a
reStructuredText error in a docstring or a gallery script, and on a public name without a docstring
(docs/_ext/reference.py). The built HTML's own links (``href`` and ``src`` without a scheme) are then checked
file by file and anchor by anchor: the linkcheck of the intra-site links, shown to catch a planted broken
link. The build needs the ``docs`` extra (``pip install ".[docs]"``); without it the test is skipped, and
CI, which installs ``.[test,weights]``, skips it.
"""
from __future__ import annotations

import html.parser
import importlib.util
import pathlib
import subprocess
import sys
import urllib.parse

import pytest

ROOT = pathlib.Path(__file__).parents[2]
#: The Sphinx extensions the site's conf.py loads, by the module that provides each.
DOCS_MODULES = ("sphinx", "numpydoc", "myst_nb", "sphinx_gallery", "sphinxarg")


class _Links(html.parser.HTMLParser):
    """The ids of a page and the links of its ``<a href>`` and ``<img src>``."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()
        self.links: list[str] = []

    def handle_starttag(self, tag, attrs) -> None:
        values = dict(attrs)
        if values.get("id"):
            self.ids.add(values["id"])
        if tag == "a" and values.get("name"):
            self.ids.add(values["name"])
        link = values.get("href") if tag == "a" else values.get("src") if tag == "img" else None
        if link:
            self.links.append(link)


def broken_links(site: pathlib.Path) -> list[str]:
    """``"page: link (why)"`` for each link of the site that leads to no file, or to no such anchor."""
    pages = {}
    for path in site.rglob("*.html"):
        parser = _Links()
        parser.feed(path.read_text(encoding="utf-8"))
        pages[path.resolve()] = parser
    broken = []
    for path, parser in pages.items():
        for link in parser.links:
            parts = urllib.parse.urlsplit(link)
            if parts.scheme or parts.netloc:
                continue
            target = (path.parent / urllib.parse.unquote(parts.path)).resolve() if parts.path else path
            where = path.relative_to(site.resolve())
            if not target.exists():
                broken.append(f"{where}: {link} (no such file)")
            elif parts.fragment and target in pages and parts.fragment not in pages[target].ids:
                broken.append(f"{where}: {link} (no such anchor)")
    return sorted(broken)


def test_the_link_check_catches_a_planted_broken_link(tmp_path):
    (tmp_path / "a.html").write_text('<h1 id="top">A</h1><a href="b.html#part">b</a><a href="#top">up</a>'
                                     '<a href="https://example.org/x">out</a>')
    (tmp_path / "b.html").write_text('<h2 id="part">B</h2><img src="figure.png">')
    (tmp_path / "figure.png").write_bytes(b"")
    assert broken_links(tmp_path) == []
    (tmp_path / "b.html").write_text('<h2 id="other">B</h2><img src="gone.png">')
    assert broken_links(tmp_path) == ["a.html: b.html#part (no such anchor)", "b.html: gone.png (no such file)"]


@pytest.mark.slow
def test_the_site_builds_with_warnings_as_errors_and_its_links_hold(tmp_path):
    absent = [name for name in DOCS_MODULES if importlib.util.find_spec(name) is None]
    if absent:
        pytest.skip(f"the docs extra is not installed (no {', '.join(absent)}): pip install '.[docs]'")
    site = tmp_path / "html"
    proc = subprocess.run([sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html",
                           "-d", str(tmp_path / "doctrees"), str(ROOT / "docs"), str(site)],
                          capture_output=True, text=True, timeout=900, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-4000:]
    for page in ("index", "usage", "theory", "tutorial", "cli", "api/index", "gallery/index",
                 "api/generated/symrmt.summed_heads_error", "gallery/rank"):
        assert (site / f"{page}.html").exists(), page
    assert broken_links(site) == []
