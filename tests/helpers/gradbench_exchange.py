"""srcad's GradBench tool driven as GradBench's evals drive it: one message in, the strict-JSON
line it answers, read back (shared by the protocol and layout tests)."""

import io
import json

import pytest

import srcad.gradbench

common = srcad.gradbench.load_ports()  # the ports shipped with srcad

RUNS = {"min_runs": 1, "min_seconds": 0}


def tool(backend="python"):
    return srcad.gradbench.Tool(common, backend, log=io.StringIO())


def exchange(t, message):
    """The tool's response to `message` as the eval reads it: one strict-JSON line."""
    line = srcad.gradbench.dumps(t.respond(json.loads(json.dumps(message))))
    assert "\n" not in line
    return json.loads(line, parse_constant=lambda name: pytest.fail(f"{name} is not JSON"))


def evaluate(t, module, function, data, id=2):
    response = exchange(t, {"id": id, "kind": "evaluate", "module": module,
                            "function": function, "input": data})
    assert response["success"] is True, response.get("error")
    assert response["id"] == id
    return response
