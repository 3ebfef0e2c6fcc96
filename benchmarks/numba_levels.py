"""numba's LLVM optimization level against srcad's derivatives: the cold compile (a new
process, empty srcad and numba cache folders) and the warm run time of each problem, per
candidate level, side by side in one run.

    python benchmarks/numba_levels.py [--problems gmm kalman ...] [--levels 3 2 ...]
        [--size quick]

A level is `3`, `2`, `1` (LLVM's -O level of numba's passes) or `3-novec` (-O3 without
loop vectorization): each child process sets it through `SRCAD_NUMBA_OPT` (the level of
srcad's generated code, srcad/build/numba_level.py) and `NUMBA_LOOP_VECTORIZE`. "cold": the
wall-clock (and CPU time) from building the derivative to its first answer (srcad's
transformation, numba's compile, the first call); "run": the best wall-clock of the
derivative's later calls (at least 5 calls and 1 s). The load average is printed at the
start and at each row. BLAS runs on one thread (`OPENBLAS_NUM_THREADS=1`, ...): on a loaded
machine OpenBLAS's threads waiting for a core made one matrix product of the MLP's derivative
take 36 ms instead of 0.25 ms in some processes and not others, whatever the level.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

PORTS = {"gmm": ("gmm", "loops"), "gmm-vectorized": ("gmm", "vectorized"), "ht": ("ht", None),
         "particle": ("particle", None), "saddle": ("saddle", None), "lstm": ("lstm", None),
         "ba": ("ba", None)}
ONE_THREAD = {name: "1" for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS",
                                      "MKL_NUM_THREADS")}
PROBLEMS = [*PORTS, "kalman", "logistic", "mlp"]
LEVELS = {"3": {"SRCAD_NUMBA_OPT": "3"},
          "3-novec": {"SRCAD_NUMBA_OPT": "3", "NUMBA_LOOP_VECTORIZE": "0"},
          "2": {"SRCAD_NUMBA_OPT": "2"}, "1": {"SRCAD_NUMBA_OPT": "1"}}

# The lines of a child process that build `call`, the first derivative of the problem `name`
# at `size` on the numba backend (not yet called), with the clocks `cpu` and `wall` started
# just before the derivative is built; they read `name`, `size` and `ports` (PORTS) and need
# numpy as np, srcad and time imported. numba_compile_profile.py builds its problems with them.
BUILD_CALL = """
if name in ports:
    from srcad.gradbench.ports import common
    port_name, form = ports[name]
    port = common.by_name()[port_name]
    implementation = port.find(port.derivative, "srcad-numba", form)
    problem = port.parse(port.input(size))
    cpu, wall = time.process_time(), time.perf_counter()
    call = implementation.build(problem)
elif name == "kalman":
    from benchmarks.kalman_first_call import kalman_loglikelihood, simulated
    args = (np.array([-3.0, -2.0]), simulated(), 0.1)
    cpu, wall = time.process_time(), time.perf_counter()
    gradient = srcad.grad(kalman_loglikelihood, backend="numba")
    call = lambda: gradient(*args)
else:
    from benchmarks import array_kernels as ak
    quick = size != "default"
    if name == "logistic":
        sizes = (2000, 50) if quick else (10_000, 100)
        f, args, argnums = ak.logistic_loss, ak.logistic_problem(*sizes), 0
    else:
        sizes = (500, 50, 32, 10) if quick else (2000, 100, 64, 10)
        f, args, argnums = ak.mlp_loss, ak.mlp_problem(*sizes), (0, 1, 2, 3)
    cpu, wall = time.process_time(), time.perf_counter()
    gradient = srcad.grad(f, argnums, backend="numba")
    call = lambda: gradient(*args)
"""

_CHILD = """
import json, sys, time
sys.path.insert(0, sys.argv[1])
import numpy as np, srcad
name, size = sys.argv[2], sys.argv[3]
ports = %r
""" % (PORTS,) + BUILD_CALL + """call()
cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
best, spent, calls = float("inf"), 0.0, 0
while calls < 5 or spent < 1.0:
    start = time.perf_counter()
    call()
    took = time.perf_counter() - start
    best, spent, calls = min(best, took), spent + took, calls + 1
print(json.dumps({"cold": wall, "cold_cpu": cpu, "run": best}))
"""


def measure(problem: str, level: str, size: str) -> dict:
    with tempfile.TemporaryDirectory(prefix="srcad-levels-") as folder:
        env = dict(os.environ, SRCAD_CACHE_DIR=os.path.join(folder, "srcad"),
                   NUMBA_CACHE_DIR=os.path.join(folder, "numba"), **ONE_THREAD, **LEVELS[level])
        done = subprocess.run([sys.executable, "-c", _CHILD, str(ROOT), problem, size],
                              capture_output=True, text=True, env=env, timeout=1800)
    if done.returncode != 0:
        return {"failed": (done.stderr.strip().splitlines() or ["?"])[-1][:200]}
    return json.loads(done.stdout.strip().splitlines()[-1])


def _cell(result: dict) -> str:
    if "failed" in result:
        return "failed"
    return f"{result['cold']:6.1f} s ({result['cold_cpu']:5.1f} CPU) {result['run'] * 1e3:9.3f} ms"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--problems", nargs="*", default=PROBLEMS, choices=PROBLEMS)
    parser.add_argument("--levels", nargs="*", default=["3", "2"], choices=list(LEVELS))
    parser.add_argument("--size", default="quick", choices=["small", "quick", "default"])
    parser.add_argument("--json", help="also write the measurements here")
    args = parser.parse_args(argv)
    print(f"load average {os.getloadavg()[0]:.1f}; per level: cold compile (CPU), best run",
          flush=True)
    rows = {}
    for problem in args.problems:
        rows[problem] = {level: measure(problem, level, args.size) for level in args.levels}
        cells = "  ".join(f"O{level}: {_cell(rows[problem][level])}" for level in args.levels)
        print(f"{problem:15} {cells}  (load {os.getloadavg()[0]:.1f})", flush=True)
        if args.json:
            Path(args.json).write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
