"""srcad as a GradBench tool: `python -m srcad.gradbench` speaks GradBench's protocol (one JSON
message per line on stdin, one response per line on stdout) and answers with the Python ports
of the evals in benchmarks/gradbench of a srcad checkout.

Guarantees: every message gets exactly one response carrying its "id"; "define" succeeds
only for an eval that has a port; "evaluate" runs the requested function at least
`min_runs` times and until the runs add up to `min_seconds`, and reports each run as an
"evaluate" timing (the one-time transform and compilation as one "prepare" timing); a failure
is a response with "success": false and the error, never a dead tool. Nothing but responses
is written to stdout.

    python -m srcad.gradbench [--backend numba|python] [--ports PATH]

`--ports` (or $SRCAD_GRADBENCH_PORTS) is the directory holding `benchmarks/gradbench`; by
default the checkout this srcad is imported from.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
import time
import traceback
from pathlib import Path
from typing import Any, TextIO

from srcad._version import __version__

BACKENDS = ("numba", "python")


def load_ports(root: str | os.PathLike | None = None):
    """The `benchmarks.gradbench.common` module of the checkout at `root` (by default the one
    holding this srcad), imported with `root` on sys.path."""
    root = Path(root or os.environ.get("SRCAD_GRADBENCH_PORTS")
                or Path(__file__).resolve().parent.parent)
    if not (root / "benchmarks" / "gradbench" / "common.py").is_file():
        raise FileNotFoundError(f"no GradBench ports under {root} (expected "
                                f"{root / 'benchmarks' / 'gradbench'}); pass --ports")
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    return importlib.import_module("benchmarks.gradbench.common")


class Tool:
    """The state of one conversation with an eval: the ports and the backend."""

    def __init__(self, common, backend: str = "numba", log: TextIO = sys.stderr):
        if backend not in BACKENDS:
            raise ValueError(f"backend must be one of {BACKENDS}, not {backend!r}")
        self.common = common
        self.backend = backend
        self.log = log
        self.evals = common.by_name()

    def respond(self, message: dict) -> dict:
        kind = message.get("kind")
        response: dict[str, Any] = {"id": message["id"]}
        if kind == "start":
            response["tool"] = "srcad"
            response["config"] = {"backend": self.backend, "version": __version__}
        elif kind == "define":
            response.update(self.define(message["module"]))
        elif kind == "evaluate":
            response.update(self.evaluate(message))
        return response

    def define(self, module: str) -> dict:
        if module in self.evals:
            return {"success": True}
        return {"success": False,
                "error": f"srcad has no port of the {module!r} eval "
                         f"(ports: {', '.join(sorted(self.evals))})"}

    def evaluate(self, message: dict) -> dict:
        try:
            port = self.evals[message["module"]]
            data = message["input"]
            function = message["function"]
            if function not in port.to_json:
                raise KeyError(f"the {port.name} eval has no function {function!r}")
            problem = port.parse(data)
            start = time.perf_counter_ns()
            call = self.build(port, function, problem)
            prepare = time.perf_counter_ns() - start
            timings, result = run_timed(call, int(data.get("min_runs", 1)),
                                        float(data.get("min_seconds", 0.0)))
            return {"success": True, "output": port.to_json[function](result),
                    "timings": [{"name": "prepare", "nanoseconds": prepare}] + timings}
        except Exception as exc:  # the eval learns of every failure from the response
            return {"success": False, "error": "".join(traceback.format_exception(exc))}

    def build(self, port, function: str, problem):
        """The first implementation that builds: srcad on this backend (the C++-shaped loop form
        first, then the rewrites the port lists), then on the python backend; the plain primal
        for the value function."""
        common = self.common
        if function == port.derivative:
            tools = [f"srcad-{self.backend}"] + (["srcad-python"]
                                                 if self.backend != "python" else [])
        else:
            tools = ["primal"]
        refusals = []
        for tool in tools:
            for implementation in port.implementations:
                if implementation.function != function or implementation.tool != tool:
                    continue
                try:
                    return implementation.build(problem)
                except (common.Refused, common.Unavailable) as exc:
                    refusals.append(f"{implementation.label}: {exc}")
                    print(f"srcad.gradbench: {port.name}.{function}: {implementation.label} "
                          f"refused: {exc}", file=self.log)
        raise RuntimeError(f"no implementation of {port.name}.{function} builds:\n"
                           + "\n".join(refusals))


def run_timed(call, min_runs: int, min_seconds: float):
    """Run `call` at least min_runs times and until the runs take min_seconds in all; one
    "evaluate" timing per run and the last result."""
    timings, total, result = [], 0, None
    while len(timings) < max(min_runs, 1) or total < min_seconds * 1e9:
        start = time.perf_counter_ns()
        result = call()
        elapsed = time.perf_counter_ns() - start
        timings.append({"name": "evaluate", "nanoseconds": elapsed})
        total += elapsed
    return timings, result


def serve(tool: Tool, stdin: TextIO, stdout: TextIO) -> None:
    """Answer every line of stdin until it ends."""
    for line in stdin:
        if not line.strip():
            continue
        message = json.loads(line)
        print(json.dumps(tool.respond(message)), file=stdout, flush=True)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(prog="python -m srcad.gradbench",
                                     description="srcad as a GradBench tool")
    parser.add_argument("--backend", choices=BACKENDS, default="numba")
    parser.add_argument("--ports", default=None,
                        help="directory holding benchmarks/gradbench (default: this checkout)")
    parser.add_argument("--multithreaded", action="store_true",
                        help="accepted as GradBench's tools accept it; srcad runs one thread")
    args = parser.parse_args(argv)
    # the ports and the libraries they import must not write to stdout: it carries responses
    stdout, sys.stdout = sys.stdout, sys.stderr
    try:
        tool = Tool(load_ports(args.ports), args.backend)
        serve(tool, sys.stdin, stdout)
    finally:
        sys.stdout = stdout


if __name__ == "__main__":
    main()
