"""srcad's GradBench tool follows GradBench's protocol: every message kind, `hello`, strict
JSON, `define`, one preparation per input outside the timed runs, every function the nested
evals send, the primal compiled on the numba backend, the ports shipped with srcad. Inputs are
written from GradBench's specs (test_gradbench_layouts.py has the per-eval layouts)."""

import io
import math

import numpy as np
import pytest

import srcad.gradbench
from srcad.gradbench.ports import compiled_primals
from tests.helpers.gradbench_exchange import RUNS, common, evaluate, exchange, tool


# -- the protocol ------------------------------------------------------------------------------
def test_hello_is_answered_as_the_hello_eval_drives_it():
    # evals/hello: a bare number as input (no min_runs), square then double, four times
    t = tool()
    assert exchange(t, {"id": 0, "kind": "start", "eval": "hello"})["id"] == 0
    assert exchange(t, {"id": 1, "kind": "define", "module": "hello"}) == {"id": 1,
                                                                            "success": True}
    x, id = 1.0, 2
    for _ in range(4):
        y = evaluate(t, "hello", "square", x, id)
        assert y["output"] == x * x and [s["name"] for s in y["timings"]].count("evaluate") == 1
        assert exchange(t, {"id": id + 1, "kind": "analysis", "of": id, "valid": True}) == {
            "id": id + 1}
        x = evaluate(t, "hello", "double", y["output"], id + 2)["output"]
        assert x == 2 * y["output"]
        id += 4
    assert x == 32768.0  # 1 -> 1 -> 2 -> 4 -> 8 -> 64 -> 128 -> 16384 -> 32768


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_a_non_finite_output_is_null_and_the_line_is_strict_json():
    t = tool()
    response = evaluate(t, "lse", "primal", {"x": [1e308, 1e308, 1e308]} | RUNS)
    # lse of three 1e308 is 1e308 + log 3, finite; of inf entries, inf: written as null
    assert response["output"] == pytest.approx(1e308)
    response = evaluate(t, "lse", "primal", {"x": [math.inf, 0.0]} | RUNS)
    assert response["output"] is None
    assert "Infinity" not in srcad.gradbench.dumps({"id": 0, "output": [math.nan, -math.inf]})


def test_an_unknown_kind_gets_its_id_and_define_refuses_what_it_cannot_run():
    t = tool()
    assert exchange(t, {"id": 5, "kind": "end"}) == {"id": 5}
    response = exchange(t, {"id": 6, "kind": "define", "module": "no_such_eval"})
    assert response["success"] is False and "no_such_eval" in response["error"]
    for name in sorted(t.evals):  # every port's every function has an implementation
        assert exchange(t, {"id": 7, "kind": "define", "module": name})["success"] is True


def test_preparation_is_paid_once_per_input_and_never_timed():
    t = tool()
    builds = []
    build = t.build
    t.build = lambda *args: builds.append(args[1]) or build(*args)
    data = {"x": [0.5, -1.0, 2.0]}
    first = evaluate(t, "lse", "gradient", data | {"min_runs": 2, "min_seconds": 0})
    again = evaluate(t, "lse", "gradient", data | {"min_runs": 3, "min_seconds": 0})
    assert [s["name"] for s in first["timings"]] == ["prepare", "evaluate", "evaluate"]
    assert [s["name"] for s in again["timings"]] == ["prepare", "evaluate", "evaluate",
                                                     "evaluate"]
    # the second message reuses the first one's preparation (no transform, no compile)
    assert builds == ["gradient"]
    assert len(t.prepared) == 1
    e = np.exp(np.array(data["x"]) - 2.0)
    np.testing.assert_allclose(again["output"], e / e.sum(), rtol=1e-12)


# -- particle and saddle: every function the evals send ---------------------------------------
@pytest.mark.slow  # nested solves, ~1 s each on the python backend
@pytest.mark.parametrize("function", ["rr", "ff", "fr", "rf"])
def test_particle_answers_each_function_it_is_sent(function):
    # evals/particle/run.py: {"w": 0.0}; its expected output 0.2071918746486116 (tolerance
    # 1e-4 of compare_json_objects); here from w = 0.2, near the optimum, to stay quick
    response = evaluate(tool(), "particle", function, {"w": 0.2} | RUNS)
    assert abs(response["output"] - 0.2071918746486116) < 1e-4


@pytest.mark.slow
@pytest.mark.parametrize("function", ["ff", "rf"])
def test_saddle_answers_each_function_it_is_sent(function):
    response = evaluate(tool(), "saddle", function, {"start": [0.3, 0.3]} | RUNS)
    output = response["output"]
    assert isinstance(output, list) and len(output) == 4
    assert all(isinstance(v, float) for v in output)


def test_every_particle_and_saddle_function_is_srcad_not_the_primal():
    t = tool()
    for module, functions in (("particle", ("ff", "fr", "rf", "rr")),
                              ("saddle", ("ff", "fr", "rf", "rr"))):
        for function in functions:
            tools = {i.tool for i in t.candidates(module, function)}
            assert tools and tools <= {"srcad-python"}, (module, function, tools)


# -- the numba backend: the primal compiled too, compilation outside the timed runs ------------
@pytest.mark.slow  # numba compilations
def test_numba_backend_compiles_the_primal_before_the_timed_runs():
    pytest.importorskip("numba")
    from numba.core import event

    class Compilations(event.Listener):
        """Which phase ("prepare" or "runs") each numba compilation or cache load fell in."""
        phase = "runs"
        seen: list = []

        def on_start(self, e):
            self.seen.append(self.phase)

        def on_end(self, e):
            pass

    compilations = Compilations()
    log = io.StringIO()
    t = srcad.gradbench.Tool(common, "numba", log=log)
    prepare = t.prepare

    def phased_prepare(module, function, data):
        compilations.phase = "prepare"
        try:
            return prepare(module, function, data)
        finally:
            compilations.phase = "runs"

    t.prepare = phased_prepare
    data = {"x": [0.5, -1.0, 2.0, 0.25]} | {"min_runs": 3, "min_seconds": 0}
    prepared = t.candidates("lse", "primal")
    assert prepared and prepared[0].numba_build is not None
    for function in ("primal", "gradient"):
        compilations.seen = []
        # numba takes its compiler lock to compile a function or to load it from its cache
        with event.install_listener("numba:compiler_lock", compilations):
            response = evaluate(t, "lse", function, data)
        # the primal and the gradient may have been compiled by a test before this one on
        # the same worker (the tool keeps one compiled primal per function, srcad its
        # derivative code, in the process): then nothing is compiled at all; either way
        # nothing is compiled or loaded inside the timed runs
        assert "runs" not in compilations.seen, function
        if function == "primal":
            x = np.array(data["x"])
            assert response["output"] == pytest.approx(np.log(np.exp(x).sum()), rel=1e-12)
            call, _ = next(iter(t.prepared.values()))
            # the timed primal is srcad's generated primal on numba (numba's own jit of the
            # port only where srcad refuses the function), never the port run by CPython,
            # called directly (compiled_primals.prepared_primal)
            run = next(cell.cell_contents for cell in call.__closure__
                       if callable(cell.cell_contents))
            assert run.__qualname__ == "_direct_call.<locals>.call", run
    assert "CPython" not in log.getvalue()


@pytest.mark.slow
def test_numba_compiled_compiles_the_helpers_a_primal_calls():
    pytest.importorskip("numba")
    from srcad.gradbench.ports import ba

    problem = ba.parse({"n": 2, "m": 3, "p": 10, "x": [0.3, -0.4, 1.2], "w": 0.8,
                        "cam": [0.02, -0.01, 0.03, 0.1, -0.2, -5.0, 410.0, 1.5, 1.2, 0.01, -0.002],
                        "feat": [0.5, -0.25]})
    compiled = compiled_primals.numba_compiled(ba.objective)
    np.testing.assert_allclose(compiled(*problem), ba.objective(*problem), rtol=1e-14)
    assert ba.ba_objective.__class__.__name__ == "function"  # the port module is unchanged


def test_the_ports_ship_with_srcad():
    # the tool starts from an installed srcad: no checkout, no --ports
    assert common.__name__ == "srcad.gradbench.ports.common"
    assert set(common.by_name()) >= {"ba", "det", "gmm", "ht", "kmeans", "llsq", "lse", "lstm",
                                     "ode", "particle", "saddle"}


def test_define_fails_for_an_eval_with_a_function_the_tool_cannot_run():
    # an eval whose "g" has only a JAX implementation: every "g" request would fail
    port = common.Eval(
        name="partial", primal="f", derivative="g", sizes={}, generate=dict,
        parse=lambda data: data, reference={}, to_json={"f": float, "g": float},
        implementations=(common.Implementation("f", "primal", "loops", lambda p: lambda: 1.0),
                         common.Implementation("g", "jax", "vectorized",
                                               lambda p: lambda: 2.0)),
        fd_check=lambda problem: 0.0)

    class Ports:
        Refused, Unavailable = common.Refused, common.Unavailable
        first_form_first = staticmethod(common.first_form_first)

        @staticmethod
        def by_name():
            return {"partial": port}

    t = srcad.gradbench.Tool(Ports, "python", log=io.StringIO())
    response = exchange(t, {"id": 1, "kind": "define", "module": "partial"})
    assert response["success"] is False and "partial's g" in response["error"]


def test_each_backend_tries_its_own_first_form():
    """numba: the C++-shaped loops first; python: the vectorized NumPy form where the port has
    one (for the derivative and for the primal it times), the loops where it has not."""
    numba, python = (srcad.gradbench.Tool(common, backend, log=io.StringIO())
                     for backend in ("numba", "python"))
    assert [(i.tool, i.form) for i in numba.candidates("gmm", "jacobian")][:2] == [
        ("srcad-numba", "loops"), ("srcad-numba", "loops-rows")]
    assert numba.candidates("gmm", "objective")[0].form == "loops"
    assert [i.form for i in python.candidates("gmm", "jacobian")][0] == "vectorized"
    assert python.candidates("gmm", "objective")[0].form == "vectorized"
    assert python.candidates("kmeans", "cost")[0].form == "vectorized"
    assert python.candidates("ht", "jacobian")[0].form == "loops"  # its only form
    # a numba derivative srcad refuses falls back to the python backend's own first form
    fallback = [i for i in numba.candidates("ode", "gradient") if i.tool == "srcad-python"]
    assert fallback[0].form == "vectorized"
