"""The documentation site builds with warnings as errors, every link inside it leads to a page and anchor, and its
pages carry what a reader expects of them.

``sphinx-build -W`` fails on a broken cross-reference or intra-doc link (MyST checks ``page.md#anchor``), on a
reStructuredText error in a docstring or a gallery script, and on a public name without a docstring
(docs/_ext/reference.py). The built HTML's own links (``href`` and ``src`` without a scheme) are then checked
file by file and anchor by anchor: the linkcheck of the intra-site links, shown to catch a planted broken
link. The built pages are then read for what a reader sees (:func:`page_problems`): every page loads the MathJax
served from the site itself (no CDN: the math renders offline, in the sidebar too), no equation is left as raw TeX
where MathJax does not typeset it, every gallery entry has its image and thumbnail, the executed tutorial has its
outputs and figures, no page names another by its file (``docs/theory.md``) instead of linking it, every public
function's page has a Parameters section (those still listed in tests/docs/test_reference.py's WITHOUT_SECTIONS
aside), and no code block, option or CLI text holds an en dash or a curly quote (Sphinx's smartquotes would turn
``--f`` into "–f"). Each check is shown to catch a planted failure on a small page. The build needs the ``docs``
extra (``pip install ".[docs]"``); without it the test is skipped, and CI, which installs ``.[test,weights]``,
skips it.
"""
from __future__ import annotations

import html.parser
import importlib.util
import inspect
import pathlib
import re
import subprocess
import sys
import urllib.parse

import pytest

ROOT = pathlib.Path(__file__).parents[2]
#: The Sphinx extensions the site's conf.py loads, by the module that provides each.
DOCS_MODULES = ("sphinx", "numpydoc", "myst_nb", "sphinx_gallery", "sphinxarg", "pydata_sphinx_theme",
                "sphinx-mathjax-offline")


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


#: Characters a shell does not read as typed: en and em dashes, curly quotes (what smartquotes makes of -- and ").
TYPOGRAPHIC = re.compile("[\u2013\u2014\u2018\u2019\u201c\u201d]")
#: TeX left for a reader: $...$ with a command inside (MathJax here reads only \( \) and \[ \]), or \( \[ $$ in
#: an element that MathJax is told to skip.
DOLLAR_TEX = re.compile(r"\$[^$\s][^$]*\\[A-Za-z]+[^$]*\$|\$\$")
DELIMITED_TEX = re.compile(r"\\\(|\\\[")
#: A page of the site named by its file in running text (docs/_ext/reference.py makes each a link).
PAGE_FILE = re.compile(r"\bdocs/\w+\.md\b")
#: Classes whose text MathJax skips (its ignoreHtmlClass) and tags whose text is code.
SKIPPED_CLASSES = {"tex2jax_ignore", "mathjax_ignore"}
CODE_TAGS = {"pre", "code", "kbd", "samp", "tt"}
#: Tags whose text nobody reads as such.
INVISIBLE_TAGS = {"script", "style", "title", "textarea"}


class _Page(html.parser.HTMLParser):
    """What :func:`page_problems` reads of a page: its scripts, images, text nodes with where they sit, and the
    headings of its field lists (numpydoc's Parameters, Returns, ...)."""

    VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[tuple[str, set[str]]] = []
        self.scripts: list[str] = []
        self.images: list[tuple[str, set[str]]] = []     # (src, classes of the image and its ancestors)
        self.texts: list[tuple[str, set[str], set[str]]] = []   # (text, ancestor tags, ancestor classes)
        self.classes_seen: dict[str, int] = {}

    def handle_starttag(self, tag, attrs) -> None:
        values = dict(attrs)
        classes = set((values.get("class") or "").split())
        for name in classes:
            self.classes_seen[name] = self.classes_seen.get(name, 0) + 1
        if tag == "script" and values.get("src"):
            self.scripts.append(values["src"])
        if tag == "img":
            self.images.append((values.get("src") or "", classes | {c for _, cs in self.stack for c in cs}))
        if tag not in self.VOID:
            self.stack.append((tag, classes))

    def handle_endtag(self, tag) -> None:
        for i in range(len(self.stack) - 1, -1, -1):
            if self.stack[i][0] == tag:
                del self.stack[i:]
                break

    def handle_data(self, data) -> None:
        if data.strip():
            self.texts.append((data, {t for t, _ in self.stack}, {c for _, cs in self.stack for c in cs}))


def read_page(path: pathlib.Path) -> _Page:
    page = _Page()
    page.feed(path.read_text(encoding="utf-8"))
    return page


def page_problems(site: pathlib.Path, page_name: str, *, undocumented: frozenset[str] = frozenset()) -> list[str]:
    """``"page: problem"`` for each thing the page ``page_name`` (``"api/index"``) of ``site`` lacks or gets wrong.

    ``undocumented`` are the public functions allowed, for now, a page without a Parameters section.
    """
    path = site / f"{page_name}.html"
    page, problems = read_page(path), []
    say = problems.append
    mathjax = [src for src in page.scripts if "mathjax" in src.lower()]
    if not mathjax:
        say(f"{page_name}: loads no MathJax")
    for src in mathjax:
        if urllib.parse.urlsplit(src).scheme or src.startswith("//"):
            say(f"{page_name}: MathJax from {src}, not from the site (no math offline)")
        elif not (path.parent / urllib.parse.urlsplit(src).path).exists():
            say(f"{page_name}: MathJax {src} is not in the built site")
    for text, tags, classes in page.texts:
        if tags & INVISIBLE_TAGS or "math" in classes:
            continue
        if tags & CODE_TAGS or page_name == "cli":
            if TYPOGRAPHIC.search(text):
                say(f"{page_name}: a dash or curly quote in code or CLI text: {text.strip()[:60]!r}")
        elif DOLLAR_TEX.search(text) or (classes & SKIPPED_CLASSES and DELIMITED_TEX.search(text)):
            say(f"{page_name}: raw TeX: {text.strip()[:60]!r}")
        elif "a" not in tags and PAGE_FILE.search(text):
            say(f"{page_name}: a page named by its file, not linked: {PAGE_FILE.search(text).group(0)}")
    if page_name.startswith("gallery/") and page_name != "gallery/index":
        if not any("sphx-glr-single-img" in c or "sphx-glr-multi-img" in c for _, c in page.images):
            say(f"{page_name}: no figure made by the example")
    if page_name == "gallery/index":
        thumbnails = [src for src, classes in page.images if "sphx-glr-thumbcontainer" in classes]
        if not thumbnails:
            say(f"{page_name}: no thumbnails")
        for src in thumbnails:
            if "no_image" in src or not (path.parent / src).exists():
                say(f"{page_name}: a thumbnail without its image ({src})")
    if page_name == "tutorial":
        outputs = page.classes_seen.get("cell_output", 0)
        figures = [src for src, classes in page.images if "cell_output" in classes]
        if outputs < 3 or not figures:
            say(f"{page_name}: an executed page with {outputs} outputs and {len(figures)} figures")
    if page_name.startswith("api/generated/"):
        name = page_name.rpartition("/")[2]
        is_function = page.classes_seen.get("function", 0) > 0 and page.classes_seen.get("class", 0) == 0
        headings = {text.strip() for text, tags, _ in page.texts if "dt" in tags}
        if is_function and name not in undocumented and "Parameters" not in headings:
            say(f"{page_name}: a public function's page without Parameters")
    return problems


def _page(tmp_path: pathlib.Path, name: str, body: str, *, head: str = "") -> str:
    """A small built page ``name`` in ``tmp_path``, with the MathJax of the site unless ``head`` says otherwise."""
    (tmp_path / "_static" / "mathjax").mkdir(parents=True, exist_ok=True)
    (tmp_path / "_static" / "mathjax" / "tex-chtml.js").write_text("")
    path = tmp_path / f"{name}.html"
    path.parent.mkdir(parents=True, exist_ok=True)
    depth = "../" * name.count("/")
    head = head or f'<script defer src="{depth}_static/mathjax/tex-chtml.js"></script>'
    path.write_text(f"<html><head>{head}</head><body>{body}</body></html>", encoding="utf-8")
    return name


def test_a_good_page_passes_the_page_checks(tmp_path):
    name = _page(tmp_path, "usage", '<nav>general-\\(W_K^\\top W_Q\\) theory</nav><p>Solve <span class="math">'
                 '\\(E(\\gamma)\\)</span> and pay $5 for it.</p><pre>symrmt theory --f "tanh(x)" --c 1</pre>')
    assert page_problems(tmp_path, name) == []


@pytest.mark.parametrize("planted, problem", [
    ('<p>text</p>', "loads no MathJax"),
    ("https://cdn.jsdelivr.net/npm/mathjax@3/es5/tex-chtml.js", "not from the site"),
    ("<p>the error $E_\\mathrm{attn}$ left as typed</p>", "raw TeX"),
    ('<p class="tex2jax_ignore">\\(a_1\\)</p>', "raw TeX"),
    ("<pre>symrmt theory \u2013f=-tanh(x)</pre>", "a dash or curly quote"),
    ("<code>\u201ctanh(x)\u201d</code>", "a dash or curly quote"),
    ("<p>the model of docs/theory.md, section 1</p>", "a page named by its file"),
])
def test_planted_page_failures_are_caught(tmp_path, planted, problem):
    if planted.startswith("https://"):
        name = _page(tmp_path, "usage", "<p>x</p>", head=f'<script src="{planted}"></script>')
    elif planted == "<p>text</p>":
        name = _page(tmp_path, "usage", planted, head="<meta charset='utf-8'>")
    else:
        name = _page(tmp_path, "usage", planted)
    found = page_problems(tmp_path, name)
    assert len(found) == 1 and problem in found[0], found


def test_planted_gallery_tutorial_and_reference_failures_are_caught(tmp_path):
    (tmp_path / "gallery" / "images" / "thumb").mkdir(parents=True)
    (tmp_path / "gallery" / "images" / "thumb" / "sphx_glr_rank_thumb.png").write_bytes(b"")
    good = '<div class="sphx-glr-thumbcontainer"><img src="images/thumb/sphx_glr_rank_thumb.png"></div>'
    assert page_problems(tmp_path, _page(tmp_path, "gallery/index", good)) == []
    missing = good + '<div class="sphx-glr-thumbcontainer"><img src="_static/no_image.png"></div>'
    assert page_problems(tmp_path, _page(tmp_path, "gallery/index", missing)) == [
        "gallery/index: a thumbnail without its image (_static/no_image.png)"]
    figure = '<img class="sphx-glr-single-img" src="images/sphx_glr_rank_001.png">'
    assert page_problems(tmp_path, _page(tmp_path, "gallery/rank", figure)) == []
    assert page_problems(tmp_path, _page(tmp_path, "gallery/rank", "<pre>code only</pre>")) == [
        "gallery/rank: no figure made by the example"]
    cells = '<div class="cell_output"><pre>1</pre></div>' * 3
    assert page_problems(tmp_path, _page(tmp_path, "tutorial", cells + '<div class="cell_output"><img src="a.png">'
                                                                     "</div>")) == []
    assert page_problems(tmp_path, _page(tmp_path, "tutorial", "<div class='cell_input'><pre>x</pre></div>")) == [
        "tutorial: an executed page with 0 outputs and 0 figures"]
    function = '<dl class="py function"><dt>symrmt.f(x)</dt><dd><dl class="field-list"><dt>{}</dt></dl></dd></dl>'
    name = "api/generated/symrmt.f"
    assert page_problems(tmp_path, _page(tmp_path, name, function.format("Parameters"))) == []
    assert page_problems(tmp_path, _page(tmp_path, name, function.format("Returns"))) == [
        f"{name}: a public function's page without Parameters"]
    assert page_problems(tmp_path, _page(tmp_path, name, function.format("Returns")),
                         undocumented=frozenset({"symrmt.f"})) == []


def undocumented_pages() -> frozenset[str]:
    """The page names (``symrmt.attention_error``) of the functions allowed no Parameters section: those that
    take no argument, and those of tests/docs/test_reference.py's WITHOUT_SECTIONS that still lack it, under
    every public name they have."""
    sys.path.insert(0, str(pathlib.Path(__file__).parent))
    import test_reference

    objects = test_reference.public_objects()
    lacking = {name for name, sections in test_reference.missing_sections(objects).items()
               if "Parameters" in sections}
    lacking |= {name for name, value in objects.items()
                if not inspect.isclass(value) and not inspect.signature(value).parameters}
    names = set()
    for package in test_reference.public_packages():
        module = importlib.import_module(package)
        for name in module.__all__:
            value = getattr(module, name)
            if f"{getattr(value, '__module__', '')}.{getattr(value, '__name__', '')}" in lacking:
                names.add(f"{package}.{name}")
    return frozenset(names)


@pytest.mark.slow
def test_the_site_builds_with_warnings_as_errors_and_its_links_hold(tmp_path):
    absent = [name for name in DOCS_MODULES if importlib.util.find_spec(name) is None]
    if absent:
        pytest.skip(f"the docs extra is not installed (no {', '.join(absent)}): pip install '.[docs]'")
    site = tmp_path / "html"
    proc = subprocess.run([sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html",
                           "-d", str(tmp_path / "doctrees"), str(ROOT / "docs"), str(site)],
                          capture_output=True, text=True, timeout=1800, cwd=ROOT)   # runs tutorial and gallery
    assert proc.returncode == 0, proc.stderr[-4000:]
    for page in ("index", "usage", "theory", "tutorial", "cli", "api/index", "gallery/index",
                 "api/generated/symrmt.summed_heads_error", "api/generated/symrmt.attention_error", "gallery/rank"):
        assert (site / f"{page}.html").exists(), page
    assert broken_links(site) == []
    pages = [path.relative_to(site).with_suffix("").as_posix() for path in sorted(site.rglob("*.html"))]
    undocumented = undocumented_pages()
    problems = [problem for page in pages if not page.startswith("_static/") and page != "gallery/sg_execution_times"
                for problem in page_problems(site, page, undocumented=undocumented)]
    assert problems == []
    gallery = {p.stem for p in (site / "gallery").glob("*.html")} - {"index", "sg_execution_times"}
    from symrmt.figures import FIGURES
    assert gallery == set(FIGURES)
