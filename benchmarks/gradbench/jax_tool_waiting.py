"""GradBench's JAX tool, unchanged, made to wait for its results inside the timed runs.

The tool times `function(input)` of a jitted function; JAX dispatches asynchronously, so the
timer stops before the computation ends and the output is only read afterwards (a gradient of
40000 exponentials measured 14 µs that way). This launcher wraps each function the tool's
modules decorate with `gradbench.wrap.multiple_runs` / `wrap.function` in
`jax.block_until_ready`, then runs the tool's own run.py. JAX computes on one thread, as
srcad's tool does (`jax_one_thread.pin_jax_to_one_cpu`: XLA_FLAGS and its CPU client created
while the process is pinned to one CPU); the setting is printed to stderr, which the harness
records. Run as the tool:

    python benchmarks/gradbench/jax_tool_waiting.py   (gradbench on PYTHONPATH)
"""

from __future__ import annotations

import runpy
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from jax_one_thread import pin_jax_to_one_cpu, set_flags  # noqa: E402

set_flags()  # before JAX is imported

import harness_setup as setup  # noqa: E402
import jax  # noqa: E402

from gradbench import wrap  # noqa: E402


def waiting(decorator_factory):
    def factory(*args, **kwargs):
        decorate = decorator_factory(*args, **kwargs)

        def decorator(function):
            wrapped = decorate(lambda input: jax.block_until_ready(function(input)))
            wrapped.function = function
            return wrapped

        return decorator

    return factory


wrap.multiple_runs = waiting(wrap.multiple_runs)
wrap.function = waiting(wrap.function)

if __name__ == "__main__":
    print(f"jax_tool_waiting: {pin_jax_to_one_cpu()}", file=sys.stderr, flush=True)
    sys.path.insert(0, str(setup.JAX_TOOL.parent))  # the tool imports its modules by name
    sys.argv = [str(setup.JAX_TOOL), *sys.argv[1:]]
    runpy.run_path(str(setup.JAX_TOOL), run_name="__main__")
