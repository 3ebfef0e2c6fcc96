"""numba is imported when the numba backend is first used, never by `import srcad` or the
python backend (srcad/build/numba_module.py): in a new process, the modules loaded say so."""

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

_PROGRAM = textwrap.dedent("""
    import sys
    import numpy as np
    import srcad
    print("after import", "numba" in sys.modules)
    print("scipy after import", "scipy" in sys.modules)  # not a dependency of srcad's

    def f(x):
        return np.sum(x * x) + 3.0 * x[0]

    def g(x):
        return x * x

    assert np.allclose(srcad.grad(f)(np.ones(3)), [5.0, 2.0, 2.0])
    assert np.allclose(srcad.jacfwd(g)(np.ones(2)), 2.0 * np.eye(2))
    assert np.allclose(srcad.vmap(srcad.grad(f))(np.ones((2, 3))), [[5.0, 2.0, 2.0]] * 2)
    print("after python backend", "numba" in sys.modules)
""")


def _run(program: str, folder) -> list:
    path = Path(folder) / "program.py"  # a file: srcad reads the functions' text
    path.write_text(program)
    done = subprocess.run([sys.executable, str(path)], capture_output=True, text=True,
                          cwd=folder, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
                          timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def test_import_and_the_python_backend_leave_numba_unloaded(tmp_path):
    assert _run(_PROGRAM, tmp_path) == ["after import False", "scipy after import False",
                                        "after python backend False"]


@pytest.mark.slow
def test_the_numba_backend_loads_numba_when_first_used(tmp_path):
    pytest.importorskip("numba")
    program = _PROGRAM + textwrap.dedent("""
        assert np.allclose(srcad.grad(f, backend="numba")(np.ones(3)), [5.0, 2.0, 2.0])
        print("after numba backend", "numba" in sys.modules)
    """)
    assert _run(program, tmp_path)[-1] == "after numba backend True"
