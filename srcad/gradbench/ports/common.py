"""The interface every GradBench port module shares, and the helpers they all use.

A port module (`gmm.py`, `lse.py`, ...) defines one module-level `EVAL = Eval(...)`. Everything
that consumes ports (the GradBench tool adapter `srcad.gradbench`, `run.py`, the tests) goes
through `discover()` and this interface only, so adding a module adds it everywhere.

Guarantees: `Eval.check` compares a result with the reference entry by entry (relative to the
largest reference entry) and never passes a result of the wrong shape; `discover` returns the
ports sorted by name and skips no module silently (an import error propagates).
"""

from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

import numpy as np

import srcad
from srcad.gradbench.ports.compiled_primals import numba_compiled, run_once, srcad_primal

# The kinds of implementation a port may offer. "srcad-python" and "srcad-numba" are srcad's
# derivative on the python and numba backends; "jax" and "autograd" the same derivative by those
# tools (skipped where not installed); "primal" the plain-Python function itself (no derivative).
TOOLS = ("primal", "srcad-python", "srcad-numba", "jax", "autograd")

# The form srcad's GradBench tool reaches for first on each backend, where a port has several:
# numba compiles the C++-shaped loops to machine code, while CPython runs a Python loop one to
# two orders of magnitude slower than NumPy's whole-array calls, so on the python backend the
# tool (its derivatives and the primal it times) takes the vectorized NumPy form where the port
# has one, as a user of NumPy would write it, and the loops otherwise.
FIRST_FORM = {"numba": "loops", "python": "vectorized"}


def first_form_first(implementations, backend: str) -> list:
    """`implementations` with those of `backend`'s first form (FIRST_FORM; the loops for any
    other tool) ahead of the rest, each group in the port's order.

    >>> loops = Implementation("f", "primal", "loops", None)
    >>> vectorized = Implementation("f", "primal", "vectorized", None)
    >>> [i.form for i in first_form_first([loops, vectorized], "python")]
    ['vectorized', 'loops']
    >>> [i.form for i in first_form_first([loops, vectorized], "numba")]
    ['loops', 'vectorized']
    """
    first = FIRST_FORM.get(backend, "loops")
    return sorted(implementations, key=lambda i: i.form != first)


class Unavailable(Exception):
    """An implementation that cannot run here (a tool not installed); the message says why."""


class Refused(Exception):
    """srcad refused the port; the message is srcad's own (file, line, construct, hint)."""


@dataclass(frozen=True)
class Implementation:
    """One way to compute one GradBench function of an eval.

    `build(problem)` does every one-time step (transform, compile, allocate) and returns a
    zero-argument callable: the part that is timed. The callable returns the result in the
    eval's result form (a float, an array, or a tuple of arrays), as `Eval.reference` does.
    `build` raises `Unavailable` when the tool is missing and `Refused` when srcad refuses.
    `expect_refusal`, for a natural form srcad refuses today, is a part of the message srcad
    refuses it with: the tests check the refusal is that one (and fail once srcad accepts it).
    """

    function: str  # GradBench function name: "objective", "jacobian", "gradient", ...
    tool: str  # one of TOOLS
    form: str  # which primal it differentiates: "loops" (as the C++) or "vectorized" (NumPy)
    build: Callable[[Any], Callable[[], Any]]
    expect_refusal: str | None = None
    # for a "primal": the same build with the function compiled by numba (`numba_compiled`);
    # srcad's GradBench tool uses it on the numba backend
    numba_build: Callable[[Any], Callable[[], Any]] | None = None

    @property
    def label(self) -> str:
        return f"{self.tool} ({self.form})"


@dataclass(frozen=True)
class Eval:
    """A GradBench eval ported to Python.

    name: the GradBench module name ("gmm").
    primal, derivative: the GradBench names of the value function and the derivative function
        ("objective", "jacobian"); the derivative is what srcad computes.
    sizes: named generator arguments: "small" (tests, under a second on every backend), "quick"
        (a fast benchmark run), "default" (one of the eval's own default sizes).
    generate: generate(**sizes[name]) -> the GradBench input (JSON-ready, no min_runs/min_seconds),
        following the eval's own generator.
    parse: GradBench input -> problem (whatever the module's implementations take: NumPy arrays).
    reference: function name -> (problem -> result), independent of srcad (JAX or hand-derived
        NumPy), checked against central differences in the tests.
    to_json: function name -> (result -> GradBench output).
    to_json_with_problem: function name -> ((result, problem) -> GradBench output), for an
        output that carries more than the result (ba's column indices); it takes precedence.
    implementations: every implementation the module offers.
    fd_check: problem -> the largest error of the reference derivative against central
        differences (relative to its largest entry); the tests require it small at size "small".
    rtol: agreement required against the reference, relative to the largest reference entry.
    notes: refusals and rewrites worth reporting (shown on the results page).
    """

    name: str
    primal: str
    derivative: str
    sizes: Mapping[str, Mapping[str, Any]]
    generate: Callable[..., dict]
    parse: Callable[[dict], Any]
    reference: Mapping[str, Callable[[Any], Any]]
    to_json: Mapping[str, Callable[[Any], Any]]
    implementations: tuple[Implementation, ...]
    fd_check: Callable[[Any], float]
    rtol: float = 1e-8
    notes: tuple[str, ...] = field(default=())
    to_json_with_problem: Mapping[str, Callable[[Any, Any], Any]] = field(default_factory=dict)

    def output(self, function: str, result, problem):
        """The GradBench output of `function`'s `result` computed at `problem`."""
        if function in self.to_json_with_problem:
            return self.to_json_with_problem[function](result, problem)
        return self.to_json[function](result)

    def input(self, size: str = "small") -> dict:
        return self.generate(**self.sizes[size])

    def find(self, function: str, tool: str, form: str | None = None) -> Implementation:
        """The implementation of `function` by `tool` in `form`, else the one srcad's GradBench
        tool uses first (srcad's backends: FIRST_FORM; any other tool: the loop form)."""
        found = [i for i in self.implementations if i.function == function and i.tool == tool]
        if form is not None:
            found = [i for i in found if i.form == form]
        if not found:
            raise Unavailable(f"{self.name}.{function}: no {tool} implementation")
        return first_form_first(found, tool.removeprefix("srcad-"))[0]

    def error(self, function: str, result, expected) -> float:
        """Largest deviation from `expected`, relative to its largest entry (inf on a shape
        mismatch)."""
        got, want = flatten(result), flatten(expected)
        if got.shape != want.shape:
            return float("inf")
        scale = max(float(np.max(np.abs(want))) if want.size else 0.0, 1e-300)
        return float(np.max(np.abs(got - want))) / scale if want.size else 0.0

    def check(self, function: str, result, expected) -> bool:
        return self.error(function, result, expected) <= self.rtol


def flatten(result) -> np.ndarray:
    """A result (float, array, tuple or list of them) as one flat float vector."""
    if isinstance(result, (tuple, list)):
        parts = [flatten(r) for r in result]
        return np.concatenate(parts) if parts else np.zeros(0)
    return np.asarray(result, dtype=float).ravel()


def central_differences(f: Callable[[], float], arrays, eps: float = 1e-6) -> tuple:
    """The gradient of `f()` with respect to every entry of `arrays`, by central differences:
    each entry is perturbed in place and restored."""
    grads = []
    for a in arrays:
        g = np.zeros_like(a)
        flat, gflat = a.reshape(-1), g.reshape(-1)  # views: a is perturbed in place
        for i in range(flat.size):
            saved = flat[i]
            flat[i] = saved + eps
            up = f()
            flat[i] = saved - eps
            down = f()
            flat[i] = saved
            gflat[i] = (up - down) / (2 * eps)
        grads.append(g)
    return tuple(grads)


def gradient_error(f: Callable[[], float], arrays, derivative, eps: float = 1e-6) -> float:
    """Largest deviation of `derivative` from the central differences of f with respect to
    `arrays`, relative to the largest entry of the differences."""
    want = flatten(central_differences(f, arrays, eps))
    got = flatten(derivative)
    if got.shape != want.shape:
        return float("inf")
    return float(np.max(np.abs(got - want)) / max(np.max(np.abs(want)), 1e-300))


def discover() -> list[Eval]:
    """Every port module of this package that defines `EVAL`, sorted by eval name."""
    found = []
    package = importlib.import_module(__package__)
    for info in pkgutil.iter_modules(package.__path__):
        if info.name in ("common", "run", "timing") or info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__package__}.{info.name}")
        if isinstance(getattr(module, "EVAL", None), Eval):
            found.append(module.EVAL)
    return sorted(found, key=lambda e: e.name)


def by_name() -> dict[str, Eval]:
    return {e.name: e for e in discover()}


# ----------------------------------------------------------------------------------------------
# Building blocks the port modules share.


def srcad_gradient(function, arrays: tuple, constants: tuple, backend: str, order=None):
    """A zero-argument callable: srcad's reverse-mode gradient of `function` with respect to
    each array of `arrays` (a tuple of arrays shaped like them), with `constants` passed as is.

    `order` gives each call's argument list as a tuple of ("x", i) / ("c", i) markers; the
    default is every array first, then every constant. Compiles once, here; the callable
    zeroes the shadows and runs the generated code.
    """
    shadows = tuple(np.zeros_like(a) for a in arrays)
    if order is None:
        order = tuple(("x", i) for i in range(len(arrays))) + tuple(
            ("c", i) for i in range(len(constants)))

    def arguments():
        return [srcad.Duplicated(arrays[i], shadows[i]) if kind == "x" else constants[i]
                for kind, i in order]

    try:
        srcad.autodiff(srcad.Reverse, function, *arguments(), backend=backend)
    except srcad.SrcadError as exc:
        raise Refused(f"{type(exc).__name__}: {exc}") from exc

    def call():
        for s in shadows:
            s.fill(0.0)
        srcad.autodiff(srcad.Reverse, function, *arguments(), backend=backend)
        return shadows[0] if len(shadows) == 1 else shadows

    return call


def jax_or_unavailable():
    try:
        import jax

        jax.config.update("jax_enable_x64", True)
        return jax
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise Unavailable("jax is not installed") from exc


def autograd_or_unavailable():
    try:
        import autograd

        return autograd
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise Unavailable("autograd is not installed") from exc


# What the ports of nested derivatives (particle, saddle) report about how srcad runs them.
NESTED_GRADIENT_NOTES = (
    "The inner mode (the second letter) is recorded in the source; srcad computes every "
    "nested gradient as reverse code and its derivative as forward over reverse, so "
    "ff = fr and rf = rr in what runs.",
    "srcad-numba: the nested gradient and its derivative (reverse over forward) run as numba "
    "kernels compiled into the outer derivative's code.",
    "srcad: the solver's values of the function (whose body calls srcad.grad) run srcad's "
    "generated primal code on the same backend (`srcad_primal`), the inner gradient compiled "
    "into it, as JAX's jitted function runs.",
)


def primal_implementation(function_name: str, form: str, function, arguments) -> Implementation:
    """The plain-Python `function` itself, timed; `arguments(problem)` is its argument tuple.
    Its `numba_build` runs the same function on srcad's numba backend (`srcad_primal`: the
    primal statements of srcad's generated code, with srcad's vectorizable `exp` and its
    loop counters indexing without wraparound), compiled and run once at the build; where
    srcad refuses the function, the function compiled by numba itself (`numba_compiled`)."""

    def build(problem, compiled=None):
        args = arguments(problem)
        run = compiled or function
        return lambda: run(*args)

    def numba_build(problem):
        primal = srcad_primal(function, "numba")
        try:
            return build(problem, run_once(primal, arguments(problem)))
        except srcad.SrcadError:
            return build(problem, numba_compiled(function))

    return Implementation(function_name, "primal", form, build, numba_build=numba_build)


def srcad_implementation(function_name: str, form: str, function, backend: str, arguments,
                         refused: str | None = None) -> Implementation:
    """srcad's reverse-mode gradient of `function` on `backend` (`srcad_gradient`);
    `arguments(problem)` is (the arrays differentiated, the constants)."""

    def build(problem):
        arrays, constants = arguments(problem)
        return srcad_gradient(function, arrays, constants, backend)

    return Implementation(function_name, f"srcad-{backend}", form, build, refused)


def form_implementations(primal: str, derivative: str, forms: dict, arguments):
    """One builder of a port's implementations of its own forms, taking the mode:
    `build("primal", form)` runs the form's function as is (`primal_implementation`),
    `build("python" | "numba", form, refused=None)` is srcad's derivative of it on that
    backend (`srcad_implementation`; `refused`: why the backend is expected to refuse it).
    `forms`: form -> its function, or (the function run as the primal, the one srcad
    differentiates); `arguments(problem, form)`: (the arrays differentiated, the constants),
    which the primal takes in that order."""

    def build(mode, form, refused=None):
        functions = forms[form] if isinstance(forms[form], tuple) else (forms[form],) * 2
        if mode == "primal":
            return primal_implementation(primal, form, functions[0], lambda p: tuple(
                a for part in arguments(p, form) for a in part))
        return srcad_implementation(derivative, form, functions[1], mode,
                                    lambda p: arguments(p, form), refused)

    return build


def jax_timed(jax, function, array) -> Callable[[], np.ndarray]:
    """A zero-argument callable running the jitted `function` on `array` (put on the device
    here) and returning a NumPy array; the one call here compiles it, outside the timing."""
    on_device = jax.device_put(array)
    function(on_device).block_until_ready()
    return lambda: np.asarray(function(on_device).block_until_ready())


def jax_references(make_functions):
    """(reference objective, reference gradient, JAX build) of a port whose references are
    JAX's: `make_functions(problem)` -> (jax, jitted objective, jitted gradient with respect to
    every array of `problem.independent`), made once per problem and kept on it."""

    def functions(problem):
        if getattr(problem, "jax_functions", None) is None:
            problem.jax_functions = make_functions(problem)
        return problem.jax_functions

    def reference_objective(problem):
        _, objective, _ = functions(problem)
        return float(objective(*problem.independent))

    def reference_gradient(problem):
        _, _, gradient = functions(problem)
        return tuple(np.asarray(a) for a in gradient(*problem.independent))

    def build(problem):
        jax, _, gradient = functions(problem)
        args = tuple(jax.device_put(a) for a in problem.independent)
        jax.block_until_ready(gradient(*args))
        return lambda: tuple(np.asarray(a) for a in jax.block_until_ready(gradient(*args)))

    return reference_objective, reference_gradient, build
