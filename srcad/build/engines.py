"""Engines: compiled derivative code plus every buffer it needs, allocated once.

An engine owns the flat argument list of one generated function (values, shadows, seeds) and
refills it in place on each call, so a prepared operator call allocates no arrays. The
operators (`operators.py`) only decide which engine to run and how to read its results.
"""

from __future__ import annotations

import functools
import itertools
import keyword
import linecache
import math

import numpy as np

from srcad.analysis.written_first import indexed_only, overwritten_first, parameters
from srcad.build.differentiate import _compiled
from srcad.build.engine_slots import InputCopy, Slot, _spec, refuse_written_constants
from srcad.build.output_restore import OutputRestore
from srcad.build.pipeline import Request
from srcad.build.running import call_generated, kept_tapes, tape_buffers
from srcad.errors import WRAPPER, SrcadError
from srcad.frontend.lambdas import function_name
from srcad.transform.tapes import FLOAT_TAPE, INT_TAPE


def primal_value(engine, f):
    """f at the engine's current arguments (x's copy in place of x when f writes it)."""
    if engine.input_copy is not None:
        engine.input_copy.refill()
    return f(*[engine.flat[i] for i in engine.value_index])


def _set_element(array, index: int) -> None:
    """array's C-order element `index` = 1.0. Not `array.flat[index]`: a flat iterator
    allocates ~2.6 KB each time (more than a jacobian row), a reshaped view ~0.2 KB."""
    if array.ndim == 1:
        array[index] = 1.0
    else:
        array.reshape(-1)[index] = 1.0


def _zeros_like(value):
    return np.zeros_like(value) if isinstance(value, np.ndarray) else 0.0


class ForwardEngine:
    """Forward or vector mode with `width` lanes of tangents (unrolled, or stacked in NumPy
    vectors when `stacked`). Seeds go into `x_lanes`; output tangents come out of
    `output_lanes` (Output arrays) or the returned tangents.

    Roles: "x" (seeded), "constant", "cache" (tangent lanes zeroed per call), "output" (lanes
    zeroed, read out), "accumulator" (its value and lanes zeroed per call, lanes read out)."""

    def __init__(self, f, slots: list, width: int, stacked: bool, backend: str = "python"):
        self.slots, self.width, self.stacked, self.backend = slots, width, stacked, backend
        specs = tuple(_spec(s, True, backend) for s in slots)
        self.compiled = _compiled(f, Request("forward", specs, width, stacked, backend))
        refuse_written_constants(self.compiled, slots)
        self.function = self.compiled.function
        self.flat, self.value_index = [], []
        # numba: lane arrays of scalar tangents, then the workspace
        self.scratch = tape_buffers(self.compiled)
        self.work_count = len(self.compiled.tapes)
        self.x_lanes, self.zeroed, self.output_lanes = [], [], []
        self.x_float_index = []
        for slot in slots:
            self.value_index.append(len(self.flat))
            self.flat.append(slot.value)
            if slot.role == "constant":
                continue
            if slot.role == "accumulator":
                self.zeroed.append(slot.value)
            if stacked:
                lanes = [np.zeros((width,) + np.shape(slot.value))]
            else:
                lanes = [_zeros_like(slot.value) for _ in range(width)]
            if slot.role == "x":
                if not slot.is_array and not stacked:
                    self.x_float_index = list(range(len(self.flat), len(self.flat) + width))
                self.x_lanes = lanes
            else:
                if slot.role in ("output", "accumulator"):
                    self.output_lanes = lanes
                self.zeroed.extend(lane for lane in lanes if isinstance(lane, np.ndarray))
            self.flat.extend(lanes)
        self.flat += self.scratch
        self.input_copy = InputCopy.needed(self.compiled, slots, self.flat, self.value_index, f)
        self.indexed_only = set()  # ids of Output/Cache tangents the code only indexes
        self.overwritten = self._overwritten_tangents() if stacked else set()
        self.zeroed = [b for b in self.zeroed if id(b) not in self.overwritten]
        self.output_restore = OutputRestore.needed(slots, self.flat, self.value_index,
                                                   self.overwritten)
        self.seeded = None  # (start, size) of the unit vectors the stacked x lanes hold

    def _overwritten_tangents(self) -> set:
        """ids of the stacked Cache and Output tangents the code writes in full before reading
        them (analysis/written_first.py): their zeroing is skipped."""
        names = parameters(self.compiled.source)
        if len(names) != len(self.flat):
            return set()
        candidates = {}
        for slot, position in zip(self.slots, self.value_index):
            if slot.role in ("cache", "output") and slot.is_array and slot.value.ndim == 1:
                candidates[names[position + 1]] = slot.value.shape[0]
        shapes = {name: np.shape(value) for name, value in zip(names, self.flat)
                  if isinstance(value, np.ndarray)}
        proven = overwritten_first(self.compiled.source, candidates, shapes)
        self.indexed_only = {id(self.flat[names.index(name)]) for name in candidates
                             if indexed_only(self.compiled.source, name)}
        return {id(self.flat[names.index(name)]) for name in proven}

    def set_values(self, values, positions=None):
        positions = range(len(values)) if positions is None else positions
        for position, v in zip(positions, values):
            self.flat[self.value_index[position]] = v
        if self.input_copy is not None:
            self.input_copy.take(self.flat)
        self.output_restore.take(self.flat)

    def is_current(self) -> bool:
        """False once a name the code was built from has been rebound (prepare again)."""
        return self.compiled.is_current()

    def seed_basis(self, start: int, size: int):
        """Lane k gets the unit vector e_(start + k) (zero past `size`)."""
        if self.stacked:
            if self.seeded == (start, size):  # one chunk of all lanes: the seed is still there
                return
            lanes = self.x_lanes[0].reshape(self.width, -1)
            lanes.fill(0.0)
            count = max(0, min(self.width, size - start))
            np.fill_diagonal(lanes[:count, start:start + count], 1.0)  # a view: no allocation
            # the code writes x's tangent lanes only when f writes x (then it runs on a copy)
            self.seeded = (start, size) if self.input_copy is None else None
            return
        if self.x_float_index:
            for k, index in enumerate(self.x_float_index):
                self.flat[index] = 1.0 if start + k < size else 0.0
            return
        for k, lane in enumerate(self.x_lanes):
            lane.fill(0.0)
            if start + k < size:
                _set_element(lane, start + k)

    def seed(self, tangents):
        """Lane k gets tangents[k] (a float or an x-shaped array)."""
        self.seeded = None
        if self.x_float_index:
            for index, t in zip(self.x_float_index, tangents):
                self.flat[index] = float(t)
        elif self.stacked:
            for k, t in enumerate(tangents):
                self.x_lanes[0][k] = t
        else:
            for lane, t in zip(self.x_lanes, tangents):
                lane[...] = t

    def run(self):
        """(value, tangents) of one call."""
        for buffer in self.zeroed:
            buffer.fill(0.0)
        if self.input_copy is not None:
            self.input_copy.refill()
        self.output_restore.refill(self.flat)
        result = call_generated(self.function, self.flat)
        if self.work_count:  # numba: the workspace, kept (and grown) across calls
            self.flat[-self.work_count:] = kept_tapes(self.flat[-self.work_count:], result[2:])
        return result[0], result[1]

    def write_columns(self, J, start: int, count: int, tangents) -> None:
        """J[:, start + k] = lane k's output tangent (flattened), for k < count."""
        if self.stacked:
            lanes = self.output_lanes[0] if self.output_lanes else np.asarray(tangents[0])
            if lanes.ndim == 0:  # a float output that no lane moves: one tangent for all
                J[:, start:start + count] = lanes
                return
            J[:, start:start + count] = lanes[:count].reshape(count, -1).T
            return
        for k in range(count):
            J[:, start + k] = np.reshape(self.output_tangent(k, tangents), -1)

    def output_tangent(self, k, tangents):
        """Lane k's tangent of the output (an Output array's shadow, or the returned one)."""
        if self.output_lanes:
            return self.output_lanes[0][k] if self.stacked else self.output_lanes[k]
        if self.stacked:
            return np.asarray(tangents[0])[k] if np.ndim(tangents[0]) else tangents[0]
        return tangents[k]


class ReverseEngine:
    """Reverse mode: a cotangent of the output in, the adjoint of x out (`x_bar`)."""

    def __init__(self, f, slots: list, backend: str = "python", array_tapes: bool = False,
                 memory: int | None = None, value_unused: bool = False):
        self.slots, self.backend = slots, backend
        specs = tuple(_spec(s, False, backend) for s in slots)
        self.compiled = _reverse_code(f, specs, backend, array_tapes, memory, value_unused)
        refuse_written_constants(self.compiled, slots)
        self.function = self.compiled.function
        self.flat, self.value_index, self.zeroed = [], [], []
        self.x_bar_index = None
        self.output_shadow = None
        for slot in slots:
            self.value_index.append(len(self.flat))
            self.flat.append(slot.value)
            if slot.role == "constant" or (slot.role == "x" and not slot.is_array):
                continue
            shadow = np.zeros_like(slot.value)
            if slot.role == "x":
                self.x_bar_index = len(self.flat)
            else:
                self.zeroed.append(shadow)
                if slot.role == "output":
                    self.output_shadow = shadow
            self.flat.append(shadow)
        self.seed_index = len(self.flat)
        self.flat.append(1.0)
        # numba backend: tape arrays, kept (and grown) across calls
        self.flat += tape_buffers(self.compiled)
        self.tape_count = len(self.compiled.tapes)
        self.input_copy = InputCopy.needed(self.compiled, slots, self.flat, self.value_index, f)
        self.output_restore = OutputRestore.needed(slots, self.flat, self.value_index)

    def set_values(self, values):
        flat = self.flat
        for index, v in zip(self.value_index, values):
            flat[index] = v
        if self.input_copy is not None:
            self.input_copy.take(flat)
        self.output_restore.take(flat)

    def is_current(self) -> bool:
        """False once a name the code was built from has been rebound (prepare again)."""
        return self.compiled.is_current()

    def run(self, x_bar=None, cotangent=1.0, basis=None):
        """Pull back `cotangent` (or the unit vector e_basis of the output) into `x_bar` (an
        x-shaped buffer, zeroed here); returns (value, adjoints of float x)."""
        flat = self.flat
        if x_bar is not None:
            x_bar.fill(0.0)
            flat[self.x_bar_index] = x_bar
        for buffer in self.zeroed:
            buffer.fill(0.0)
        if self.output_shadow is not None:
            if basis is not None:
                _set_element(self.output_shadow, basis)
            else:
                self.output_shadow[...] = cotangent
        elif basis is not None:
            seed = flat[self.seed_index]
            seed.fill(0.0)
            _set_element(seed, basis)
        else:
            flat[self.seed_index] = cotangent
        if self.input_copy is not None:
            self.input_copy.refill()
        self.output_restore.refill(flat)
        result = call_generated(self.function, flat)
        if self.tape_count:
            flat[-self.tape_count:] = kept_tapes(flat[-self.tape_count:], result[2:])
        return result[0], result[1]


def _reverse_code(f, specs, backend, array_tapes, memory=None, value_unused=False):
    """The reverse code of f. python backend: with its tapes in arrays the engine keeps (as
    numba's), so a prepared call allocates no tape list and no float object per recorded value;
    code that tapes whole arrays keeps its tape lists. numba: `value_unused`, code whose
    returned value is 0.0, for a caller that reads only adjoints (Request.value_unused)."""
    if backend == "python" and array_tapes:
        try:
            compiled = _compiled(f, Request("reverse", specs, backend=backend, array_tapes=True,
                                            memory=memory))
        except SrcadError:
            compiled = None  # refused with array tapes: the list-tape build says why, if at all
        if compiled is not None and set(compiled.tapes) <= {FLOAT_TAPE, INT_TAPE}:
            return compiled
    return _compiled(f, Request("reverse", specs, backend=backend, memory=memory,
                                value_unused=value_unused and backend == "numba"))


class HessianEngine:
    """Forward-over-reverse: the generated reverse code is plain Python, so srcad runs its
    own forward (vector) mode over it. Lane k seeded with v_k ends with H v_k in
    `output_lanes[k]`; f must return a float and x be an array."""

    def __init__(self, f, slots: list, width: int, backend: str = "python"):
        if backend != "python":
            raise SrcadError("hvp and hessian differentiate srcad's generated reverse code, "
                             "which the numba backend compiles to machine code",
                             construct=f"backend={backend!r}", hint="use backend='python'")
        self.backend = backend
        # list tapes, loops taped whole (memory=0): srcad's forward mode runs over this code
        self.reverse = ReverseEngine(f, slots, memory=0)
        inner, scratch, self.user_positions = [], [], []
        for slot in slots:
            self.user_positions.append(len(inner))
            if slot.role == "x":
                inner += [Slot("x", slot.value), Slot("accumulator", np.zeros_like(slot.value))]
            elif slot.role == "cache":  # the cache's shadow: value and lanes zeroed per call
                shadow = np.zeros_like(slot.value)
                inner += [Slot("cache", slot.value), Slot("cache", shadow)]
                scratch.append(shadow)
            else:
                inner.append(Slot("constant", slot.value))
        inner.append(Slot("constant", 1.0))
        self.engine = ForwardEngine(self.reverse.function, inner, width, False)
        self.engine.zeroed.extend(scratch)
        # the reverse code adds grad f into its x_bar, the accumulator: the primal of this pass
        self.gradient = next(s.value for s in inner if s.role == "accumulator")

    def set_values(self, values):
        self.engine.set_values(values, self.user_positions)

    def is_current(self) -> bool:
        return self.reverse.is_current()  # the forward code runs over this reverse code


_wrapper_counter = itertools.count()


@functools.lru_cache(maxsize=None)
def scalar_as_array(f, nargs: int, position):
    """A plain function `g(..., x_array, ...) = f(..., x_array[0], ...)` with real source (so
    srcad can differentiate it, inlining f): operators that need an array input use it for
    float inputs. `position` is one argument's position or a tuple of them."""
    positions = (position,) if isinstance(position, int) else position
    return _wrapper(f, nargs, positions, "{}[0]", "of_array")


@functools.lru_cache(maxsize=None)
def input_copied(f, nargs: int, position: int):
    """A plain function `g(..., x, ...) = f(..., x.copy(), ...)` with real source: second
    order by reverse over forward of an f that writes elements of its input x differentiates
    it (the operators leave the caller's x as it was, as forward over reverse does)."""
    return _wrapper(f, nargs, (position,), "{}.copy()", "of_a_copy")


def _wrapper(f, nargs: int, positions: tuple, argument: str, suffix: str):
    """`def f_<suffix>(arg0, ...): return f(...)`, the arguments at `positions` passed as
    `argument` spells them, compiled from source srcad can read (its file is a WRAPPER)."""
    params = [f"arg{i}" for i in range(nargs)]
    call = ", ".join(argument.format(p) if i in positions else p
                     for i, p in enumerate(params))
    called = function_name(f)  # a lambda's `__name__` is `<lambda>`
    if keyword.iskeyword(called):  # `lambda`, a lambda whose text cannot be read
        called += "_"
    name = f"{called}_{suffix}"
    source = f"def {name}({', '.join(params)}):\n    return {called}({call})\n"
    filename = f"{WRAPPER}{name} #{next(_wrapper_counter)}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    # math and np as the numba backend embeds them (an inlined f's own module names are then
    # these, not aliases numba code could not read)
    namespace = {called: f, "math": math, "np": np}
    exec(compile(source, filename, "exec"), namespace)
    return namespace[name]
