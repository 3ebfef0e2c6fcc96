"""Functions defined in notebook cells, run in a real Jupyter kernel (nbclient + ipykernel),
and in `ipython -c`. IPython compiles a cell one statement at a time, so a function whose cell
also imports the module it calls is compiled without that import in view; srcad's source check
must accept that code and still refuse text that is not the code Python runs.

One kernel runs every cell of this module (a kernel starts in about a second); each test reads
the outputs of its own cells. Expected values are written from calculus, not from srcad.
"""

import math
import os
import subprocess
import sys
import textwrap

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")

ROOT = os.path.abspath(os.path.join(__file__, "..", "..", ".."))

# name -> the cells of one scenario, run in this order in one kernel; each prints what its
# test reads (a refusal prints its class name instead of raising, so later cells run)
SCENARIOS = {
    "setup": [f"""
        import sys
        sys.path.insert(0, {ROOT!r})
        import srcad
        print(srcad.__file__)
    """],
    "import_and_def_in_one_cell": ["""
        import math
        import numpy as np
        def f_one(x):
            return math.sin(x) * x + np.exp(x)
        print(repr(srcad.grad(f_one)(0.5)))
    """],
    "magic_line_above_the_def": ["""
        %precision 4
        import cmath
        def f_magic(x):
            return math.cos(x) * math.exp(x)
        print(repr(srcad.grad(f_magic)(0.3)))
        %precision
        None
    """],
    "redefined_in_a_later_cell": ["""
        def g(x):
            return x ** 2
        first_g = g
        print(repr(srcad.grad(g)(3.0)))
    """, """
        def g(x):
            return x ** 3
        print(repr(srcad.grad(g)(3.0)), repr(srcad.grad(first_g)(3.0)))
    """],
    "helpers_across_cells": ["""
        def helper(x):
            return np.sin(x) * 2.0
    """, """
        def uses_helper(x):
            return np.sum(helper(x) * x)
        print(srcad.grad(uses_helper)(np.array([0.1, 0.7])).tolist())
    """, """
        import numpy as np
        def helper(x):
            return np.square(x)
        print(srcad.grad(uses_helper)(np.array([0.1, 0.7])).tolist())
    """],
    "decorators": ["""
        import math
        @srcad.reverse
        def cube(x):
            return math.sin(x) * x * x
        print(repr(cube(srcad.Active(2.0))[0]), repr(cube(2.0)))
    """],
    "lambdas": ["""
        import numpy as np
        square_sum = lambda x: np.sum(np.tanh(x) ** 2)
        print(srcad.grad(square_sum)(np.array([0.2, -0.4])).tolist())
    """, """
        import math
        srcad.grad(lambda x: math.cos(x) * x)(0.3)
    """],
    "numba": ["""
        import math
        import numpy as np
        def numba_f(x):
            s = 0.0
            for i in range(x.shape[0]):
                s += math.sin(x[i]) * x[i]
            return s
        print(srcad.grad(numba_f, backend="numba")(np.array([0.5, 1.5])).tolist())
    """],
    "file_edited_after_import": [r"""
        import importlib, pathlib, tempfile, time
        folder = pathlib.Path(tempfile.mkdtemp())
        (folder / "edited_nb_module.py").write_text("def h(x):\n    return x * x\n")
        sys.path.insert(0, str(folder))
        import edited_nb_module
        time.sleep(0.01)
        (folder / "edited_nb_module.py").write_text("def h(x):\n    return x * x * x\n")
        try:
            srcad.grad(edited_nb_module.h)(2.0)
        except srcad.StaleSourceError as refusal:
            print(type(refusal).__name__)
        importlib.reload(edited_nb_module)
        print(repr(srcad.grad(edited_nb_module.h)(2.0)))
    """],
    "cell_magic": ["""
        %%time
        def timed(x):
            return math.sin(x) * x
        try:
            srcad.grad(timed)(0.5)
        except srcad.SrcadError as refusal:
            print(refusal)
    """],
    "autoreload": [r"""
        %load_ext autoreload
        %autoreload 2
        import os, pathlib, tempfile
        folder = pathlib.Path(tempfile.mkdtemp())
        sys.path.insert(0, str(folder))
        module_text = (
            "import math\n"
            "def helper(x):\n    return x * x\n"
            "def f(x):\n    return helper(x) * 2.0\n"
            "def g(x):\n    return math.sin(x)\n")
        (folder / "reloaded_nb_module.py").write_text(module_text)
        import reloaded_nb_module as m
        kept_f = m.f
        print(srcad.gradient(m.f, 2.0), srcad.grad(m.f)(2.0),
              srcad.gradient(m.g, 2.0), srcad.grad(m.g)(2.0))
    """, r"""
        edited = module_text.replace("x * x", "x * x * x").replace("sin", "cos")
        (folder / "reloaded_nb_module.py").write_text(edited)
        later = os.stat(folder / "reloaded_nb_module.py").st_mtime + 5
        os.utime(folder / "reloaded_nb_module.py", (later, later))
    """, """
        print(srcad.gradient(m.f, 2.0), srcad.grad(m.f)(2.0),
              srcad.gradient(m.g, 2.0), srcad.grad(m.g)(2.0), kept_f is m.f)
    """],
}


@pytest.fixture(scope="module")
def outputs():
    """scenario -> the text each of its cells printed (or the error it raised)."""
    cells, owners = [], []
    for name, sources in SCENARIOS.items():
        for source in sources:
            cells.append(nbformat.v4.new_code_cell(textwrap.dedent(source).strip()))
            owners.append(name)
    notebook = nbformat.v4.new_notebook(cells=cells)
    client = nbclient.NotebookClient(notebook, timeout=240, kernel_name="python3",
                                     allow_errors=True, resources={"metadata": {"path": ROOT}})
    client.execute()
    seen = {name: [] for name in SCENARIOS}
    for name, cell in zip(owners, notebook.cells):
        text = []
        for output in cell.outputs:
            if output.output_type == "stream":
                text.append(output.text)
            elif output.output_type == "execute_result":
                text.append(output.data["text/plain"])
            elif output.output_type == "error":
                text.append(f"{output.ename}: {output.evalue}")
        seen[name].append("".join(text).strip())
    return seen


def _numbers(text):
    return [float(t) for t in text.replace("[", " ").replace("]", " ").replace(",", " ").split()]


def test_the_kernel_runs_this_checkout(outputs):
    assert outputs["setup"] == [os.path.join(ROOT, "srcad", "__init__.py")]


def test_import_and_def_in_one_cell(outputs):
    x = 0.5
    (got,) = _numbers(outputs["import_and_def_in_one_cell"][0])
    assert got == pytest.approx(math.cos(x) * x + math.sin(x) + math.exp(x))


def test_a_magic_line_above_the_def(outputs):
    x = 0.3
    (got,) = _numbers(outputs["magic_line_above_the_def"][0])
    assert got == pytest.approx((math.cos(x) - math.sin(x)) * math.exp(x))


def test_a_function_redefined_in_a_later_cell_is_the_new_definition(outputs):
    first, second = outputs["redefined_in_a_later_cell"]
    assert _numbers(first) == [pytest.approx(6.0)]
    # the new g is x ** 3; the object kept from the first cell still runs x ** 2
    assert _numbers(second) == [pytest.approx(27.0), pytest.approx(6.0)]


def test_helpers_from_other_cells_are_read_as_they_are_now(outputs):
    _, with_sine, with_square = outputs["helpers_across_cells"]
    x = [0.1, 0.7]
    assert _numbers(with_sine) == pytest.approx([2 * math.sin(v) + 2 * v * math.cos(v) for v in x])
    assert _numbers(with_square) == pytest.approx([3 * v * v for v in x])


def test_a_decorated_function(outputs):
    x = 2.0
    derivative, value = _numbers(outputs["decorators"][0])
    assert derivative == pytest.approx(math.cos(x) * x * x + 2 * x * math.sin(x))
    assert value == pytest.approx(math.sin(x) * x * x)


def test_lambdas_assigned_and_passed_in_a_cell(outputs):
    assigned, passed = outputs["lambdas"]
    x = [0.2, -0.4]
    assert _numbers(assigned) == pytest.approx(
        [2 * math.tanh(v) * (1 - math.tanh(v) ** 2) for v in x])
    assert _numbers(passed) == [pytest.approx(math.cos(0.3) - 0.3 * math.sin(0.3))]


def test_the_numba_backend(outputs):
    x = [0.5, 1.5]
    got = _numbers(outputs["numba"][0].splitlines()[-1])
    assert got == pytest.approx([math.sin(v) + v * math.cos(v) for v in x])


def test_a_module_file_edited_after_import_is_still_refused(outputs):
    refusal, reloaded = outputs["file_edited_after_import"][0].splitlines()[-2:]
    assert refusal == "StaleSourceError"
    assert _numbers(reloaded) == [pytest.approx(12.0)]


def test_ipython_dash_c():
    cell = textwrap.dedent("""
        import math
        import srcad
        def f(x):
            return math.sin(x) * x
        print(repr(srcad.grad(f)(0.5)))
    """)
    run = subprocess.run([sys.executable, "-m", "IPython", "--no-banner", "--quick",
                          "-c", cell], capture_output=True, text=True, timeout=120,
                         env={**os.environ, "PYTHONPATH": ROOT})
    assert run.returncode == 0, run.stdout + run.stderr
    assert _numbers(run.stdout.strip().splitlines()[-1]) == [
        pytest.approx(math.cos(0.5) * 0.5 + math.sin(0.5))]


def test_autoreload_edits_are_differentiated_as_the_new_code(outputs):
    # %autoreload 2 gives the function objects the edited file's code in place: the
    # derivative (kept preparations and compiled code too) follows, helper and function alike
    before, _, after = outputs["autoreload"]
    x = 2.0
    assert _numbers(before) == pytest.approx([4 * x, 4 * x, math.cos(x), math.cos(x)])
    *numbers, same_object = after.split()
    assert same_object == "True"
    assert _numbers(" ".join(numbers)) == pytest.approx(
        [6 * x * x, 6 * x * x, -math.sin(x), -math.sin(x)])


def test_a_function_defined_in_a_time_cell_is_refused_saying_why(outputs):
    # IPython compiles a %%time cell under `<timed exec>` and keeps no text of it
    (said,) = outputs["cell_magic"]
    assert "the source of timed is not available: it was defined in a `%%time` cell" in said
    assert "define the function in a cell without `%%time`" in said
