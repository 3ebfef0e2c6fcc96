"""One conversation with a GradBench eval: the messages' meaning.

Guarantees: every message gets exactly one response carrying its "id" (a kind other than
"define" and "evaluate" gets the "id" alone); "define" succeeds only for an eval whose every
function has an implementation the tool can run (a srcad derivative or the plain primal);
"evaluate" prepares once per function and input (parse, transform, compilation and one
untimed warm-up run, reported as one "prepare" timing) and reuses the preparation for a later
message with the same input, then times only the runs themselves; a failure is a response
with "success": false and the error, never a dead tool.
"""

from __future__ import annotations

import json
import sys
import time
import traceback
from collections import OrderedDict
from typing import Any, TextIO

from srcad._version import __version__
from srcad.gradbench import hello
from srcad.gradbench.protocol import run_timed

BACKENDS = ("numba", "python")
RUNS_FIELDS = ("min_runs", "min_seconds")
KEPT_INPUTS = 4  # preparations kept (each holds compiled code and work arrays of one input)


class Tool:
    """The state of one conversation with an eval: the ports, the backend, the preparations."""

    def __init__(self, common, backend: str = "numba", log: TextIO = sys.stderr,
                 settings: dict | None = None):
        if backend not in BACKENDS:
            raise ValueError(f"backend must be one of {BACKENDS}, not {backend!r}")
        self.common = common
        self.backend = backend
        self.log = log
        # the process's memory settings (srcad.gradbench.memory), reported in `start`
        self.settings = dict(settings or {"freed_memory": "system"})
        self.evals = common.by_name()
        self.prepared: OrderedDict[tuple, Any] = OrderedDict()

    def respond(self, message: dict) -> dict:
        kind = message.get("kind")
        response: dict[str, Any] = {"id": message["id"]}
        if kind == "start":
            response["tool"] = "srcad"
            response["config"] = {"backend": self.backend, "version": __version__,
                                  **self.settings}
        elif kind == "define":
            response.update(self.define(message["module"]))
        elif kind == "evaluate":
            response.update(self.evaluate(message))
        return response

    def functions(self, module: str) -> tuple[str, ...]:
        if module == "hello":
            return hello.FUNCTIONS
        return tuple(self.evals[module].to_json)

    def define(self, module: str) -> dict:
        if module != "hello" and module not in self.evals:
            return {"success": False,
                    "error": f"srcad has no port of the {module!r} eval "
                             f"(ports: hello, {', '.join(sorted(self.evals))})"}
        missing = [f for f in self.functions(module) if not self.candidates(module, f)]
        if missing:
            return {"success": False,
                    "error": f"srcad has no implementation of {module}'s "
                             f"{', '.join(missing)}"}
        return {"success": True}

    def candidates(self, module: str, function: str) -> list:
        """The implementations to try for `function`, best first: srcad on this backend, then
        srcad on the python backend; the plain primal for a function srcad does not compute.
        Each backend's first form (`ports.common.FIRST_FORM`: the loops on numba, the
        vectorized NumPy form on python where the port has one) before the port's others."""
        if module == "hello":
            return [function] if function in hello.FUNCTIONS else []
        port, first = self.evals[module], self.common.first_form_first
        tools = [f"srcad-{self.backend}"] + (["srcad-python"] if self.backend != "python"
                                             else [])
        found = [i for tool in tools for i in first(
            [i for i in port.implementations if i.function == function and i.tool == tool],
            tool.removeprefix("srcad-"))]
        return found or first([i for i in port.implementations
                               if i.function == function and i.tool == "primal"], self.backend)

    def evaluate(self, message: dict) -> dict:
        try:
            module, function, data = message["module"], message["function"], message["input"]
            if module != "hello" and module not in self.evals:
                raise KeyError(f"srcad has no port of the {module!r} eval")
            if function not in self.functions(module):
                raise KeyError(f"the {module} eval has no function {function!r}")
            runs = data if isinstance(data, dict) else {}
            start = time.perf_counter_ns()
            call, to_output = self.prepare(module, function, data)
            prepare = time.perf_counter_ns() - start
            timings, result = run_timed(call, int(runs.get("min_runs", 1)),
                                        float(runs.get("min_seconds", 0.0)))
            return {"success": True, "output": to_output(result),
                    "timings": [{"name": "prepare", "nanoseconds": prepare}] + timings}
        except Exception as exc:  # the eval learns of every failure from the response
            return {"success": False, "error": "".join(traceback.format_exception(exc))}

    def prepare(self, module: str, function: str, data):
        """(call, to_output) for `function` at `data`, built once per input and kept."""
        input_only = ({k: v for k, v in data.items() if k not in RUNS_FIELDS}
                      if isinstance(data, dict) else data)
        key = (module, function, json.dumps(input_only, sort_keys=True))
        if key in self.prepared:
            self.prepared.move_to_end(key)
            return self.prepared[key]
        if module == "hello":
            prepared = (hello.build(function, self.backend, data), float)
        else:
            prepared = self.build(self.evals[module], function, input_only)
        self.prepared[key] = prepared
        while len(self.prepared) > KEPT_INPUTS:
            self.prepared.popitem(last=False)
        return prepared

    def build(self, port, function: str, data: dict):
        common = self.common
        problem = port.parse(data)
        refusals = []
        for implementation in self.candidates(port.name, function):
            if implementation.tool == "primal" and self.backend == "numba":
                call = self.numba_primal(port, implementation, problem)
                if call is not None:
                    return call, lambda result: port.output(function, result, problem)
            try:
                call = implementation.build(problem)
            except (common.Refused, common.Unavailable) as exc:
                refusals.append(f"{implementation.label}: {exc}")
                self.note(port, function, f"{implementation.label} refused: {exc}")
                continue
            if implementation.tool != "primal":
                call()  # compiles what compiles lazily: never inside a timed run
            return call, lambda result: port.output(function, result, problem)
        raise RuntimeError(f"no implementation of {port.name}.{function} builds:\n"
                           + "\n".join(refusals))

    def numba_primal(self, port, implementation, problem):
        """The primal compiled by numba and run once (the compilation), or None where numba
        does not compile it (the tool then runs it on CPython, and says so on stderr)."""
        if implementation.numba_build is None:
            self.note(port, implementation.function, "the primal runs on CPython (no numba "
                      "form: it calls srcad or what numba does not compile)")
            return None
        try:
            call = implementation.numba_build(problem)
            call()
            return call
        except Exception as exc:  # numba's typing and lowering errors have no common base
            self.note(port, implementation.function, "numba does not compile the primal; "
                      f"it runs on CPython: {type(exc).__name__}: {str(exc)[:300]}")
            return None

    def note(self, port, function: str, text: str) -> None:
        print(f"srcad.gradbench: {port.name}.{function}: {text}", file=self.log)
