"""The README's Python example runs as written."""
import pathlib
import re


def test_readme_python_example_runs(capsys):
    text = (pathlib.Path(__file__).parents[2] / "README.md").read_text()
    code = re.search(r"## Python\n\n```python\n(.*?)```", text, re.S)[1]
    namespace: dict = {}
    exec(compile(code, "README.md", "exec"), namespace)   # the project's own documentation, not user input
    assert namespace["rho"].atom == 0.5 and namespace["e2"].shape == (200,)
    assert r"\begin{aligned}" in capsys.readouterr().out


def test_no_file_points_outside_the_repository():
    # The working notes of the developers are not part of the product: nothing may name them.
    import subprocess

    root = pathlib.Path(__file__).parents[2]
    names = ["THEORY" + ".md", ".." + "/shared"]
    files = subprocess.run(["git", "ls-files"], cwd=root, capture_output=True, text=True).stdout.split()
    if not files:                                       # not a git checkout: every text file under root
        files = [str(p.relative_to(root)) for p in root.rglob("*") if p.is_file() and ".git" not in p.parts]
    for name in files:
        path = root / name
        if path.suffix == ".png" or not path.exists():
            continue
        text = path.read_text(errors="ignore")
        for bad in names:
            assert bad not in text, f"{name} mentions {bad}"


def test_readme_lists_every_function_of_the_parser():
    """The README's function list is the parser's whitelist, as function_list_markdown() writes it."""
    from symrmt.nonlinearity import FUNCTIONS
    from symrmt.nonlinearity.parse import function_list_markdown

    text = (pathlib.Path(__file__).parents[2] / "README.md").read_text()
    block = re.search(r"<!-- functions: generated [^>]*-->\n(.*?)\n<!-- end of functions -->", text, re.S)
    assert block, "README.md lost the markers of its generated function list"
    expected = function_list_markdown()
    assert " ".join(block[1].split()) == expected, (
        "README.md's function list is stale; put this between the markers (wrapping is free):\n" + expected)
    listed = set(re.findall(r"`(\w+)`", block[1]))
    assert listed == set(FUNCTIONS), sorted(set(FUNCTIONS) ^ listed)
