"""Problem 11: time to the first derivative, per problem and backend, with the cache cold and
warm, and jax.jit's first call beside it.

Each cell is a new Python process that imports srcad (or JAX) and builds the problem's inputs
(neither timed), then times the first derivative call: srcad's parse, transformation, compilation
and the call, or JAX's tracing, XLA compilation and the call. The answer is checked against the
problem's reference before the time counts. Both the wall-clock and the process's CPU time are
kept (on a shared machine the CPU time says what the work costs, the wall-clock what the user
waited). "cold": the first process with an empty cache folder ($SRCAD_CACHE_DIR, a new
temporary folder per problem and backend); "warm": a second process reading the folder the
first filled (the numba backend's compiled modules; the python backend keeps nothing on disk,
so its warm time is another first transformation). JAX's persistent compilation cache is off
by default: its first call is measured once, as cold.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile

from harness import ROOT, Suite

S11 = "11. time to the first derivative (cold and warm cache)"
START = "<!-- generated: first derivative (benchmarks/problem_first_derivative.py) -->"
END = "<!-- end: first derivative -->"
TOOLS = ("srcad python", "srcad numba", "jax.jit")

# Each problem: inputs (built before the clock starts), srcad's first derivative as a function
# of those inputs, JAX's (or None), and the check of either answer against the reference.
_PROBLEMS = {
    "mixture gradient, N=500, K=4": """
from mixture import make_problem, mixture_loglikelihood
import kernels
params, data = make_problem(500, 4)
reference = kernels.central_differences(mixture_loglikelihood, params, data, np.zeros_like(params))
def srcad_first(backend):
    return srcad.grad(mixture_loglikelihood, backend=backend)(params, data)
def jax_first():
    jax, grad = kernels.make_jax_mixture()
    return jax.block_until_ready(grad(params, data))
tolerance = 1e-5
""",
    "logistic regression gradient, N=10000, D=100": """
import array_kernels as ak
args = ak.logistic_problem(10_000, 100)
reference = ak.logistic_gradient_numpy(*args)
def srcad_first(backend):
    return srcad.grad(ak.logistic_loss, backend=backend)(*args)
def jax_first():
    jax, grads = ak.make_jax()
    return jax.block_until_ready(grads["logistic"](*args))
tolerance = 1e-9
""",
    "2-layer tanh MLP gradient, N=2000, 100-64-10": """
import array_kernels as ak
args = ak.mlp_problem(2000, 100, 64, 10)
reference = ak.mlp_gradient_numpy(*args)
def srcad_first(backend):
    return ak.flat(*srcad.grad(ak.mlp_loss, argnums=(0, 1, 2, 3), backend=backend)(*args))
def jax_first():
    jax, grads = ak.make_jax()
    return ak.flat(*jax.block_until_ready(grads["mlp"](*args)))
tolerance = 1e-9
""",
    "RNN gradient, T=100, H=64, D=16": """
import array_kernels as ak
args = ak.rnn_problem(100, 64, 16)
reference = ak.rnn_gradient_numpy(*args)
def srcad_first(backend):
    return ak.flat(*srcad.grad(ak.rnn_loss, argnums=(0, 1), backend=backend)(*args))
def jax_first():
    jax, grads = ak.make_jax()
    return ak.flat(*jax.block_until_ready(grads["rnn"](*args)))
tolerance = 1e-9
""",
    "Kalman filter log-likelihood gradient, 50 observations": """
from benchmarks.kalman_first_call import kalman_loglikelihood, simulated, check
observations, log_scales = simulated(), np.array([-3.0, -2.0])
reference = None
def srcad_first(backend):
    answer = srcad.grad(kalman_loglikelihood, backend=backend)(log_scales, observations, 0.1)
    check(answer, log_scales, observations)
    return answer
def jax_first():
    import jax
    import jax.numpy as jnp
    jax.config.update("jax_enable_x64", True)
    def loglikelihood(log_scales, observations, dt):
        q, r = jnp.exp(log_scales[0]), jnp.exp(log_scales[1])
        transition = jnp.eye(4).at[0, 2].set(dt).at[1, 3].set(dt)
        observe = jnp.zeros((2, 4)).at[0, 0].set(1.0).at[1, 1].set(1.0)
        def step(carry, observation):  # one predict/update, scanned over the observations
            mean, covariance, total = carry
            mean = transition @ mean
            covariance = transition @ covariance @ transition.T + q * jnp.eye(4)
            innovation = observation - observe @ mean
            innovation_cov = observe @ covariance @ observe.T + r * jnp.eye(2)
            solved = jnp.linalg.solve(innovation_cov, innovation)
            sign, logdet = jnp.linalg.slogdet(innovation_cov)
            total = total - 0.5 * (logdet + innovation @ solved + 2.0 * jnp.log(2.0 * jnp.pi))
            gain = jnp.linalg.solve(innovation_cov, observe @ covariance).T
            return (mean + gain @ innovation, covariance - gain @ observe @ covariance,
                    total), None
        (_, _, total), _ = jax.lax.scan(step, (jnp.zeros(4), jnp.eye(4), 0.0), observations)
        return total
    answer = np.asarray(jax.block_until_ready(
        jax.jit(jax.grad(loglikelihood), static_argnums=2)(log_scales, observations, 0.1)))
    check(answer, log_scales, observations)
    return answer
tolerance = None
""",
    "in-place jacobian with a scratch cache, n=100": """
import kernels
x = np.random.default_rng(2).random(100)
reference = kernels.scratch_cache_jacobian_reference(x)
def srcad_first(backend):
    return srcad.jacobian(kernels.scratch_cache_f, srcad.Output(np.zeros(100)), x,
                          srcad.Cache(np.zeros(100)), backend=backend)
jax_first = None
tolerance = 1e-9
""",
}

_CHILD = """
import json, sys, time
root, tool, problem = sys.argv[1], sys.argv[2], sys.argv[3]
sys.path[:0] = [root, root + "/benchmarks", root + "/examples"]
import numpy as np
if tool == "jax.jit":
    import jax  # imported before the clock starts, as srcad is
else:
    import srcad
exec(PROBLEMS[problem])
if tool == "jax.jit" and jax_first is None:
    print(json.dumps({"status": "no JAX form"}))
    sys.exit(0)
cpu, wall = time.process_time(), time.perf_counter()
answer = jax_first() if tool == "jax.jit" else srcad_first(tool.split()[1])
cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
if reference is not None:
    error = float(np.max(np.abs(np.asarray(answer) - reference)) / np.max(np.abs(reference)))
    if error > tolerance:
        print(json.dumps({"status": f"DISAGREES (relative error {error:.1e})"}))
        sys.exit(0)
print(json.dumps({"status": "ok", "cpu": cpu, "wall": wall}))
"""


def _measure(tool: str, problem: str, cache_dir: str) -> dict:
    env = dict(os.environ, SRCAD_CACHE_DIR=cache_dir)
    child = f"PROBLEMS = {_PROBLEMS!r}\n{_CHILD}"
    done = subprocess.run([sys.executable, "-c", child, str(ROOT), tool, problem],
                          capture_output=True, text=True, env=env, timeout=1800)
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["(no output)"])[-1]
        return {"status": f"failed: {last[:160]}"}
    return json.loads(done.stdout.strip().splitlines()[-1])


def section_first_derivative(suite: Suite, srcad, problems=None, tools=TOOLS):
    """Measure every (problem, tool) cold and warm in new processes; the rows go to
    suite.extra["first derivative"] with the load average before and after."""
    print(f"\n{S11}")
    rows = suite.extra.setdefault("first derivative", {})
    suite.extra["first derivative load"] = [os.getloadavg()[0]]
    for problem in problems or _PROBLEMS:
        for tool in tools:
            if tool == "srcad numba" and not _installed("numba"):
                rows[problem, tool] = {"cold": {"status": "skipped (not installed: numba)"}}
                continue
            if tool == "jax.jit" and not _installed("jax"):
                rows[problem, tool] = {"cold": {"status": "skipped (not installed: jax)"}}
                continue
            with tempfile.TemporaryDirectory(prefix="srcad-first-") as folder:
                cold = _measure(tool, problem, folder)
                warm = (_measure(tool, problem, folder) if tool != "jax.jit"
                        and cold["status"] == "ok" else None)
            rows[problem, tool] = {"cold": cold, "warm": warm}
            print(f"  {problem[:40]:40} {tool:12} cold {_cell(cold):>22}  warm {_cell(warm):>22}")
    suite.extra["first derivative load"].append(os.getloadavg()[0])


def _installed(module: str) -> bool:
    import importlib.util
    return importlib.util.find_spec(module) is not None


def _cell(result) -> str:
    if result is None:
        return "-"
    if result["status"] != "ok":
        return result["status"]
    wall, cpu = result["wall"], result["cpu"]
    shown = f"{wall * 1e3:.0f} ms" if wall < 10 else f"{wall:.1f} s"
    return f"{shown} ({cpu * 1e3:.0f} ms CPU)"


def markdown_lines(suite) -> list:
    """The section of docs/benchmarks.md: one row per problem, a cold and a warm column per
    srcad backend, and jax.jit's first call."""
    rows = suite.extra.get("first derivative")
    if not rows:
        return []
    problems = list(dict.fromkeys(problem for problem, _ in rows))
    header = ["problem", "srcad python cold", "srcad python warm", "srcad numba cold",
              "srcad numba warm", "jax.jit first call"]
    method = __doc__.split("\n\n", 1)[1].replace("\n", " ").strip()
    lines = ["", START, "", f"## {S11}", "", method, "",
             "| " + " | ".join(header) + " |", "|---" * len(header) + "|"]
    for problem in problems:
        cells = []
        for tool in TOOLS:
            result = rows.get((problem, tool), {})
            cells.append(_cell(result.get("cold")))
            if tool != "jax.jit":
                cells.append(_cell(result.get("warm")))
        lines.append(f"| {problem} | " + " | ".join(cells) + " |")
    before, *after = suite.extra.get("first derivative load", [None])
    if before is not None:
        lines += ["", f"Load average (1 minute) {before:.1f} before these runs, "
                  f"{after[0]:.1f} after." if after else f"Load average {before:.1f}."]
    return lines + ["", END]


def update_page(path, suite) -> None:
    """Replace this section of the page at `path` (docs/benchmarks.md) by the suite's, or
    append it (the generated-section writer of the GradBench pages)."""
    from harness_page import write_section  # benchmarks/gradbench: on the path of run.py

    write_section(path, "\n".join(markdown_lines(suite)).strip("\n") + "\n", START, END)
