"""docs/tutorial.ipynb runs headless from top to bottom (nbclient, a test extra)."""
import pathlib

import pytest

nbclient = pytest.importorskip("nbclient")
nbformat = pytest.importorskip("nbformat")
pytest.importorskip("ipykernel")

ROOT = pathlib.Path(__file__).parents[2]


def test_tutorial_notebook_executes():
    notebook = nbformat.read(ROOT / "docs" / "tutorial.ipynb", as_version=4)
    # Run from the repository root, so that the kernel imports this checkout's symrmt.
    client = nbclient.NotebookClient(notebook, timeout=600, kernel_name="python3",
                                     resources={"metadata": {"path": str(ROOT)}})
    client.execute()
    outputs = [o for cell in notebook.cells if cell.cell_type == "code" for o in cell.get("outputs", [])]
    assert not [o for o in outputs if o.get("output_type") == "error"]
    latex = [o["data"]["text/latex"] for o in outputs if "text/latex" in o.get("data", {})]
    assert any(r"\nu" in text for text in latex)
    assert any("image/png" in o.get("data", {}) for o in outputs)
