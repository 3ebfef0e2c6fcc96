"""`compile="background"` of the operators (`gradient`, `jacobian`, `hessian`, ... and their
`prepare_*`) and of the function transforms (`grad`, `value_and_grad`, `jacfwd`, `jacrev`):
the same meaning as `autodiff`'s (srcad/build/background.py).

With `backend="numba", compile="background"`, a call whose numba code is not compiled yet
starts the numba call on a daemon thread (once per operator, function and argument types: on
copies of the arguments; its answer is dropped) and is answered by the python backend; once
the thread has finished, the numba backend answers. A preparation made with
`compile="background"` is a `BackgroundPrep`: the python backend's preparation, which answers
the prepared calls until the numba preparation, made and run once on a thread, is ready.
`compile="wait"` (the default) compiles before answering. An error of the numba side is
raised once by the first call after it is known. `srcad.build.background.wait()` joins the
threads under way; `srcad.build.background.answered[(f, backend)]` counts the answers.
"""

from __future__ import annotations

import copy
import functools
from dataclasses import dataclass

import numpy as np

from srcad.annotations import Annotation
from srcad.build.background import check_compile, count_answer, numba_ready
from srcad.errors import SrcadError, surfaced

_OPERATORS: dict = {}  # operator name -> the operator (srcad/operators/preparation.py)


def argument_types(args, options=()) -> tuple:
    """What numba compiles a call for: each argument's annotation, type, dtype and rank (not
    its values or shape), and the options given by name.

    >>> argument_types((np.zeros(3), 2.0), {"mode": "forward"})
    ((None, 'ndarray', 'float64', 1), (None, 'float', None, 0), ('mode', 'forward'))
    """
    def kind(a):
        if isinstance(a, Annotation):
            return (type(a).__name__,) + kind(a.value)[1:]
        if isinstance(a, (list, tuple)):
            return (None, type(a).__name__, tuple(kind(v) for v in a), len(a))
        if isinstance(a, dict):
            return (None, "dict", tuple((k, kind(v)) for k, v in a.items()), len(a))
        return (None, type(a).__name__, str(getattr(a, "dtype", "")) or None, np.ndim(a))
    return tuple(kind(a) for a in args) + tuple(
        (k, v if isinstance(v, (str, int, float, bool, type(None))) else type(v).__name__)
        for k, v in sorted(dict(options).items()))


def answered_by(key, f, name: str, call_numba, args, options: dict) -> str:
    """"numba" when the numba call `key` has been compiled, else "python" after starting
    `call_numba(*copies, **option_copies)` on a thread (once); counted per `f`."""
    def starting():
        copies, option_copies = copy.deepcopy((args, options))
        return lambda: call_numba(*copies, **option_copies)

    ready = numba_ready(key, starting, f"srcad numba compile of {name}")
    return count_answer(f, "numba" if ready else "python")


def register(name: str, operator) -> None:
    """Record the operator (or `prepare_*`) called `name`, as `srcad` exports it."""
    _OPERATORS[name] = operator


def background_call(name: str, f, args, options: dict):
    """The call `_OPERATORS[name](f, *args, **options)` with its `compile=` option (popped
    from `options`) applied."""
    operator = _OPERATORS[name]
    compile_ = options.pop("compile", "wait")
    prep = options.get("prep")
    if isinstance(prep, BackgroundPrep):  # its compile= was given when it was prepared
        return operator(f, *args, **{**options, "prep": prep.current()})
    if compile_ == "wait":
        return operator(f, *args, **options)
    try:
        check_compile(compile_, options.get("backend") or getattr(
            getattr(prep, "engine", None), "backend", "python"))
    except SrcadError as err:
        raise surfaced(err) from None
    if prep is not None:  # prepared already: compiled when it was prepared
        return operator(f, *args, **options)
    key = (name, f, getattr(f, "__code__", None), argument_types(args, options))
    if name.startswith("prepare_"):
        return BackgroundPrep(operator(f, *args, **{**options, "backend": "python"}),
                              key, name.removeprefix("prepare_"), f, args, options)
    if answered_by(key, f, name, functools.partial(operator, f), args, options) == "numba":
        return operator(f, *args, **options)
    return operator(f, *args, **{**options, "backend": "python"})


@dataclass
class BackgroundPrep:
    """A preparation of `compile="background"`: the python backend's preparation until the
    numba backend's, prepared and run once on a thread, is ready."""

    python: object
    key: tuple
    operator: str
    function: object
    args: tuple
    options: dict
    numba: object = None

    def __post_init__(self):
        self._ready()  # numba's preparation starts now, on its thread

    def current(self):
        """The preparation that answers now: the numba one once it is ready."""
        if self.numba is None and not self._ready():
            count_answer(self.function, "python")
            return self.python
        count_answer(self.function, "numba")
        return self.numba

    def _ready(self) -> bool:
        def prepared(f, *args, **options):  # on the thread: prepare, then one call
            prep = _OPERATORS[f"prepare_{self.operator}"](f, *args, **options)
            direction = _direction(self.operator, args)
            if direction is not None:  # numba compiles at the first call: make it here
                _OPERATORS[self.operator](f, *args, prep=prep, **direction)
            self.numba = prep

        def starting():
            copies, option_copies = copy.deepcopy((self.args, self.options))
            return lambda: prepared(self.function, *copies, **option_copies)

        return numba_ready(self.key, starting, f"srcad numba preparation of {self.operator}")

    def __getattr__(self, name):  # what callers read of a preparation: the python one's
        if name in ("python", "numba"):
            raise AttributeError(name)
        return getattr(self.python, name)


def _direction(operator: str, args):
    """The options a prepared call of `operator` takes besides prep=: a zero tangent for
    the operators along a direction of x; None for a pullback, whose cotangent is shaped
    like f's output (its numba code compiles at its first numba call)."""
    if operator == "pullback":
        return None
    if operator not in ("pushforward", "hvp", "gradient_and_hvp"):
        return {}
    x = next(a for a in args if not isinstance(a, Annotation))
    return {"tangent": np.zeros_like(x) if isinstance(x, np.ndarray) else 0.0}


def background_function(name: str, fun, compile_: str, backend: str, numba_version,
                        python_version):
    """The function a transform `name` of `fun` returns with `compile=compile_`: each call
    answered by `numba_version` once its numba code for these argument types is compiled,
    else by `python_version` (the compilation started on a thread)."""
    try:
        check_compile(compile_, backend)
    except SrcadError as err:
        raise surfaced(err) from None
    code = getattr(fun, "__code__", None)

    @functools.wraps(fun)
    def answered(*args, **kwargs):
        key = (name, fun, code, argument_types(args, kwargs))
        if answered_by(key, fun, name, numba_version, args, kwargs) == "numba":
            return numba_version(*args, **kwargs)
        return python_version(*args, **kwargs)
    return answered
