"""The GradBench ports (srcad/gradbench/ports) are right at their small sizes: each reference
derivative agrees with central differences, every plain primal form agrees with the reference
value, and srcad's derivative of every form agrees with the reference on both backends, or is
refused with the message the port records (a form srcad starts accepting fails here, so the
port is updated). On the numba backend only the form the GradBench tool uses is compiled;
benchmarks/gradbench/run.py checks every form before timing it. Nothing here times anything."""

import pytest

import srcad.gradbench

common = srcad.gradbench.load_ports()
EVALS = {e.name: e for e in common.discover()}
_problems = {}


def problem(name):
    """One parsed small input per eval, shared by the tests (the ports never write into it)."""
    if name not in _problems:
        port = EVALS[name]
        _problems[name] = port.parse(port.input("small"))
    return _problems[name]


def build_or_skip(implementation, p):
    try:
        return implementation.build(p)
    except common.Unavailable as exc:  # a reference tool (JAX) that is not installed
        pytest.skip(str(exc))


_references = {}


def reference(port, function, p):
    """The reference value of `function` at the eval's small input, computed once per process
    and shared by the tests and forms that compare with it (a JAX reference derivative is
    traced and compiled by XLA anew at each call: ~10 s for ht). Nothing writes into it."""
    key = (port.name, function)
    if key not in _references:
        try:
            _references[key] = port.reference[function](p)
        except common.Unavailable as exc:
            pytest.skip(str(exc))
    return _references[key]


def check_implementations(name, tool, first_only=False):
    """Every `tool` implementation of the eval agrees with the reference or is refused as the
    port expects; with first_only, only the first accepted one (the one the GradBench tool
    uses) is run: numba compilation is the test suite's main cost."""
    port, p = EVALS[name], problem(name)
    implementations = [i for i in port.implementations if i.tool == tool]
    assert implementations, f"{name} has no {tool} implementation"
    ran = 0
    for implementation in implementations:
        if implementation.expect_refusal is not None:
            with pytest.raises(common.Refused, match=implementation.expect_refusal):
                implementation.build(p)
            continue
        if first_only and ran:
            continue
        ran += 1
        result = build_or_skip(implementation, p)()
        expected = reference(port, implementation.function, p)
        error = port.error(implementation.function, result, expected)
        assert error <= port.rtol, f"{name} {implementation.label}: error {error:.2e}"


def test_every_port_names_its_functions_and_sizes():
    assert {"gmm", "lse", "llsq", "ode", "kmeans", "lstm", "det"} <= set(EVALS)
    for port in EVALS.values():
        # particle and saddle have four derivative functions (ff, fr, rf, rr), the others one
        assert {port.primal, port.derivative} <= set(port.to_json) == set(port.reference)
        assert {"small", "quick", "default"} <= set(port.sizes)


# each port is a whole benchmark program (JAX references, srcad on every form): `make test` runs
# lse, `make test-all` every port
SMOKE = [pytest.param(name, marks=() if name == "lse" else pytest.mark.slow)
         for name in sorted(EVALS)]


@pytest.mark.parametrize("name", SMOKE)
def test_reference_derivative_agrees_with_central_differences(name):
    try:
        error = EVALS[name].fd_check(problem(name))
    except common.Unavailable as exc:
        pytest.skip(str(exc))
    assert error < 1e-6


@pytest.mark.parametrize("name", sorted(EVALS))
def test_plain_primal_forms_agree_with_reference(name):
    check_implementations(name, "primal")


@pytest.mark.parametrize("name", SMOKE)
def test_srcad_python_backend_agrees_with_reference(name):
    check_implementations(name, "srcad-python")


@pytest.mark.parametrize("name", SMOKE)
def test_srcad_numba_backend_agrees_with_reference(name):
    pytest.importorskip("numba")
    check_implementations(name, "srcad-numba", first_only=True)


# the JAX column of the benchmark page: where a reference is derived by hand (kmeans, llsq,
# lse), JAX's derivative is checked against it in `make test`; the others are JAX's references
JAX = [pytest.param(name, marks=() if name in ("kmeans", "llsq", "lse") else pytest.mark.slow)
       for name in sorted(EVALS)
       if any(i.tool == "jax" for i in EVALS[name].implementations)]


@pytest.mark.parametrize("name", JAX)
def test_jax_agrees_with_reference(name):
    check_implementations(name, "jax")


def test_a_wrong_derivative_is_caught():
    # the comparison the tests rest on: a gradient off by 1e-6 in one entry fails
    port, p = EVALS["lse"], problem("lse")
    good = port.reference["gradient"](p)
    bad = good.copy()
    bad[3] += 1e-6
    assert port.check("gradient", good, good)
    assert not port.check("gradient", bad, good)
    assert not port.check("gradient", good[:-1], good)
