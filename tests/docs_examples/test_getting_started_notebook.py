"""The getting-started page (docs/getting_started.md) as a notebook: its Python blocks, taken
from the page itself so the two cannot drift, run top to bottom as the cells of a fresh Jupyter
kernel (nbclient + ipykernel), as a new user pastes them. The site shows the same blocks'
output, run at build time (markdown-exec, `exec="on"`). Expected values come from calculus.
"""

import math
import os
import re
import textwrap

import numpy as np
import pytest

import srcad

ROOT = os.path.abspath(os.path.join(__file__, "..", "..", ".."))
PAGE = os.path.join(ROOT, "docs", "getting_started.md")
FENCE = re.compile(r"^```(?P<info>[^\n]*)\n(?P<body>.*?)^```", re.DOTALL | re.MULTILINE)


def page_cells():
    """The code of each Python block of the page, in order."""
    with open(PAGE) as page:
        text = page.read()
    return [m.group("body") for m in FENCE.finditer(text)
            if m.group("info").split(" ")[0] == "python"]


def test_every_python_block_of_the_page_shows_its_output():
    with open(PAGE) as page:
        infos = [m.group("info") for m in FENCE.finditer(page.read())]
    python = [info for info in infos if info.startswith("python")]
    assert len(python) == len(page_cells()) >= 5
    assert all('exec="on"' in info for info in python), python


def run_as_notebook(cells):
    """The text each cell printed on stdout; a cell that raises fails the test."""
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    setup = f"import sys\nsys.path.insert(0, {ROOT!r})"  # this checkout's srcad
    notebook = nbformat.v4.new_notebook(
        cells=[nbformat.v4.new_code_cell(code) for code in [setup, *cells]])
    client = nbclient.NotebookClient(notebook, timeout=300, kernel_name="python3",
                                     resources={"metadata": {"path": ROOT}})
    client.execute()  # raises CellExecutionError, with the cell and its traceback
    return ["".join(o.text for o in cell.outputs
                    if o.output_type == "stream" and o.name == "stdout")
            for cell in notebook.cells[1:]]


@pytest.mark.slow  # starts a kernel and compiles a numba program
def test_the_getting_started_cells_run_in_a_fresh_kernel():
    installed, first, rosen, generated, numba = run_as_notebook(page_cells())
    assert installed.split() == ["srcad", srcad.__version__]

    x, y = 2.0, 0.5
    assert first.splitlines() == [repr(math.sin(y)), repr((math.sin(y), x * math.cos(y)))]

    # Rosenbrock at zero: each (1 - x_i)^2 gives -2 and 2 on the diagonal, each
    # 100 (x_i - x_{i-1}^2)^2 adds 200 to the diagonal of x_i; no cross terms at zero
    gradient = np.array([-2.0, -2.0, -2.0, 0.0])
    hessian = np.diag([2.0, 202.0, 202.0, 200.0])
    assert rosen == f"{gradient}\n{hessian}\n"

    assert generated.startswith("def f_reverse(x, y")
    compile(generated, "<generated>", "exec")
    assert "math.cos(y)" in generated and "# line 4: return x * math.sin(y)" in generated

    same, python_line, numba_line = numba.splitlines()
    assert same == "same gradient: True"
    timing = re.compile(r"^ *(python|numba) backend: +([\d.]+) µs per gradient$")
    python_us = float(timing.match(python_line).group(2))
    numba_us = float(timing.match(numba_line).group(2))
    assert numba_us < python_us


def test_the_cells_are_the_page_blocks_verbatim():
    cells = page_cells()
    assert "def rosen(x):" in cells[2]
    assert "backend=\"numba\"" in cells[-1]
    assert all(cell == textwrap.dedent(cell) for cell in cells)


def test_the_site_runs_the_blocks_at_build_time():
    import tomllib

    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as project:
        docs_extra = tomllib.load(project)["project"]["optional-dependencies"]["docs"]
    assert any(d.startswith("markdown-exec") for d in docs_extra)
    with open(os.path.join(ROOT, "mkdocs.yml")) as config:
        text = config.read()
    assert "  - markdown-exec\n" in text and "getting_started.md" in text
