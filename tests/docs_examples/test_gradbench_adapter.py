"""`python -m srcad.gradbench` speaks GradBench's tool protocol: a stand-in for GradBench's eval
side sends the documented messages (start, define, evaluate with min_runs/min_seconds,
analysis) and checks every response's id and fields, and the outputs against the ports'
references at small sizes. One session runs as a real subprocess over stdin/stdout; the rest
drive the same `Tool` in-process (sharing compilations with the port tests)."""

import dataclasses
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import srcad.gradbench

ROOT = Path(__file__).resolve().parents[2]
common = srcad.gradbench.load_ports()
EVALS = common.by_name()


class StandInEval:
    """The eval side of a session, as GradBench's `SingleModuleValidatedEval` drives it:
    numbered messages, one response awaited per message, ids checked."""

    def __init__(self, exchange):
        self.exchange = exchange  # message dict -> response dict
        self.next_id = 0

    def send(self, message):
        message = {"id": self.next_id} | message
        response = self.exchange(json.loads(json.dumps(message)))  # JSON round trip
        assert response["id"] == self.next_id
        self.next_id += 1
        return response


def in_process(backend="python"):
    tool = srcad.gradbench.Tool(common, backend, log=io.StringIO())
    return StandInEval(lambda message: json.loads(json.dumps(tool.respond(message))))


def check_evaluate_response(response, min_runs):
    assert response["success"] is True, response.get("error")
    assert set(response) == {"id", "success", "output", "timings"}
    timings = response["timings"]
    assert [t["name"] for t in timings[:1]] == ["prepare"]
    runs = [t for t in timings if t["name"] == "evaluate"]
    assert len(runs) == len(timings) - 1 >= min_runs
    assert all(isinstance(t["nanoseconds"], int) and t["nanoseconds"] > 0 for t in timings)
    return runs


def expected_output(port, function, data):
    problem = port.parse(data)
    return port.reference[function](problem)


def test_a_whole_session_over_stdin_and_stdout():
    port = EVALS["lse"]
    data = port.input("small")
    messages = [
        {"id": 0, "kind": "start", "eval": "lse"},
        {"id": 1, "kind": "define", "module": "lse"},
        {"id": 2, "kind": "evaluate", "module": "lse", "function": "primal",
         "input": data | {"min_runs": 2, "min_seconds": 0}, "description": "small"},
        {"id": 3, "kind": "analysis", "of": 2, "valid": True},
        {"id": 4, "kind": "evaluate", "module": "lse", "function": "gradient",
         "input": data | {"min_runs": 3, "min_seconds": 0}},
        {"id": 5, "kind": "analysis", "of": 4, "valid": False, "error": "a stand-in error"},
    ]
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    completed = subprocess.run(
        [sys.executable, "-m", "srcad.gradbench", "--backend", "python"],
        input="".join(json.dumps(m) + "\n" for m in messages), capture_output=True, text=True,
        env=env, cwd=ROOT, timeout=120)
    assert completed.returncode == 0, completed.stderr
    responses = [json.loads(line) for line in completed.stdout.splitlines()]
    assert [r["id"] for r in responses] == [0, 1, 2, 3, 4, 5]
    assert responses[0]["tool"] == "srcad"
    assert responses[1] == {"id": 1, "success": True}
    check_evaluate_response(responses[2], 2)
    assert responses[2]["output"] == pytest.approx(
        expected_output(port, "primal", data), rel=1e-12)
    check_evaluate_response(responses[4], 3)
    np.testing.assert_allclose(responses[4]["output"],
                               expected_output(port, "gradient", data), rtol=1e-10)
    assert responses[3] == {"id": 3} and responses[5] == {"id": 5}


@pytest.mark.slow  # numba compilations or a bounded fuzz run: make test-all
@pytest.mark.parametrize("name", sorted(EVALS))
def test_every_eval_answers_both_functions_with_the_reference(name):
    port = EVALS[name]
    data = port.input("small")
    eval_side = in_process()
    assert eval_side.send({"kind": "start", "eval": name})["tool"] == "srcad"
    assert eval_side.send({"kind": "define", "module": name})["success"] is True
    for function in (port.primal, port.derivative):
        response = eval_side.send({"kind": "evaluate", "module": name, "function": function,
                                   "input": data | {"min_runs": 1, "min_seconds": 0}})
        check_evaluate_response(response, 1)
        # the JSON output against the reference result written the same way
        problem = port.parse(data)
        got = json_numbers(response["output"])
        want = json_numbers(json.loads(json.dumps(port.output(
            function, port.reference[function](problem), problem))))
        assert got.shape == want.shape
        assert np.max(np.abs(got - want)) <= port.rtol * max(np.max(np.abs(want)), 1e-300)


def json_numbers(output):
    """Every number of a JSON output (nested lists and objects, keys sorted), flat."""
    if isinstance(output, dict):
        parts = [json_numbers(output[k]) for k in sorted(output)]
        return np.concatenate(parts) if parts else np.zeros(0)
    return np.ravel(np.array(output, dtype=float))


def test_evaluate_repeats_until_min_seconds():
    port = EVALS["llsq"]
    response = in_process().send({"kind": "evaluate", "module": "llsq", "function": "gradient",
                                  "input": port.input("small") | {"min_runs": 1,
                                                                  "min_seconds": 0.05}})
    runs = check_evaluate_response(response, 1)
    assert sum(t["nanoseconds"] for t in runs) >= 0.05e9
    assert len(runs) > 1


def test_unknown_module_and_function_and_bad_input_fail_with_an_error():
    eval_side = in_process()
    response = eval_side.send({"kind": "define", "module": "no_such_eval"})
    assert response["success"] is False and "no_such_eval" in response["error"]
    data = EVALS["lse"].input("small") | {"min_runs": 1, "min_seconds": 0}
    response = eval_side.send({"kind": "evaluate", "module": "lse", "function": "hessian",
                               "input": data})
    assert response["success"] is False and "hessian" in response["error"]
    response = eval_side.send({"kind": "evaluate", "module": "lse", "function": "gradient",
                               "input": {"min_runs": 1, "min_seconds": 0}})
    assert response["success"] is False and "KeyError" in response["error"]
    # the session goes on
    assert eval_side.send({"kind": "define", "module": "lse"})["success"] is True


@pytest.mark.slow  # among the slowest of make test (numba or long runs): make test-all
def _lstm_jacobian(tool):
    """The tool's checked answer to lstm's jacobian at the small input."""
    data = EVALS["lstm"].input("small")
    response = tool.respond({"id": 7, "kind": "evaluate", "module": "lstm",
                             "function": "jacobian",
                             "input": data | {"min_runs": 1, "min_seconds": 0}})
    check_evaluate_response(response, 1)
    return response


def _lstm_expected():
    port = EVALS["lstm"]
    data = port.input("small")
    return port.output("jacobian", expected_output(port, "jacobian", data), port.parse(data))


def test_the_lstm_in_its_cpp_shaped_form_answers_itself():
    # lstm's C++-shaped form reads the layers' input through `layer_output`, which views
    # `output` or a hidden row depending on the iteration: srcad differentiates it (it once
    # refused it and the tool answered with the next form)
    log = io.StringIO()
    tool = srcad.gradbench.Tool(common, "python", log=log)
    response = _lstm_jacobian(tool)
    assert "refused" not in log.getvalue()
    np.testing.assert_allclose(response["output"], _lstm_expected(), rtol=1e-8)


@pytest.mark.slow  # among the slowest of make test (numba or long runs): make test-all
def test_a_refused_form_falls_back_to_the_next_and_says_so(monkeypatch):
    log = io.StringIO()
    tool = srcad.gradbench.Tool(common, "python", log=log)
    forms = tool.candidates("lstm", "jacobian")
    first = forms[0]

    def refusing(problem):
        raise common.Refused("refused here for the test")

    refused = dataclasses.replace(first, build=refusing)
    monkeypatch.setattr(tool, "candidates", lambda module, function: [refused] + forms[1:])
    response = _lstm_jacobian(tool)
    assert f"{first.label} refused: refused here for the test" in log.getvalue()
    np.testing.assert_allclose(response["output"], _lstm_expected(), rtol=1e-8)


def test_numba_backend_answers_a_gradient():
    pytest.importorskip("numba")
    port = EVALS["llsq"]
    data = port.input("small")
    response = in_process("numba").send(
        {"kind": "evaluate", "module": "llsq", "function": "gradient",
         "input": data | {"min_runs": 2, "min_seconds": 0}})
    check_evaluate_response(response, 2)
    np.testing.assert_allclose(response["output"], expected_output(port, "gradient", data),
                               rtol=1e-10)
