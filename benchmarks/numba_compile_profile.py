"""Where numba's first compile of srcad's derivatives spends its time: per problem, in a new
process with empty srcad and numba cache folders, numba's own events (numba.core.event)
split the CPU time to the first derivative into numba's typing, lowering, LLVM and other
passes, and count the functions numba compiles (srcad's generated kernels, srcad's runtime
helpers in srcad/runtime/numba_*.py, numba's own implementations).

    python benchmarks/numba_compile_profile.py [--problems gmm kalman ...] [--size small]
        [--top 15]

Each row: the CPU and wall-clock time from building the derivative to its first answer, then
the exclusive time of numba's type inference, its lowering (numba IR to LLVM IR), LLVM
(under numba's LLVM lock: optimization and machine code), the rest of numba's passes, and
everything else (srcad's transformation, Python). "compiled" counts the functions numba
typed (a function typed again for the same signature counts again: "distinct" counts it once),
"srcad runtime" those of srcad's runtime modules, "generated" those of generated modules and
functions made from source (numba's `<dynamic>`: srcad's fused loops and reductions, numba's
ufunc loops), "for literal arguments" those typed for a constant argument's value
(numba types a call `f(x, 0)` from compiled code for `Literal[int](0)`). `--top N` prints
the N functions whose typing and lowering took longest, numba's passes by time, the typings
for literal arguments and the functions typed again. Problems are those of
benchmarks/numba_levels.py (the GradBench ports at `--size`, the Kalman filter, the logistic
regression and the MLP).
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
sys.path.insert(0, str(ROOT))

from benchmarks.numba_levels import BUILD_CALL, ONE_THREAD, PORTS, PROBLEMS  # noqa: E402

_CHILD = """
import collections, json, sys, threading, time
sys.path.insert(0, sys.argv[1])
import numpy as np, srcad
from numba.core import event
name, size, ports = sys.argv[2], sys.argv[3], json.loads(sys.argv[4])

class Profile(event.Listener):
    def __init__(self):
        self.stack, self.exclusive = [], collections.Counter()
        self.functions, self.per_function = [], collections.Counter()
        self.passes = collections.Counter()
        self.lock = threading.Lock()
    def on_start(self, ev):
        self.stack.append([ev, time.process_time(), 0.0])
    def on_end(self, ev):
        started, begun, children = self.stack.pop()
        took = time.process_time() - begun
        if self.stack:
            self.stack[-1][2] += took
        own = took - children
        if ev.kind == "numba:llvm_lock":
            self.exclusive["llvm"] += own
            return
        if ev.kind != "numba:run_pass":
            self.exclusive["numba other"] += own
            return
        data = ev.data
        pass_name = data["name"].split(" [")[0]
        key = (data["module"], data["qualname"], data["args"])
        self.passes[pass_name] += own
        if pass_name == "nopython_type_inference":
            self.functions.append(key)
            self.exclusive["typing"] += own
        elif pass_name in ("native_lowering", "nopython_backend"):
            self.exclusive["lowering"] += own
        else:
            self.exclusive["numba other"] += own
        if pass_name in ("nopython_type_inference", "native_lowering"):
            self.per_function[key] += own

profile = Profile()
for kind in ("numba:run_pass", "numba:llvm_lock", "numba:compile"):
    event.register(kind, profile)
""" + BUILD_CALL + """result = call()
cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
runtime = [f for f in profile.functions if f[0].startswith("srcad.runtime")]
generated = [f for f in profile.functions if not f[0].startswith(("srcad.", "numba."))]
top = [[m, q, a[:80], t] for (m, q, a), t in profile.per_function.most_common(int(sys.argv[5]))]
by_module = collections.Counter(f[0] for f in profile.functions)
again = [[m, q, a[:80], n] for (m, q, a), n in collections.Counter(profile.functions).most_common()
         if n > 1][:int(sys.argv[5])]
print(json.dumps({"cpu": cpu, "wall": wall, **profile.exclusive,
                  "compiled": len(profile.functions), "distinct": len(set(profile.functions)),
                  "runtime": len(runtime),
                  "literal": sum("Literal[" in f[2] for f in profile.functions),
                  "generated": len(generated), "top": top, "again": again,
                  "passes": [[n, t] for n, t in profile.passes.most_common(int(sys.argv[5]))],
                  "literals": sorted({f"{m}.{q} {a[:90]}" for m, q, a in profile.functions
                                      if "Literal[" in a})[:int(sys.argv[5])],
                  "modules": by_module.most_common(12)}))
"""


def measure(problem: str, size: str, top: int) -> dict:
    with tempfile.TemporaryDirectory(prefix="srcad-profile-") as folder:
        env = dict(os.environ, SRCAD_CACHE_DIR=os.path.join(folder, "srcad"),
                   NUMBA_CACHE_DIR=os.path.join(folder, "numba"), **ONE_THREAD)
        done = subprocess.run([sys.executable, "-c", _CHILD, str(ROOT), problem, size,
                               json.dumps(PORTS), str(top)],
                              capture_output=True, text=True, env=env, timeout=1800)
    if done.returncode != 0:
        return {"failed": (done.stderr.strip().splitlines() or ["?"])[-1][:200]}
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--problems", nargs="*", default=[*PORTS, "kalman"], choices=PROBLEMS)
    parser.add_argument("--size", default="small", choices=["small", "quick", "default"])
    parser.add_argument("--top", type=int, default=0)
    parser.add_argument("--json", help="also write the measurements here")
    args = parser.parse_args(argv)
    print(f"load average {os.getloadavg()[0]:.1f}; CPU s: total (wall), typing, lowering, "
          "LLVM, numba other, rest; functions compiled (srcad runtime, generated)", flush=True)
    rows = {}
    for problem in args.problems:
        row = rows[problem] = measure(problem, args.size, args.top)
        if "failed" in row:
            print(f"{problem:15} failed: {row['failed']}", flush=True)
            continue
        numba = sum(row.get(k, 0.0) for k in ("typing", "lowering", "llvm", "numba other"))
        print(f"{problem:15} {row['cpu']:5.1f} ({row['wall']:5.1f})  typing "
              f"{row.get('typing', 0):4.1f}  lowering {row.get('lowering', 0):4.1f}  LLVM "
              f"{row.get('llvm', 0):4.1f}  other {row.get('numba other', 0):4.1f}  rest "
              f"{row['cpu'] - numba:4.1f}  compiled {row['compiled']} ({row['distinct']} "
              f"distinct, {row['runtime']} srcad runtime, {row['generated']} generated, "
              f"{row['literal']} for literal arguments)  (load {os.getloadavg()[0]:.1f})",
              flush=True)
        for module, qualname, signature, took in row["top"]:
            print(f"    {took:5.2f} s  {module}.{qualname} {signature}")
        if args.top:
            print("    functions by module:", row["modules"])
            print("    numba's passes:", ", ".join(f"{n} {t:.2f} s" for n, t in row["passes"]))
            for line in row["literals"]:
                print(f"    for literal arguments: {line}")
            for module, qualname, signature, times in row["again"]:
                print(f"    typed {times} times: {module}.{qualname} {signature}")
        if args.json:
            Path(args.json).write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
