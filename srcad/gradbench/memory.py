"""The tool process's memory: it keeps what it frees for its next run (glibc's malloc
settings), and gives a loop's tape a budget sized to the machine.

srcad's generated numba code allocates its work arrays (adjoints, locals) at every call, as
NumPy code does. glibc serves an allocation above its mmap threshold (128 KiB, rising to the
largest block freed so far) with fresh pages from the kernel and gives them back when it is
freed, and returns the top of its heap to the kernel once more than the trim threshold is
free: a call allocating a few megabytes then meets a page fault per 4 KiB page at every run
(the kernel zeroes each page again). At GradBench's largest ode input (n = 100000, one step)
that was 7 ms of CPU time in a 1.5 ms derivative. JAX's runtime keeps its buffers in its own
allocator across calls; a GradBench tool answers many runs of one function in one process, so
it keeps what it frees too: blocks up to glibc's largest mmap threshold (32 MiB on 64-bit)
come from the heap, and the heap is trimmed only past 2 GiB free.

The tape budget: srcad checkpoints a time-stepping loop whose tape would pass
`srcad.runtime.checkpointing.DEFAULT_MEMORY` (256 MiB), recomputing steps. GradBench's largest
ode input (n = 100000, s = 100) tapes 317 MB: checkpointed, its gradient took 400 ms of CPU
time, taped whole 141 ms (the primal 31 ms). GradBench's JAX tool keeps every step's
residuals, as much memory; the tool gives the tape a quarter of the memory available when it
starts (`tape_budget`), never less than srcad's default.

Guarantees: `keep_freed_memory()` changes only this process's malloc settings, and only with
glibc (elsewhere it does nothing and says so); it returns what it did, for the tool's `start`
response. `set_tape_budget` sets srcad's default budget before any code is generated (the
budget is written into the generated code, so code made under another budget is not reused).
"""

from __future__ import annotations

from srcad.runtime import checkpointing, heap_settings

TRIM_THRESHOLD = 2**31 - 1  # the largest int mallopt takes: the heap is trimmed past 2 GiB free


def keep_freed_memory() -> str:
    """Ask glibc to serve blocks up to 32 MiB from its heap and to keep what is freed (up to
    2 GiB; srcad/runtime/heap_settings.py).

    Returns "kept" when glibc took both settings, else why nothing changed.

    >>> keep_freed_memory() in ("kept", "not glibc", "mallopt refused")
    True
    """
    return heap_settings.keep_freed_memory(TRIM_THRESHOLD)


def available_memory(meminfo: str = "/proc/meminfo") -> int | None:
    """The kernel's estimate of the memory available to a new process, in bytes (None where
    it does not say)."""
    try:
        with open(meminfo) as lines:
            for line in lines:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        return None
    return None


def tape_budget(available: int | None) -> int:
    """A quarter of `available` bytes, never less than srcad's default budget.

    >>> tape_budget(16 * 2**30) == 4 * 2**30, tape_budget(None) == checkpointing.DEFAULT_MEMORY
    (True, True)
    """
    return max(checkpointing.DEFAULT_MEMORY, (available or 0) // 4)


def set_tape_budget(nbytes: int) -> int:
    """srcad's budget of a loop's tape where `memory=` is not given, for the code generated
    from now on; returns it."""
    checkpointing.DEFAULT_MEMORY = int(nbytes)
    return checkpointing.DEFAULT_MEMORY
