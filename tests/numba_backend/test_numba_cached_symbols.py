"""Two generated functions compiled by two processes, loaded from numba's cache into a third:
each computes its own derivative (srcad/runtime/numba_symbols.py). Their fused loop nests
have one name, one argument signature and different bodies; with numba's counter starting
at 1 in every process, both processes gave them the same symbol and the third process ran
one body for both (the second gradient came out as the first one's)."""

import subprocess
import sys
import textwrap

import numpy as np
import pytest

pytest.importorskip("numba")

PROGRAMS = textwrap.dedent("""
    import numpy as np

    def doubled(A, c):
        return np.sum(np.sum((A - c[:, None]) * 2.0, axis=1))

    def tripled(A, c):
        return np.sum(np.sum((A - c[:, None]) * 3.0, axis=1))
""")

RUN = textwrap.dedent("""
    import sys
    import numpy as np
    import srcad
    import programs
    A, c = np.arange(12.0).reshape(3, 4), np.arange(3.0)
    for name in sys.argv[1:]:
        shadow = np.zeros_like(A)
        srcad.autodiff(srcad.Reverse, getattr(programs, name), srcad.Duplicated(A, shadow), c,
                       backend="numba")
        print(name, shadow[0, 0])
""")


@pytest.mark.slow  # three processes, two numba compilations
def test_functions_compiled_by_two_processes_keep_their_own_code(tmp_path):
    (tmp_path / "programs.py").write_text(PROGRAMS)
    (tmp_path / "run.py").write_text(RUN)
    env = {"SRCAD_CACHE_DIR": str(tmp_path / "cache"), "PYTHONPATH": str(tmp_path),
           "PATH": "/usr/bin:/bin"}
    import os

    env["PYTHONPATH"] += os.pathsep + os.pathsep.join(p for p in sys.path if p)

    def run(*names):
        out = subprocess.run([sys.executable, str(tmp_path / "run.py"), *names], env=env,
                             capture_output=True, text=True, check=True).stdout
        return {line.split()[0]: float(line.split()[1]) for line in out.splitlines()}

    assert run("doubled") == {"doubled": 2.0}  # compiled in a process of its own
    assert run("tripled") == {"tripled": 3.0}  # likewise, the same steps before it
    both = run("doubled", "tripled")  # both loaded from the cache
    np.testing.assert_array_equal([both["doubled"], both["tripled"]], [2.0, 3.0])
