"""How many generated programs the numba backend's loop-nest hoisting (hoist.py) rewrites.

    python fuzz/hoist_rate.py --nests --count 500 [--seed 0] [--show 2]

For each program: normalize, type with the generated arguments' types, and run
`srcad.transform.normalize.hoist.hoist_invariants` the way srcad/build/pipeline.py does for
backend="numba".
Prints the fraction of programs with a hoisted value (and of the loop-nest programs, with
--nests), and --show N prints the first N rewritten primals.
"""

from __future__ import annotations

import collections
import os
import sys

import gast

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path[:0] = [p for p in (ROOT, HERE) if p not in sys.path]

from checking import load_module  # noqa: E402
from generator import rate_programs  # noqa: E402

from srcad.analysis.types import FLOAT, INT, Array, Types  # noqa: E402
from srcad.build.codegen import to_source  # noqa: E402
from srcad.frontend.parse import parse_function  # noqa: E402
from srcad.transform.normalize.hoist import hoist_invariants  # noqa: E402
from srcad.transform.normalize.stage import normalize  # noqa: E402


def _type(arg):
    if arg.kind == "dup":
        return Array(len(arg.shape), True)
    return FLOAT if arg.kind == "active" else INT


def hoists(program):
    """(True/False/None for an error, the rewritten primal's source)."""
    module, name = load_module(program.source)
    try:
        norm = normalize(parse_function(module.f))
        types = {p: _type(a) for p, a in zip(norm.params, program.args)}
        hoisted = hoist_invariants(norm, Types(norm, types))
        fn = gast.FunctionDef(name="f", args=gast.arguments(
            args=[gast.Name(p, gast.Param(), None, None) for p in norm.params],
            posonlyargs=[], vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None,
            defaults=[]), body=norm.body, decorator_list=[], returns=None,
            type_comment=None, type_params=[])
        return hoisted, to_source(gast.Module(body=[fn], type_ignores=[]))
    finally:
        sys.modules.pop(name, None)


def main(argv=None):
    opts, programs = rate_programs(argv, __doc__.split("\n")[0], 500)
    counts = collections.Counter()
    shown = 0
    for seed, program in programs:
        nest = program.nest
        try:
            hoisted, text = hoists(program)
        except Exception as err:  # noqa: BLE001  (refused by srcad: counted apart)
            counts["error"] += 1
            counts[f"error: {type(err).__name__}"] += 1
            continue
        counts["programs"] += 1
        counts["nest programs"] += nest
        counts["hoisted"] += hoisted
        counts["hoisted nest programs"] += hoisted and nest
        if hoisted and shown < opts.show:
            shown += 1
            print(f"# seed {seed}\n{text}")
    total = counts["programs"]
    nests = counts["nest programs"]
    print(f"{opts.count} programs ({total} normalized, {counts['error']} refused): "
          f"{counts['hoisted']} hoisted ({counts['hoisted'] / max(total, 1):.1%})")
    if opts.nests:
        print(f"nest programs: {nests}, hoisted {counts['hoisted nest programs']} "
              f"({counts['hoisted nest programs'] / max(nests, 1):.1%})")
    for key, n in sorted(counts.items()):
        if key.startswith("error: "):
            print(f"  {key}: {n}")


if __name__ == "__main__":
    main()
