"""`compile="background"` of the numba backend: first calls answered by the python backend's
code while numba compiles on a thread, then numba's code.

The numba backend's first call waits for numba (seconds, for a larger function); the python
backend's code of the same function is ready in a fraction of a second and computes the same
derivatives. With `autodiff(..., backend="numba", compile="background")`, a call whose numba
code is not compiled yet starts its compilation on a daemon thread (once per function, code
and argument signature) and is answered by the python backend; once the thread has finished,
every call runs the numba code, through the numba backend's own path (its cache entry and plan).
numba compiles a function for the argument types of its first call: the thread makes that
call, on a copy of the arguments (the answer is dropped), so no caller waits for it.
A refusal or error of the numba compilation is raised by the first call after it is known
(the python backend answered before it). `compile="wait"` (the default) compiles before
answering. `wait()` joins the compilations under way (a script that times the numba code
afterwards calls it first).

The derivatives are the same on both backends up to rounding (numba's fast-math divisions);
which backend answered each call is counted in `answered` (for tests and benchmarks).
"""

from __future__ import annotations

import copy
import threading

from srcad.build import cache
from srcad.build.arguments import _arguments
from srcad.build.pipeline import build
from srcad.errors import ArgumentError, SrcadError, surfaced

COMPILES = ("wait", "background")

# (function, code, request) -> the compilation: a thread under way, then "ready" or the error
_compilations: dict = {}
_lock = threading.Lock()
# (function, backend) -> how many calls that backend answered with compile="background"
answered: dict = {}


def check_compile(compile_: str, backend: str) -> None:
    """Refuse a `compile=` value autodiff does not take."""
    if compile_ not in COMPILES:
        raise ArgumentError(f"unknown compile={compile_!r}", construct="compile",
                            hint="use compile='wait' (the default) or compile='background'")
    if compile_ == "background" and backend != "numba":
        raise ArgumentError("compile='background' is an option of the numba backend",
                            construct="compile", hint="pass backend='numba' with it, or "
                            "leave compile= out")


def backend_now(f, mode, args, batch, memory, run_numba) -> str:
    """The backend that answers this call: "numba" once its compilation has finished (or
    another call compiled it), else "python" after starting the compilation (once).
    `run_numba(args)`: the call on the numba backend, which the thread makes on a copy of
    the arguments (numba compiles for the types of the first call it sees)."""
    request = _arguments(f, mode, args, batch, "numba").request(mode, "numba", memory)
    key = (f, f.__code__, request)

    def starting():
        copies = copy.deepcopy(args)

        def compile_numba():  # generated outside the cache's lock: python builds go on
            compiled = build(f, request)
            cache.lookup_or_build(key, lambda: compiled)
            run_numba(copies)  # numba compiles here, on this thread, for these types
        return compile_numba

    ready = numba_ready(key, starting, f"srcad numba compile of {f.__name__}",
                        already=lambda: bool(cache.current(key)))  # compiled by a waiting call
    return count_answer(f, "numba" if ready else "python")


def numba_ready(key, starting, name: str, already=lambda: False) -> bool:
    """Has the compilation `key` finished? The first time it is asked (unless `already()`:
    compiled by a call that waited), `starting()` gives the compilation (copying what it
    needs of the caller's arguments), which runs on a daemon thread named `name`; the answer
    is False until it has returned. An error it raised is raised here once
    (a later call tries again)."""
    with _lock:
        state = _compilations.get(key)
        if state is None:
            if already():
                state = _compilations[key] = "ready"
            else:
                state = _compilations[key] = threading.Thread(
                    target=_compile, args=(key, starting()), daemon=True, name=name)
                state.start()
    if isinstance(state, threading.Thread):
        return False
    if isinstance(state, BaseException):
        with _lock:
            _compilations.pop(key, None)  # raised once; a later call tries again
        raise surfaced(state) if isinstance(state, SrcadError) else state
    return True


def _compile(key, compile_numba) -> None:
    try:
        compile_numba()
        state = "ready"
    except Exception as err:  # noqa: BLE001 - handed to the next call, which raises it
        state = err
    with _lock:
        _compilations[key] = state


def count_answer(f, backend: str) -> str:
    """Count a call `backend` answered (the fast path of repeated calls counts its own)."""
    answered[f, backend] = answered.get((f, backend), 0) + 1
    return backend


def wait(timeout: float | None = None) -> None:
    """Join the numba compilations under way (each for at most `timeout` seconds)."""
    with _lock:
        threads = [s for s in _compilations.values() if isinstance(s, threading.Thread)]
    for thread in threads:
        thread.join(timeout)


@cache.clear_also
def clear() -> None:
    """Forget finished compilations and the counts (`srcad.build.cache.clear` calls it)."""
    with _lock:
        for key in [k for k, s in _compilations.items() if not isinstance(s, threading.Thread)]:
            del _compilations[key]
    answered.clear()
