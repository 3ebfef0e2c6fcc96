"""Side-by-side benchmark suite for srcad. Run with `make bench`.

    .venv/bin/python benchmarks/run.py            # full run, writes docs/benchmarks.md (+ .png)
    .venv/bin/python benchmarks/run.py --quick    # smoke run: few repeats, writes nothing
    .venv/bin/python benchmarks/run.py --pin 0    # pin the process to CPU 0 first
    .venv/bin/python benchmarks/run.py --only arrays  # one problem (a partial run writes
                                                      # nothing unless --write)
    .venv/bin/python benchmarks/run.py --only first --update  # time to first derivative:
                                                      # rewrite that section of the page only

Layout: this module only composes the problems. harness.py holds the method below (Config,
Row, Suite, run_case, measure, interleaved_ratio); one module per problem (problem_mixture.py,
problem_vector.py, problem_jacobian.py, problem_transform.py, problem_arrays.py) runs its
contenders and, for new problems, states its own targets; report.py renders the targets table,
docs/benchmarks.md and the chart; kernels.py and array_kernels.py hold the raced functions.
A new problem is a new problem_*.py, one line in PROBLEMS and its table in report.py.

Method (benchmark honestly):
- every contender gets the same data, built once per problem size;
- every contender's derivative is checked against an exact reference before it is timed; one
  that disagrees is reported as DISAGREES and not timed;
- the first call is timed separately (it includes transformation / jit compilation);
- then warm-up calls, then `repeats` samples of `number` calls each; we report the median (and
  the minimum) per call. `number` is calibrated so a sample lasts at least `min_sample` seconds;
- JAX computes on one thread, as GradBench's comparison pins it (gradbench/jax_one_thread.py:
  XLA_FLAGS and its CPU client created while the process may run on one CPU), as srcad's code
  and OpenBLAS do;
- timed closures bind everything they use as locals (no global or module-attribute lookups);
- the garbage collector stays enabled (as for a user) but is run before each contender;
- a contender that is not installed or not implemented yet is reported as skipped, never
  silently dropped.
Shared machines are noisy: compare ratios within one run, not absolute times across runs.
"""

from __future__ import annotations

import argparse
import os
import sys

import harness
import numpy as np
from harness import FULL, QUICK, Suite, ms, perf_counter
from interface_cost import section_interface_cost
from mixture import make_problem, mixture_loglikelihood
from problem_arrays import section_arrays
from problem_checkpoint import section_checkpoint
from problem_first_derivative import section_first_derivative, update_page
from problem_jacobian import section_jacobian
from problem_mixture import section_mixture
from problem_parallel import section_parallel
from problem_special import section_special
from problem_transform import section_transform
from problem_vector import section_vector
from problem_vmap import section_vmap
from report import chart, machine_info, markdown, print_summary

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "gradbench"))
from jax_one_thread import pin_jax_to_one_cpu  # noqa: E402

ROOT = harness.ROOT

# The problems, in run order: (number, name, section(suite, srcad, sizes)).
PROBLEMS = [
    ("1", "mixture", section_mixture),
    ("2", "vector", lambda suite, srcad, sizes: section_vector(suite, srcad)),
    ("3", "jacobian", lambda suite, srcad, sizes: section_jacobian(suite, srcad)),
    ("4", "transform", lambda suite, srcad, sizes: section_transform(suite, srcad)),
    ("5", "arrays", lambda suite, srcad, sizes: section_arrays(suite, srcad)),
    ("6", "interface", lambda suite, srcad, sizes: section_interface_cost(suite, srcad)),
    ("7", "parallel", lambda suite, srcad, sizes: section_parallel(suite, srcad)),
    ("8", "checkpoint", lambda suite, srcad, sizes: section_checkpoint(
        suite, srcad, cases=[("numba", 2_000), ("python", 100)] if suite.cfg.quick else None)),
    ("9", "vmap", lambda suite, srcad, sizes: section_vmap(suite, srcad)),
    ("10", "special", lambda suite, srcad, sizes: section_special(suite, srcad)),
    ("11", "first", lambda suite, srcad, sizes: section_first_derivative(suite, srcad)),
]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="smoke run: few repeats; does not "
                        "write docs/ unless --write")
    parser.add_argument("--write", action="store_true", help="with --quick or a partial run: "
                        "write docs/ anyway")
    parser.add_argument("--pin", type=int, metavar="CPU", help="pin the process to one CPU")
    parser.add_argument("--sections", default=",".join(p[0] for p in PROBLEMS),
                        help="comma-separated numbers or names, e.g. 1,3 or mixture,arrays")
    parser.add_argument("--only", metavar="NAME", help="run one problem: "
                        + ", ".join(p[1] for p in PROBLEMS) + "; like --sections NAME")
    parser.add_argument("--update", action="store_true", help="with --only first: replace that "
                        "section of docs/benchmarks.md, keep the rest of the page")
    parser.add_argument("--no-large", action="store_true", help="skip N=100000")
    args = parser.parse_args(argv)
    if args.pin is not None:  # before jax/numba start their threads
        os.sched_setaffinity(0, {args.pin})
    jax_threads = pin_jax_to_one_cpu()  # before any contender imports JAX
    cfg = QUICK if args.quick else FULL
    sections = {s.strip() for s in (args.only or args.sections).split(",")}
    unknown = sections - {key for p in PROBLEMS for key in p[:2]}
    if unknown:
        parser.error(f"unknown section(s) {', '.join(sorted(unknown))}")
    partial = any(not ({number, name} & sections) for number, name, _ in PROBLEMS)
    sizes = [(500, 4), (500, 40)] + ([] if args.no_large else [(100_000, 4)])
    info = machine_info(args.pin)
    info["JAX"] = jax_threads
    for key, value in info.items():
        print(f"{key:>22}: {value}")
    start = perf_counter()

    # The very first srcad call in this process: imports, parsing, transformation, compile.
    t0 = perf_counter()
    import srcad
    params, data = make_problem(500, 4)
    srcad.autodiff(srcad.Reverse, mixture_loglikelihood,
                   srcad.Duplicated(params, np.zeros_like(params)), data)
    suite = Suite(cfg)
    suite.extra["cold"] = perf_counter() - t0
    print(f"{'cold first srcad call':>22}: {ms(suite.extra['cold'])} ms (import srcad + "
          "transform + compile + one call)")

    for number, name, section in PROBLEMS:
        if {number, name} & sections:
            section(suite, srcad, sizes)
    wall = perf_counter() - start
    print_summary(suite, sizes)
    print(f"\nwall time {wall:.0f} s")
    if args.update and sections <= {"11", "first"}:
        page = ROOT / "docs" / "benchmarks.md"
        update_page(page, suite)
        print(f"updated the first-derivative section of {page}")
        return 0
    if (cfg.quick or partial) and not args.write:
        print(f"{'--quick' if cfg.quick else 'a partial run'}: docs/benchmarks.md not written "
              "(pass --write to write it)")
        return 0
    docs = ROOT / "docs"
    docs.mkdir(exist_ok=True)
    (docs / "benchmarks.md").write_text(markdown(suite, info, sizes, wall))
    print(f"wrote {docs / 'benchmarks.md'}")
    if chart(suite, sizes, docs / "benchmarks.png"):
        print(f"wrote {docs / 'benchmarks.png'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
