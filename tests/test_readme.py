"""The README's Python example runs as written."""
import pathlib
import re


def test_readme_python_example_runs(capsys):
    text = (pathlib.Path(__file__).parent.parent / "README.md").read_text()
    code = re.search(r"## Python\n\n```python\n(.*?)```", text, re.S)[1]
    namespace: dict = {}
    exec(compile(code, "README.md", "exec"), namespace)   # the project's own documentation, not user input
    assert namespace["rho"].atom == 0.5 and namespace["e2"].shape == (200,)
    assert r"\begin{aligned}" in capsys.readouterr().out
