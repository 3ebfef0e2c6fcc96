"""How many generated programs reach the numba backend's reverse-mode loop paths
(srcad/transform/reverse/control_flow.py): forward-order reverse loops and split loops.

    python fuzz/split_rate.py --nests --count 300 [--seed 0] [--show 1]

For each program: generate the numba reverse source (`srcad.source(f, srcad.Reverse, ...,
backend="numba")`, nothing compiled) and count

* forward order: a reverse loop "visited in forward order" (independent iterations);
* split: a forward loop emitted as `if <trips> >= 8:` two loops with `simd_exp`, else the loop;
* long / short: a split loop that, run on the fuzzer's first input draw, has at least 8 trips
  (the split loops run) / fewer than 8 trips (the original loop runs) at least once. The trip
  counts come from a plain run of the program with `len(range(...))` recorded before every
  loop whose index is one of the split loops' indices.

--show N prints the first N split programs' source.
"""

from __future__ import annotations

import ast
import collections
import os
import re
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path[:0] = [p for p in (ROOT, HERE) if p not in sys.path]

from checking import load_module  # noqa: E402
from generator import make_inputs, rate_programs  # noqa: E402

import srcad  # noqa: E402

FORWARD_ORDER = "visited in forward order"
SPLIT = re.compile(r"if \w+ >= 8:\n\s*# long loop: exp vectorized[^\n]*\n\s*for (\w+) in ")


def _annotated(program, values):
    out = []
    for arg, value in zip(program.args, values):
        if arg.kind == "dup":
            out.append(srcad.Duplicated(value.copy(), np.zeros_like(value)))
        elif arg.kind == "active":
            out.append(srcad.Active(value))
        else:
            out.append(value)
    return out


class _Trips(ast.NodeTransformer):
    def __init__(self, indices):
        self.indices = indices

    def visit_For(self, node):
        self.generic_visit(node)
        it = node.iter
        if isinstance(node.target, ast.Name) and node.target.id in self.indices and \
                isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and \
                it.func.id == "range":
            record = ast.parse(f"_TRIPS.append(len(range({', '.join(map(ast.unparse, it.args))})))"
                               ).body[0]
            return [record, node]
        return node


def trip_counts(program, values, indices) -> list:
    tree = _Trips(indices).visit(ast.parse(program.source))
    ns = {"_TRIPS": []}
    exec(compile(ast.fix_missing_locations(tree), "<split_rate>", "exec"), ns)
    with np.errstate(all="ignore"):
        ns[program.entry](*[v.copy() if isinstance(v, np.ndarray) else v for v in values])
    return ns["_TRIPS"]


def main(argv=None):
    opts, programs = rate_programs(argv, __doc__.split("\n")[0], 300)
    counts = collections.Counter()
    shown = 0
    for seed, program in programs:
        values = make_inputs(program, np.random.default_rng([seed, 0]))
        module, _ = load_module(program.source)
        counts["programs"] += 1
        counts["sum programs"] += program.sums
        counts["nest programs"] += program.nest
        try:
            source = srcad.source(getattr(module, program.entry), srcad.Reverse,
                                  *_annotated(program, values), backend="numba")
        except Exception:  # noqa: BLE001
            counts["no reverse source"] += 1
            continue
        forward = FORWARD_ORDER in source
        indices = set(SPLIT.findall(source))
        split = bool(indices)
        counts["forward order"] += forward
        counts["split"] += split
        counts["sum programs: forward order"] += forward and program.sums
        counts["sum programs: split"] += split and program.sums
        if split:
            try:
                trips = trip_counts(program, values, indices)
            except Exception:  # noqa: BLE001
                trips = []
                counts["split: primal raises"] += 1
            counts["split, long (>= 8 trips)"] += any(t >= 8 for t in trips)
            counts["split, short (< 8 trips)"] += any(t < 8 for t in trips)
            counts["split, both in one call"] += any(t >= 8 for t in trips) and \
                any(t < 8 for t in trips)
            if shown < opts.show:
                shown += 1
                print(f"# seed {seed}\n{program.source}")
    total = counts["programs"]
    for key, value in counts.items():
        base = counts["sum programs"] if key.startswith("sum programs:") else total
        print(f"{key:32s} {value:5d}  {100.0 * value / max(base, 1):5.1f}%")


if __name__ == "__main__":
    main()
