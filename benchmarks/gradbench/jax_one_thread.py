"""JAX computing on one thread, as srcad's tools do, for a fair comparison: used by
`run.py` (JAX inside the timing process) and by `jax_tool_waiting.py` (GradBench's JAX tool in
`make gradbench`).

No XLA flag bounds the XLA:CPU runtime's thread pools: `--xla_cpu_multi_thread_eigen=false`
keeps Eigen's matrix products on the calling thread, and `intra_op_parallelism_threads=1` is
not read by XLA (a gmm gradient still computed on four threads). XLA sizes its pools by the
CPUs the process may run on when JAX's CPU client is created, and its threads keep that
affinity: so the client is created while the process is pinned to one CPU, and the process's
CPUs are restored afterwards (the calling thread runs where it did).
"""

from __future__ import annotations

import os

FLAGS = "--xla_cpu_multi_thread_eigen=false"
# what the pages say of the setting
SETTING = ("computes on one thread, as srcad's tools do: its CPU client is created while the "
           "process is pinned to one CPU (XLA sizes its thread pools by the CPUs then "
           "available, and its threads stay there), with XLA_FLAGS={flags}")


def set_flags() -> None:
    """Eigen's matrix products on the calling thread: call before JAX creates its client."""
    os.environ.setdefault("XLA_FLAGS", FLAGS)


def pin_jax_to_one_cpu() -> str:
    """Create JAX's CPU client while the process may run on one CPU only, then restore the
    process's CPUs. Returns what the pages say about it."""
    set_flags()
    try:
        import jax
    except ImportError:
        return "JAX is not installed"
    cpus = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {min(cpus)})
    try:
        jax.devices("cpu")
    finally:
        os.sched_setaffinity(0, cpus)
    return f"JAX {jax.__version__} " + SETTING.format(flags=os.environ["XLA_FLAGS"])
