"""What srcad's GradBench tool compiles per message, on its own path: each message of an eval
answered by `srcad.gradbench.tool.Tool` (what `python -m srcad.gradbench --backend numba`
runs), in a new process with empty srcad and numba cache folders, with numba's own events
(numba.core.event) splitting the CPU time of each message into numba's typing, lowering,
LLVM and other passes, and counting the functions numba compiles.

    python benchmarks/gradbench/tool_prepare_profile.py --eval gmm [--inputs 2,5,1000 10,25,1000]
        [--backend numba] [--top 10]

The eval's functions are asked in the order of its port (`to_json`: the primal first, as
GradBench's evals ask), once per input; an input is the port's size name ("default", "quick",
"small") or, for gmm, "d,k,n". Each row: the message's CPU time and wall-clock, the tool's own
`prepare` timing (what GradBench's harness reports in brackets beside the time to first
derivative), numba's split and the functions numba typed (a later input of the same types
compiles nothing). The time to first derivative of the harness is the wall-clock of the first
derivative message: the CPU time is the work, the wall-clock also the wait for a core on a
shared machine. `--top N` names the N functions whose typing and lowering took longest.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

_CHILD = r"""
import collections, json, sys, time
sys.path.insert(0, sys.argv[1])
from numba.core import event
from srcad.gradbench.main import load_ports
from srcad.gradbench.tool import Tool
evaluation, backend, inputs = sys.argv[2], sys.argv[3], json.loads(sys.argv[4])
top = int(sys.argv[5])

class Profile(event.Listener):
    def __init__(self):
        self.stack, self.split = [], collections.Counter()
        self.functions, self.own = [], collections.Counter()
    def on_start(self, ev):
        self.stack.append([time.process_time(), 0.0])
    def on_end(self, ev):
        begun, children = self.stack.pop()
        took = time.process_time() - begun
        if self.stack:
            self.stack[-1][1] += took
        own = took - children
        if ev.kind == "numba:llvm_lock":
            self.split["llvm"] += own
            return
        step = ev.data["name"].split(" [")[0] if ev.kind == "numba:run_pass" else ""
        key = (ev.data["module"], ev.data["qualname"], ev.data["args"]) if step else None
        if step == "nopython_type_inference":
            self.functions.append(key)
        part = {"nopython_type_inference": "typing", "native_lowering": "lowering",
                "nopython_backend": "lowering"}.get(step, "other")
        self.split[part] += own
        if part in ("typing", "lowering"):
            self.own[key] += own

tool = Tool(load_ports(), backend)
port = tool.evals[evaluation]
profile = Profile()
for kind in ("numba:run_pass", "numba:llvm_lock", "numba:compile"):
    event.register(kind, profile)
rows, number = [], 0
assert tool.respond({"id": number, "kind": "define", "module": evaluation})["success"]
for given in inputs:
    sizes = port.sizes[given] if given in port.sizes else dict(
        zip(("d", "k", "n"), map(int, given.split(","))))
    data = port.generate(**sizes)
    for function in port.to_json:
        number += 1
        typed, split = len(profile.functions), dict(profile.split)
        cpu, wall = time.process_time(), time.perf_counter()
        response = tool.respond({"id": number, "kind": "evaluate", "module": evaluation,
                                 "function": function, "input": data})
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        timings = response.get("timings") or [{"nanoseconds": 0}]
        made = profile.functions[typed:]
        rows.append({"input": given, "function": function, "success": response["success"],
                     "cpu": cpu, "wall": wall, "prepare": timings[0]["nanoseconds"] / 1e9,
                     **{k: v - split.get(k, 0.0) for k, v in profile.split.items()},
                     "compiled": len(made), "runtime": sum(m.startswith("srcad.runtime")
                                                          for m, _, _ in made),
                     "top": [[m, q, a[:70], profile.own[(m, q, a)]] for m, q, a in
                             sorted(set(made), key=lambda f: -profile.own[f])[:top]]})
print(json.dumps(rows))
"""


def measure(evaluation: str, backend: str, inputs: list, top: int) -> list:
    with tempfile.TemporaryDirectory(prefix="srcad-tool-profile-") as folder:
        env = dict(os.environ, SRCAD_CACHE_DIR=os.path.join(folder, "srcad"),
                   NUMBA_CACHE_DIR=os.path.join(folder, "numba"),
                   **{name: "1" for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS",
                                             "MKL_NUM_THREADS")})
        done = subprocess.run([sys.executable, "-c", _CHILD, str(ROOT), evaluation, backend,
                               json.dumps(inputs), str(top)],
                              capture_output=True, text=True, env=env, timeout=1800)
    if done.returncode != 0:
        raise SystemExit((done.stderr.strip().splitlines() or ["?"])[-1][:300])
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--eval", required=True, dest="evaluation")
    parser.add_argument("--inputs", nargs="*", default=["default"])
    parser.add_argument("--backend", default="numba", choices=["numba", "python"])
    parser.add_argument("--top", type=int, default=0)
    args = parser.parse_args(argv)
    print(f"load average {os.getloadavg()[0]:.1f}; per message: CPU s (wall s), the tool's "
          "prepare, numba's typing, lowering, LLVM, other; functions typed (srcad runtime)",
          flush=True)
    for row in measure(args.evaluation, args.backend, args.inputs, args.top):
        print(f"{args.evaluation}.{row['function']} {row['input']}: "
              f"{'ok' if row['success'] else 'FAILED'} {row['cpu']:5.2f} ({row['wall']:5.2f}) "
              f"prepare {row['prepare']:5.2f}  typing {row.get('typing', 0):4.2f}  lowering "
              f"{row.get('lowering', 0):4.2f}  LLVM {row.get('llvm', 0):4.2f}  other "
              f"{row.get('other', 0):4.2f}  typed {row['compiled']} ({row['runtime']})")
        for module, qualname, signature, took in row["top"]:
            print(f"    {took:5.2f} s  {module}.{qualname} {signature}")
    print(f"load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
