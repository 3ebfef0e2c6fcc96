"""What checking indices into slice views costs: reverse-mode gradients of view-heavy loops
(GradBench lstm in its views form, and loops reading and writing through slices) timed with
this checkout's srcad and, with `--against PATH`, with another checkout's, alternating in one
run so both see the same machine load. Prints the median time of each and their ratio, and
whether the two generated sources are the same.

    python benchmarks/view_index_cost.py --against /path/to/older/checkout
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent


def through_a_slice(x, w):
    # a range counter into literal bounds: a comparison per access, no call in range
    a = x.copy()
    v = a[1:9]
    for t in range(40):
        for k in range(8):
            v[k] = v[k] * w[k] + 0.1 * x[k] + 0.001 * t
    return np.sum(a * a)


def through_computed_bounds(x, w, i):
    # bounds known only at run time: every access through view_element
    a = x.copy()
    v = a[i:i + 8]
    for t in range(40):
        for k in range(8):
            v[k] = v[k] * w[k] + 0.1 * x[k] + 0.001 * t
    return np.sum(a * a)


def _cases(backend):
    """(label, f, arrays differentiated, constants) of the kernels timed."""
    sys.path.insert(0, str(HERE))
    from srcad.gradbench.ports import lstm

    problem = lstm.Problem(lstm.generate(2, 64))
    rng = np.random.default_rng(0)
    x, w = rng.standard_normal(10), 0.5 * rng.standard_normal(8)
    return [("lstm loops-views", lstm.lstm_views, problem.independent, problem.constants),
            ("slice, literal bounds", through_a_slice, (x,), (w,)),
            ("slice, computed bounds", through_computed_bounds, (x,), (w, 1))]


def measure(backend: str, repeats: int) -> dict:
    """{label: (median seconds, sha of the generated source)} with the srcad on sys.path."""
    import srcad

    out = {}
    for label, f, arrays, constants in _cases(backend):
        shadows = [np.zeros_like(a) for a in arrays]
        args = [srcad.Duplicated(a, s) for a, s in zip(arrays, shadows)] + list(constants)
        source = srcad.source(f, srcad.Reverse, *args, backend=backend)
        srcad.autodiff(srcad.Reverse, f, *args, backend=backend)  # compile
        times = []
        for _ in range(repeats):
            start = time.perf_counter()
            srcad.autodiff(srcad.Reverse, f, *args, backend=backend)
            times.append(time.perf_counter() - start)
        out[label] = (float(np.median(times)), hashlib.sha256(source.encode()).hexdigest()[:12])
    return out


def _run(tree: Path, backend: str, repeats: int) -> dict:
    env = dict(os.environ, PYTHONPATH=str(tree))
    text = subprocess.run([sys.executable, __file__, "--measure", backend, "--repeats",
                           str(repeats)], env=env, cwd=tree, check=True, capture_output=True,
                          text=True).stdout
    return json.loads(text.splitlines()[-1])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--against", type=Path, help="another checkout to compare with")
    parser.add_argument("--backends", default="python,numba")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--measure", help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.measure:
        print(json.dumps(measure(options.measure, options.repeats)))
        return
    trees = {"this": HERE.parent}
    if options.against:
        trees["against"] = options.against.resolve()
    for backend in options.backends.split(","):
        best: dict = {}
        for _ in range(options.rounds):  # alternate, keep each tree's best median
            for name, tree in trees.items():
                for label, (seconds, sha) in _run(tree, backend, options.repeats).items():
                    old = best.get((name, label))
                    best[(name, label)] = (min(seconds, old[0]) if old else seconds, sha)
        for label in dict.fromkeys(label for _, label in best):
            mine, sha = best[("this", label)]
            line = f"{backend:6} {label:24} {mine * 1e3:9.3f} ms"
            if "against" in trees:
                theirs, their_sha = best[("against", label)]
                line += (f"  against {theirs * 1e3:9.3f} ms  ratio {mine / theirs:5.3f}  "
                         f"source {'same' if sha == their_sha else 'differs'}")
            print(line)


if __name__ == "__main__":
    main()
