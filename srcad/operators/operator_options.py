"""What the operators' keywords may be: `mode`, `chunk`, `backend`, `out` and `memory`.

`memory=` is taken by every operator and preparation: it checkpoints the reverse passes of
gradient, jacobian and pullback, and is refused with the reason by the operators that run
no reverse pass it could bound (`refuse_memory`).

An option an operator would ignore or misread is refused with an `ArgumentError` naming the
values it takes: a mode string it does not run (`mode="Forward"`), a `chunk` where there are
no lanes to choose, an `out=` for a float result or of a non-float dtype. All of this is
checked at preparation (options given with `prep=` must be the preparation's:
`Prep.check_options`).
"""

from __future__ import annotations

import numpy as np

from srcad.errors import ArgumentError, PreparationMismatchError
from srcad.runtime.checkpointing import memory_bytes, reverse_memory

SECOND_ORDER = "forward-over-reverse"
REVERSE_OVER_FORWARD = "reverse-over-forward"  # the numba backend's second order
BACKENDS = ("python", "numba")


def check_shape(what, array, shape):
    if np.shape(array) != tuple(shape):
        raise ArgumentError(f"{what} has shape {np.shape(array)}, expected {tuple(shape)}")


def second_order_mode(mode, backend) -> str:
    """The mode given, else the backend's: forward over reverse on python (vector lanes over
    plain Python reverse code), reverse over forward on numba (its reverse code passes tape
    arrays srcad's forward mode does not differentiate; its forward code is plain)."""
    if mode == SECOND_ORDER and backend == "numba":
        raise ArgumentError("backend='numba' runs second order as reverse over forward: the "
                            "numba reverse code takes and returns tape arrays, which srcad's "
                            "forward mode does not differentiate", construct="mode",
                            hint="leave mode out (or mode='reverse-over-forward'), or use "
                            "backend='python'")
    if mode is not None:
        return mode
    return REVERSE_OVER_FORWARD if backend == "numba" else SECOND_ORDER

# The modes each operator runs; mode=None is the operator's own choice among them.
OPERATOR_MODES = {
    "gradient": ("forward", "reverse"),
    "jacobian": ("forward", "reverse"),
    "derivative": ("forward",),
    "pushforward": ("forward",),
    "pullback": ("reverse",),
    "hvp": (SECOND_ORDER, REVERSE_OVER_FORWARD),
    "gradient_and_hvp": (SECOND_ORDER, REVERSE_OVER_FORWARD),
    "hessian": (SECOND_ORDER, REVERSE_OVER_FORWARD),
    "second_derivative": (SECOND_ORDER, REVERSE_OVER_FORWARD),
}

_OTHER_MODE_HINTS = {
    "derivative": "for df/dx by reverse passes use jacobian(f, ..., mode='reverse') or "
                  "gradient(f, ...)",
    "pushforward": "J v by reverse passes: jacobian(f, ..., mode='reverse') @ v",
    "pullback": "u^T J by forward passes: u @ jacobian(f, ..., mode='forward')",
}

# Why an operator has no chunk to choose.
_NO_CHUNK = {
    "derivative": "derivative propagates one tangent",
    "pushforward": "its lanes are the tangents: pass tangent=(v1, v2, ...) to propagate "
                   "several in one call",
    "pullback": "reverse mode pulls back one cotangent per pass",
    "hvp": "hvp propagates one tangent; hessian(..., chunk=k) takes k columns per pass",
    "gradient_and_hvp": "gradient_and_hvp propagates one tangent",
    "second_derivative": "second_derivative propagates one tangent",
}


def check_options(operator: str, mode, chunk, backend) -> None:
    """Refuse a mode, chunk or backend `operator` does not take (at preparation)."""
    modes = OPERATOR_MODES[operator]
    if mode is not None and mode not in modes:
        allowed = " or ".join(repr(m) for m in (None, *modes))
        raise ArgumentError(f"{operator} takes mode={allowed}, got mode={mode!r}",
                            construct="mode", hint=_OTHER_MODE_HINTS.get(
                                operator, "mode names are lower case"))
    if backend is not None and backend not in BACKENDS:
        raise ArgumentError(f"unknown backend {backend!r}", construct="backend",
                            hint="use backend='python' or backend='numba'")
    if chunk is None:
        return
    if operator in _NO_CHUNK:
        raise ArgumentError(f"{operator} takes no chunk= ({_NO_CHUNK[operator]})",
                            construct="chunk", hint="leave chunk out")
    if isinstance(chunk, bool) or not isinstance(chunk, (int, np.integer)) or chunk < 1:
        raise ArgumentError(f"chunk= is the number of tangent lanes per pass, a positive "
                            f"integer; got {chunk!r}", construct="chunk")
    if operator == "gradient" and mode != "forward":
        refuse_chunk_in_reverse(operator)


def refuse_chunk_in_reverse(operator: str) -> None:
    raise ArgumentError(f"chunk= sets the tangent lanes of forward mode, and this {operator} "
                        "runs reverse mode", construct="chunk",
                        hint="pass mode='forward' with chunk=, or leave chunk out")


def refuse_chunk_in_reverse_over_forward() -> None:
    raise ArgumentError("reverse over forward (the numba backend's second order) takes one "
                        "Hessian column per pass", construct="chunk",
                        hint="leave chunk out, or use backend='python'")


def check_out(out, shape) -> None:
    """`out=` is a float NumPy array shaped like the result."""
    if not isinstance(out, np.ndarray) or out.dtype.kind != "f":
        got = (f"a {out.dtype} array" if isinstance(out, np.ndarray)
               else type(out).__name__)
        raise ArgumentError(f"out= takes a float NumPy array, got {got}", construct="out",
                            hint=f"np.empty({tuple(shape)!r})")
    check_shape("out", out, shape)


def refuse_float_out(operator: str) -> None:
    raise ArgumentError(f"out= receives an array result, and this {operator} returns a float",
                        construct="out", hint="leave out= out")


def memory_option(operator: str, mode, memory):
    """`memory=` as bytes (None: the automatic budget), refused where no reverse pass runs."""
    return reverse_memory(memory, mode == "forward", f"this {operator}",
                          hint="leave memory= out, or pass mode='reverse'")


def check_memory(prep, memory) -> None:
    """memory= given with prep= must be the preparation's (it is compiled in)."""
    if memory is not None and memory_bytes(memory) != prep.engine.compiled.request.memory:
        raise PreparationMismatchError(
            f"the preparation was made with memory={prep.engine.compiled.request.memory!r}; "
            f"this call asks for memory={memory!r}",
            hint=f"call prepare_{prep.operator} again with memory={memory!r}")


def memory_key(extra):
    """A kept preparation also depends on memory= (compiled into its reverse code)."""
    return extra.get("memory")


def refuse_memory(operator: str, memory) -> None:
    """memory= given to an operator that runs no checkpointable reverse pass: refused, saying
    why (memory=None, the default, is accepted). The forward operators' refusal is
    `reverse_memory`'s, as for autodiff and the decorators."""
    hint = "leave memory= out; gradient, jacobian and pullback take it"
    if operator in ("derivative", "pushforward"):
        reverse_memory(memory, True, operator, hint=hint)
    elif memory is not None:
        raise ArgumentError(f"memory= bounds the tape of reverse mode, and {operator} runs "
                            "srcad's second order (forward over reverse, or reverse over "
                            "forward on numba), which does not checkpoint", construct="memory",
                            hint=hint)
