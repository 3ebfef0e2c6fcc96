"""srcad.dask with a function defined in `__main__` (a script run as a program, a notebook
cell): workers cannot import it, so it is sent as its source text with its `__main__`
helpers, the modules they name and the globals they read, and rebuilt on the worker. Expected
gradients are the single-process gradient of the same function (checked against calculus in
the fast tests)."""

import itertools
import linecache
import math
import os
import pickle
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import srcad
from srcad.scale import shipped_source
from srcad.scale.dask_tasks import FunctionReference, chunk_value_and_gradient

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = Path(__file__).resolve().parent / "scripts" / "dask_main_fit.py"
CELLS = itertools.count(1)

MAIN_TEXT = '''
import math
import numpy as np

WEIGHT = 2.0

def helper(z):
    return math.exp(0.5 * z)

def loss(params, rows):
    total = 0.0
    for n in range(len(rows)):
        total += helper(params[0] * rows[n]) * WEIGHT + np.tanh(params[1])
    return total
'''


def main_function(text, name):
    """`name` from `text` run as IPython runs a cell of `__main__` (its text in linecache)."""
    text = textwrap.dedent(text)
    filename = f"<ipython-input-{next(CELLS)}-0123456789ab>"
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    env = {"__name__": "__main__"}
    exec(compile(text, filename, "exec"), env)
    return env[name]


def test_a_function_of_main_is_sent_as_its_text_and_rebuilt_on_the_worker():
    loss = main_function(MAIN_TEXT, "loss")
    shipment = pickle.loads(pickle.dumps(FunctionReference.of(loss)))  # what a task carries
    assert sorted(name for name, *_ in shipment.sources) == ["helper", "loss"]
    assert dict(shipment.modules) == {"math": "math", "np": "numpy"}
    shipped_source._RESOLVED.clear()  # as in a fresh worker process
    rebuilt = shipment.resolve()
    assert rebuilt is not loss and shipment.resolve() is rebuilt  # built once per process
    params, rows = np.array([0.3, 0.2]), np.linspace(-1.0, 1.0, 7)
    value, gradient = chunk_value_and_gradient(rows, shipment, params, (), "python")
    exp = np.exp(0.5 * params[0] * rows)
    expected = [np.sum(exp * 0.5 * rows) * 2.0, len(rows) * (1.0 - math.tanh(params[1]) ** 2)]
    np.testing.assert_allclose(gradient, expected, rtol=1e-13)
    np.testing.assert_allclose(value, loss(params, rows), rtol=1e-15)


def test_in_the_packing_process_the_function_itself_is_used():
    loss = main_function(MAIN_TEXT, "loss")
    assert FunctionReference.of(loss).resolve() is loss  # a cluster of threads


def test_a_refusal_on_a_worker_names_the_user_s_cell_and_line():
    refused = main_function('''
        import math

        def refused(params, rows):
            total = 0.0
            for n in range(len(rows)):
                total += hash(params[0]) * rows[n]
            return total
    ''', "refused")
    shipment = pickle.loads(pickle.dumps(FunctionReference.of(refused)))
    shipped_source._RESOLVED.clear()
    with pytest.raises(srcad.SrcadError) as caught:
        chunk_value_and_gradient(np.ones(3), shipment, np.ones(1), (), "python")
    assert caught.value.filename == refused.__code__.co_filename and caught.value.line == 7


def test_what_cannot_be_sent_is_refused_by_name():
    lam = main_function("f = lambda p, x: p[0] * x[0]\n", "f")
    with pytest.raises(srcad.ArgumentError, match="lambda"):
        FunctionReference.of(lam)
    reads_a_lock = main_function('''
        import threading
        LOCK = threading.Lock()
        def f(p, x):
            total = 0.0
            for n in range(len(x)):
                if LOCK is not None:
                    total += p[0] * x[n]
            return total
    ''', "f")
    with pytest.raises(srcad.ArgumentError, match="'LOCK' it reads cannot be sent"):
        FunctionReference.of(reads_a_lock)


@pytest.mark.slow
def test_a_script_run_as_a_program_fits_on_a_local_cluster():
    pytest.importorskip("distributed")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    run = subprocess.run([sys.executable, str(SCRIPT)], capture_output=True, text=True,
                         env=env, timeout=240, cwd=str(SCRIPT.parent))
    assert run.returncode == 0, run.stderr[-3000:]
    difference = float(run.stdout.split("relative difference ")[1].split()[0])
    assert difference < 1e-12
    assert "workers that built loss from its text: 2" in run.stdout


@pytest.mark.slow
def test_a_function_defined_in_a_notebook_cell_runs_on_a_local_cluster():
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    pytest.importorskip("distributed")
    cells = [f"import sys\nsys.path.insert(0, {str(ROOT)!r})", textwrap.dedent('''
        import math
        import numpy as np
        import dask.array as da
        from distributed import Client, LocalCluster
        import srcad, srcad.dask

        def loss(params, rows):
            total = 0.0
            for n in range(len(rows)):
                total += math.log(1.0 + math.exp(params[0] * rows[n])) + params[1] ** 2
            return total
    '''), textwrap.dedent('''
        rows = np.linspace(-2.0, 2.0, 300)
        params = np.array([0.4, -0.6])
        cluster = LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None)
        client = Client(cluster)
        value, gradient = srcad.dask.value_and_gradient(loss, params,
                                                        da.from_array(rows, chunks=60))
        s = 1.0 / (1.0 + np.exp(-params[0] * rows))
        expected = np.array([np.sum(s * rows), 2.0 * params[1] * len(rows)])
        print(float(np.max(np.abs(gradient - expected) / np.abs(expected))))
        client.close(); cluster.close()
    ''')]
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    nbclient.NotebookClient(notebook, timeout=240, kernel_name="python3",
                            resources={"metadata": {"path": str(ROOT)}}).execute()
    printed = "".join(o.get("text", "") for o in notebook.cells[-1].outputs
                      if o.output_type == "stream" and o.name == "stdout")
    assert float(printed.split()[-1]) < 1e-12
