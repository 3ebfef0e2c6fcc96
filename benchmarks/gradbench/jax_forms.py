"""The JAX column of docs/gradbench.md against GradBench's own JAX tool: for every eval the tool
implements, the port's JAX derivative (what `run.py` times) and the tool's jitted function
(third_party/gradbench/python/gradbench/gradbench/tools/jax) on the same input, in this one
process, JAX on one thread as `run.py` runs it, timed in the same rounds.

    python benchmarks/gradbench/jax_forms.py [--evals gmm ode ...] [--sizes page largest]
        [--rounds 9]

Sizes: "page" is the port's "default" size (the page's), "largest" the largest input of the
eval program's default arguments. Each cell is the least wall-clock time of one call up to
`block_until_ready` over the rounds; the two answers are checked to agree first.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
for entry in (ROOT, ROOT / "third_party" / "gradbench" / "python" / "gradbench"):
    if str(entry) not in sys.path:
        sys.path.insert(0, str(entry))

from benchmarks.gradbench.jax_one_thread import pin_jax_to_one_cpu  # noqa: E402

# the largest input of each eval program's default arguments (its run.py)
LARGEST = {
    "gmm": {"d": 64, "k": 100, "n": 1000},
    "kmeans": {"k": 1000, "n": 10000, "d": 16},
    "llsq": {"n": 16392, "m": 128},
    "lse": {"n": 1280000},
    "ode": {"n": 100000, "s": 100},
}


def tool_call(name, data):
    """A zero-argument call of GradBench's JAX tool's derivative on `data` (its own `pre`
    conversion done here, outside the timing), returning a NumPy array or tuple of them."""
    from importlib import import_module

    import jax
    import numpy as np

    module = import_module(f"gradbench.tools.jax.{name}")
    if name == "gmm":
        fixed, independent = module.prepare(data)
        call = lambda: module.jac(independent, **fixed)  # noqa: E731
        out = lambda r: tuple(np.asarray(r[k]) for k in ("alpha", "mu", "q", "l"))  # noqa: E731
    else:
        function = {"kmeans": "dir", "llsq": "gradient", "lse": "gradient",
                    "ode": "gradient"}[name]
        prepared = module.prepare_input(data)
        raw = getattr(module, function).function
        call = lambda: raw(prepared)  # noqa: E731
        out = np.asarray
    jax.block_until_ready(call())
    return lambda: out(jax.block_until_ready(call()))


def flat(result):
    import numpy as np

    parts = result if isinstance(result, tuple) else (result,)
    return np.concatenate([np.ravel(np.asarray(p)) for p in parts])


def measure(name, sizes, rounds):
    import numpy as np

    from srcad.gradbench.ports import common

    port = next(p for p in common.discover() if p.name == name)
    data = port.generate(**sizes)
    problem = port.parse(data)
    ours = port.find(port.derivative, "jax").build(problem)
    theirs = tool_call(name, data)
    a, b = flat(ours()), flat(theirs())
    error = float(np.max(np.abs(a - b)) / max(1.0, float(np.max(np.abs(b)))))
    samples = {"port": [], "tool": []}
    for _ in range(rounds):
        for key, call in (("port", ours), ("tool", theirs)):
            start = time.perf_counter()
            call()
            samples[key].append(time.perf_counter() - start)
    return min(samples["port"]), min(samples["tool"]), error


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--evals", nargs="*", default=sorted(LARGEST))
    parser.add_argument("--sizes", nargs="*", default=["page", "largest"])
    parser.add_argument("--rounds", type=int, default=9)
    args = parser.parse_args(argv)
    print(pin_jax_to_one_cpu())
    from srcad.gradbench.ports import common

    ports = {p.name: p for p in common.discover()}
    print(f"load average {os.getloadavg()[0]:.1f}")
    print("| eval | size | port's JAX form | GradBench's JAX tool | port / tool | max rel. diff |")
    print("|---|---|---|---|---|---|")
    for name in args.evals:
        for size in args.sizes:
            sizes = ports[name].sizes["default"] if size == "page" else LARGEST[name]
            port, tool, error = measure(name, sizes, args.rounds)
            label = ", ".join(f"{k}={v}" for k, v in sizes.items())
            print(f"| {name} | {label} | {port * 1e3:.3f} ms | {tool * 1e3:.3f} ms "
                  f"| {port / tool:.2f}x | {error:.1e} |", flush=True)
    print(f"load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    os.environ.setdefault("XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false")
    main()
