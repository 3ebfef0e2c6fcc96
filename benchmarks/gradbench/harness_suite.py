"""`make gradbench`: every GradBench eval program against srcad's tool on both backends and,
in the same run, GradBench's JAX tool where it has the eval; one JSON log, then the page.

    python benchmarks/gradbench/harness_suite.py [--sizes bounded|default|small]
        [--evals lse llsq ...] [--tools srcad-numba srcad-python jax] [--log PATH] [--no-page]

Sizes: "default" runs each eval program with its own default arguments (GradBench's sizes);
"bounded" (the default here) passes the arguments below, chosen so that the whole run ends in
bounded time on a shared 2-core machine; "small" is a smoke run. The arguments sent are in
the log and on the page. The machine's load average is recorded before and after every
conversation. lstm reads a substitute text (harness_setup.substitute_text): GradBench keeps
its English text outside its git tree.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import harness_page  # noqa: E402
import harness_run  # noqa: E402
import harness_setup as setup  # noqa: E402
from jax_one_thread import FLAGS, SETTING  # noqa: E402

EVALS = ("hello", "lse", "llsq", "det", "kmeans", "gmm", "ode", "ba", "ht", "lstm",
         "particle", "saddle")
TOOLS = ("srcad-numba", "srcad-python", "jax")
SIZES = {
    "small": {
        "lse": ["-n", "100", "1000"], "llsq": ["-n", "16", "64", "-m", "8"],
        "det": ["-l", "3", "5"], "kmeans": ["-k", "5", "-n", "50", "-d", "3"],
        "gmm": ["-d", "2", "-k", "3", "-n", "50"], "ode": ["-n", "100", "-s", "1"],
        "ba": ["--max", "1"], "ht": ["--model", "small", "--max", "1"],
        "lstm": ["-l", "2", "-c", "1024"],
    },
    "bounded": {
        "lse": ["-n", "2500", "40000"], "llsq": ["-n", "64", "1024", "-m", "128"],
        "det": ["-l", "5", "7"], "kmeans": ["-k", "10", "-n", "1000", "-d", "8"],
        "gmm": ["-d", "2", "10", "-k", "5", "-n", "1000"], "ode": ["-n", "1000", "-s", "1", "10"],
        "ba": ["--max", "1"], "ht": ["--model", "small", "--max", "1"],
        "lstm": ["-l", "2", "4", "-c", "1024", "4096"],
    },
    # ht: GradBench's default big complicated hand model, inputs hand1 to hand9 (NOTES)
    "default": {"ht": ["--max", "9"]},
}
# what a run at these sizes leaves out of the eval's defaults, and why (shown on the page)
NOTES = {"default": {
    "ht": "inputs hand1 to hand9 of GradBench's default 12 (big complicated hand model): "
          "hand10 and hand11 (25600 and 51200 correspondences, 3.8 MB of text) are not "
          "vendored, to keep third_party small, and hand12 is not in GradBench's git tree"}}

# srcad's numba tool may reassociate sums, as XLA does in GradBench's JAX tool (srcad's own
# default adds in the order written; `--in-order-sums` runs the tool that way)
NUMBA_OPTIONS = ("--reassociate",)

# the value functions; every other function an eval sends is a derivative
PRIMALS = {"hello": "square", "lse": "primal", "llsq": "primal", "det": "primal",
           "kmeans": "cost", "gmm": "objective", "ode": "primal", "ba": "objective",
           "ht": "objective", "lstm": "objective"}
# GradBench's JAX tool times each run of a jitted function and stops when min_runs runs add up
# to min_seconds: with one run, that run is the jit compilation. Three runs, on the evals the JAX
# tool has, so that its fastest run is a compiled one (srcad's tool compiles in `prepare`).
JAX_MIN_RUNS = 3
MISSING_DATA: dict = {}  # eval -> why it is skipped (its data not vendored)


def machine() -> dict:
    commit = subprocess.run(["git", "-C", str(setup.ROOT), "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip()
    return {"cpus": os.cpu_count(), "python": platform.python_version(),
            "platform": platform.platform(), "commit": commit,
            "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")}


def jax_available() -> bool:
    try:
        import jax  # noqa: F401
    except ImportError:
        return False
    return True


def run_suite(evals, tools, sizes: str, timeout: float, min_seconds: float | None,
              log_path: Path | None = None, numba_options=NUMBA_OPTIONS) -> dict:
    """Every eval against every tool (srcad's numba tool with `numba_options`); the log, also
    written to `log_path` after each conversation (a run cut short keeps what it measured)."""
    jax_evals = setup.jax_tool_evals() if "jax" in tools and jax_available() else set()
    runs, skipped = [], []
    log = {"machine": machine(), "sizes": sizes, "min_seconds": min_seconds,
           "timeout_s": timeout, "runs": runs, "skipped": skipped,
           "jax_threads": "GradBench's JAX tool " + SETTING.format(flags=FLAGS),
           "notes": {name: note for name, note in NOTES.get(sizes, {}).items()
                     if name in evals}}
    for name in evals:
        if name in MISSING_DATA:
            skipped.append({"eval": name, "reason": MISSING_DATA[name]})
            continue
        args = list(SIZES[sizes].get(name, []))
        if min_seconds is not None and name != "hello":
            args += ["--min-seconds", str(min_seconds)]
        if name in jax_evals and name != "hello" and "jax" in tools:
            args += ["--min-runs", str(JAX_MIN_RUNS)]
        for tool in tools:
            if tool == "jax" and name not in jax_evals:
                continue
            load_before = os.getloadavg()
            print(f"harness: {name} on {tool} {' '.join(args)}", file=sys.stderr, flush=True)
            options = numba_options if tool == "srcad-numba" else ()
            run = harness_run.run(name, tool, args, timeout, options)
            run["load_before"], run["load_after"] = load_before, os.getloadavg()
            run["primal"] = PRIMALS.get(name)
            print(f"harness: {name} on {tool}: {run['outcome']} in {run['wall_ns'] / 1e9:.1f} s",
                  file=sys.stderr, flush=True)
            runs.append(run)
            if log_path is not None:
                log_path.write_text(json.dumps(log, indent=1))
    return log


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", choices=sorted(SIZES), default="bounded")
    parser.add_argument("--evals", nargs="+", default=list(EVALS))
    parser.add_argument("--tools", nargs="+", default=list(TOOLS))
    parser.add_argument("--timeout", type=float, default=600,
                        help="seconds a tool may take to answer one message (GradBench's "
                             "--timeout)")
    parser.add_argument("--min-seconds", type=float, default=None,
                        help="passed to every eval (default: the eval's own, 1 s)")
    parser.add_argument("--log", default=str(setup.BUILD / "harness.json"))
    parser.add_argument("--page", default=str(setup.ROOT / "docs" / "gradbench.md"))
    parser.add_argument("--no-page", action="store_true")
    parser.add_argument("--in-order-sums", action="store_true",
                        help="run srcad's numba tool without --reassociate (srcad's default: "
                             "sums added in the order the code writes them)")
    args = parser.parse_args(argv)
    setup.build_reference()
    Path(args.log).parent.mkdir(parents=True, exist_ok=True)
    log = run_suite(args.evals, args.tools, args.sizes, args.timeout, args.min_seconds,
                    Path(args.log), () if args.in_order_sums else NUMBA_OPTIONS)
    print(f"harness: wrote {args.log}", file=sys.stderr)
    if not args.no_page:
        harness_page.write_section(args.page, harness_page.render(log))
        print(f"harness: wrote {args.page}", file=sys.stderr)


if __name__ == "__main__":
    main()
