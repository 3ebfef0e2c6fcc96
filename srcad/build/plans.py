"""The fast path of repeated calls.

An `autodiff` call whose arguments look like an earlier, checked call's (same annotation types,
value types, dtypes and ranks; shapes are compared per call) reuses that call's flattening and
compiled code (a `Plan`); a prepared operator call whose arguments look like the preparation's
(shapes too) refills its buffers without checking them again. The comparison is a small
generated function, one test per property: ~0.5 us for the mixture's two arguments, against
~25 us of checks and cache lookups.

Reverse mode goes one step further: its plan (and a prepared reverse gradient) is one generated
function that matches the arguments, calls the compiled code and builds the result, in one
Python frame (`reverse_entry`); on the mixture, srcad's own Python work per call is ~0.6 us.
"""

from __future__ import annotations

import numpy as np

from srcad.annotations import Annotation, Duplicated
from srcad.build.aliasing import alias_lines
from srcad.build.length_specialization import length_test
from srcad.build.numba_errors import raise_numba_error
from srcad.build.numba_fastmath import fastmath_flags
from srcad.build.running import (
    RUN_AGAIN,
    explain_error,
    refuse_unused_seed,
    run_again,
    tape_buffers,
    tuple_seeds,
)

CONST, ACTIVE, DUPLICATED_ARRAY, DUPLICATED_FLOAT, BATCH_STACKED = range(5)
MISS = object()  # what a reverse entry returns when the arguments do not match its plan


class Plan:
    """A checked call of `f`: its compiled code and how to flatten matching arguments
    (`flat(args)`), or, in reverse mode, the whole call (`run(args, seed)`)."""

    __slots__ = ("code", "mode", "batch", "backend", "compiled", "active", "batched", "flat",
                 "run", "source", "fastmath")

    def __init__(self, f, mode, batch, backend, args, roles, compiled, active):
        self.code, self.mode, self.batch, self.backend = f.__code__, mode, batch, backend
        self.fastmath = fastmath_flags() if backend == "numba" else None  # the code's licences
        self.compiled, self.active = compiled, tuple(active)
        self.batched = BATCH_STACKED in roles
        self.flat = self.run = None
        wrapped = lambda a: isinstance(a, Annotation)  # noqa: E731
        if mode.reverse:
            self.source, self.run = reverse_entry(f, args, roles, wrapped, compiled, active,
                                                  mode.with_primal)
        else:
            self.source, self.flat = matcher(args, roles, wrapped, written=compiled.written,
                                             request=compiled.request)


def matcher(args, roles, wrapped, shapes=False, written=(), request=None):
    """(source, function): `flat(args)`, the flat argument list when `args` look like these
    (`wrapped(a)`: the value is `a.value`; `shapes`: arrays must have these shapes too), else
    None. Roles: CONST passes the value, ACTIVE a float, DUPLICATED_* the value and shadow,
    BATCH_STACKED an array value and its W shadows as one (W, ...) array. `written`: the
    positions f writes, which must not share memory with another argument
    (srcad/build/aliasing.py). `request`: the code's, whose argument lengths the arrays must
    have (srcad/build/length_specialization.py)."""
    env = {}
    lines, flat = _match(args, roles, wrapped, shapes, env, "None", written, request)
    return _define("flat", "args", lines + [f"    return [{', '.join(flat)}]"], env)


def reverse_entry(f, args, roles, wrapped, compiled, active, with_primal):
    """(source, function): `run(args, seed)`, the result of `autodiff(Reverse or
    ReverseWithPrimal, f, *args, seed=seed)` when `args` look like these, else MISS. Tape
    arrays come from, and go back to, `compiled.spare` as on the checked path."""
    env = {"function": compiled.function, "f": f, "explain_error": explain_error}
    lines, flat = _match(args, roles, wrapped, False, env, "MISS", compiled.written,
                         compiled.request)
    lines += _current(compiled, env)
    if compiled.tuple_return:  # one seed per element of the tuple f returns
        env["tuple_seeds"] = tuple_seeds
        lines.append(f"    seed = tuple_seeds(f, seed, {compiled.tuple_return})")
        flat.append("seed")
    elif compiled.returns_value:
        flat.append("1.0 if seed is None else seed")
    else:  # the seeds of its results are the shadows of the arrays it writes
        env["refuse_unused_seed"] = refuse_unused_seed
        lines += ["    if seed is not None:", "        refuse_unused_seed(f)"]
        flat.append("1.0")
    tapes = len(compiled.tapes)
    if tapes:  # take_buffers and kept_tapes (srcad/build/running.py), inlined
        env.update(compiled=compiled, spare=compiled.spare, tape_buffers=tape_buffers)
        lines += ["    try:", "        tapes = spare.pop()",
                  "    except IndexError:", "        tapes = tape_buffers(compiled)"]
        flat += [f"tapes[{i}]" for i in range(tapes)]
    env.update(RUN_AGAIN=RUN_AGAIN, run_again=run_again)
    lines += ["    try:",
              f"        out = function({', '.join(flat)})",
              "    except RUN_AGAIN as raised:",  # srcad/build/running.py
              f"        out = run_again(function, ({', '.join(flat)},), raised, "
              "lambda err: explain_error(err, f, args, seed))",
              "    except Exception as err:",
              "        explain_error(err, f, args, seed)"]
    if tapes:
        grown = " or ".join(f"out[{2 + i}] is not None" for i in range(tapes))
        kept = ", ".join(f"tapes[{i}] if out[{2 + i}] is None else out[{2 + i}]"
                         for i in range(tapes))
        lines += [f"    spare.append([{kept}] if {grown} else tapes)"]
    derivs = ["None"] * len(args)
    for j, position in enumerate(active):  # JAX's rule: a derivative has its input's float type
        value = args[position].value if wrapped(args[position]) else args[position]
        if isinstance(value, np.floating) and type(value) is not np.float64:
            env[f"D{j}"] = type(value)
            derivs[position] = f"D{j}(out[1][{j}])"
        else:
            derivs[position] = f"float(out[1][{j}])"
    derivs = f"({', '.join(derivs)}{',' if len(derivs) == 1 else ''})"
    lines.append(f"    return {derivs}, out[0]" if with_primal else f"    return {derivs}")
    return _define("run", "args, seed", lines, env)


def engine_call_lines(call: str, first: int, count: int) -> list:
    """The lines of a prepared call's plan that run the engine's compiled function on the
    arguments `call` as `out_` (again with a grown tape where it asks: srcad/build/running.py;
    numba's errors said in the user's terms), then keep in `F` the work arrays the call grew
    (its outputs after the value and derivative, for entries `first` to `count` of `F`)."""
    lines = ["    try:", f"        out_ = function({call})",
             "    except RUN_AGAIN as raised:",
             f"        out_ = run_again(function, ({call},), raised)",
             "    except Exception as err:", "        raise_numba_error(err)", "        raise"]
    for i, p in enumerate(range(first, count)):
        lines += [f"    if out_[{2 + i}] is not None:", f"        F[{p}] = out_[{2 + i}]"]
    return lines


def gradient_entry(args, wrapped, engine, buffer, written=()):
    """(source, function): `run(args, out)`, (value, gradient) of a prepared reverse gradient
    whose arguments look like the preparation's `args` (shapes too) and `out` is None or an
    array like the gradient, and the code is current; else MISS. It zeroes and fills `out`
    or `buffer` (None for a float x) and the engine's other shadows, copies x into the
    engine's copy when f writes x (`engines.InputCopy`), and keeps grown tapes in the engine."""
    env = {"function": engine.function, "F": engine.flat, "B": buffer,
           "raise_numba_error": raise_numba_error}
    lines, values = _match(args, [CONST] * len(args), wrapped, True, env, "MISS", written)
    lines += _current(engine.compiled, env)
    if buffer is None:
        lines += ["    if out is not None:", "        return MISS"]
    else:
        env["XD"] = buffer.dtype
        lines += ["    if out is None:", "        x_bar = B",
                  f"    elif type(out) is ndarray and out.shape == {buffer.shape!r} "
                  "and out.dtype is XD:",
                  "        x_bar = out", "    else:", "        return MISS",
                  "    x_bar.fill(0.0)"]
    flat, tapes = [], len(engine.flat) - engine.tape_count
    copy = engine.input_copy  # f writes x: it runs on the preparation's copy of x
    for p, entry in enumerate(engine.flat):
        if copy is not None and p == copy.index:
            env.update(XW=copy.work, copyto=np.copyto)
            lines.append(f"    copyto(XW, {values[engine.value_index.index(p)]})")
            flat.append("XW")
        elif p in engine.value_index:
            flat.append(values[engine.value_index.index(p)])
        elif p == engine.x_bar_index:
            flat.append("x_bar")
        elif p == engine.seed_index:
            flat.append("1.0")
        elif p >= tapes:
            flat.append(f"F[{p}]")
        else:  # a cache's shadow, zeroed per call
            env[f"Z{p}"] = entry
            lines.append(f"    Z{p}.fill(0.0)")
            flat.append(f"Z{p}")
    env.update(RUN_AGAIN=RUN_AGAIN, run_again=run_again)
    lines += engine_call_lines(", ".join(flat), tapes, len(engine.flat))
    lines.append("    return out_[0], float(out_[1][0])" if buffer is None else
                 "    return out_[0], x_bar if out is not None else x_bar.copy()")
    return _define("run", "args, out", lines, env)


def jacobian_entry(args, wrapped, engine, n, m, written=()):
    """(source, function) of `run(args, out)`, (f's output, J) of a prepared forward jacobian
    with stacked lanes (`engine.stacked`), when `args` look like the preparation's (shapes
    too), `out` is None or a C-ordered float64 (m, n) array and the code is current; else
    MISS. None when the preparation is not of that kind (or f writes x: it runs on a copy).

    One call of all n lanes keeps its seeds from call to call; chunks of W lanes are seeded in
    turn. J gets the tangents without a copy when f writes one 1-D Output, the chunks are
    equal and the code only indexes that Output's tangent (`engine.indexed_only`: a reshape
    of a transposed view would copy): the code takes `J.T` (lane k is column k), or its rows
    s .. s+W, as that tangent; otherwise the lanes are copied into J. The Cache and Output
    tangents the code does not provably overwrite first are zeroed (`engine.overwritten`,
    analysis/written_first.py)."""
    width = engine.width
    chunked = width < n
    if not engine.stacked or engine.input_copy is not None or not n * m or (
            chunked and getattr(engine, "output_restore", None) is not None
            and engine.output_restore.indices):  # passes restore the Output
        return None
    outputs = [p for p, slot in zip(engine.value_index, engine.slots) if slot.role == "output"]
    direct = None
    if len(outputs) == 1 and np.ndim(engine.flat[outputs[0]]) == 1 and n % width == 0 \
            and id(engine.flat[outputs[0] + 1]) in engine.indexed_only:
        direct = outputs[0] + 1  # the flat position of the Output's lane array
    env = {"function": engine.function, "F": engine.flat, "E": engine, "empty": np.empty,
           "XD": np.dtype(np.float64), "raise_numba_error": raise_numba_error,
           "asarray": np.asarray}
    lines, values = _match(args, [CONST] * len(args), wrapped, True, env, "MISS", written)
    lines += _current(engine.compiled, env)
    lines += ["    if out is None:", f"        J = empty(({m}, {n}))",
              f"    elif type(out) is ndarray and out.shape == ({m}, {n}) and out.dtype is XD "
              "and out.flags.c_contiguous:",
              "        J = out", "    else:", "        return MISS"]
    zeroed = {id(b) for b in engine.zeroed}
    if direct is not None and id(engine.flat[direct]) in zeroed:
        lines.append("    J.fill(0.0)")  # each chunk's code writes its own columns only
    if chunked:
        lines += [f"    for s in range(0, {n}, {width}):", f"        E.seed_basis(s, {n})"]
    else:  # the x lanes hold e_0 .. e_(n-1) from the first call on
        lines += [f"    if E.seeded != (0, {n}):", f"        E.seed_basis(0, {n})"]
    pad = "        " if chunked else "    "
    flat, tapes = [], len(engine.flat) - engine.work_count
    for p, entry in enumerate(engine.flat):
        if p in engine.value_index:
            flat.append(values[engine.value_index.index(p)])
        elif p == direct:
            flat.append(f"J.T[s:s + {width}]" if chunked else "J.T")
        elif p >= tapes:
            flat.append(f"F[{p}]")  # the workspace: a call may grow it
        else:
            env[f"L{p}"] = entry
            if id(entry) in zeroed:
                lines.append(f"{pad}L{p}.fill(0.0)")
            flat.append(f"L{p}")
    lines += [f"{pad}try:",
              f"{pad}    out_ = function({', '.join(flat)})",
              f"{pad}except Exception as err:",
              f"{pad}    raise_numba_error(err)",
              f"{pad}    raise"]
    for i, p in enumerate(range(tapes, len(engine.flat))):
        lines += [f"{pad}if out_[{2 + i}] is not None:", f"{pad}    F[{p}] = out_[{2 + i}]"]
    if direct is None:  # lane k of the output's tangent is column s + k of J
        lanes = f"L{outputs[-1] + 1}" if outputs else "asarray(out_[1][0])"
        if chunked:
            lines += [f"{pad}c = min({width}, {n} - s)",
                      f"{pad}J[:, s:s + c] = {lanes}[:c].reshape(c, -1).T"]
        else:
            lines.append(f"    J[:, :] = {lanes}[:{n}].reshape({n}, -1).T")  # chunk= > n
    value = values[engine.value_index.index(outputs[0])] if outputs else "out_[0]"
    lines.append(f"    return {value}, J")
    return _define("run", "args, out", lines, env)


def _current(compiled, env) -> list:
    """Lines returning MISS once a global or a closure variable the code was generated from
    has been rebound or a function it read given other code (`Compiled.is_current`,
    unrolled: one test per name)."""
    lines = []
    for i, (namespace, name, obj) in enumerate(compiled.dependencies):
        env[f"G{i}"], env[f"O{i}"] = namespace, obj
        lines += [f"    if G{i}.get({name!r}, MISS) is not O{i}:", "        return MISS"]
    for i, (function, code) in enumerate(compiled.codes):
        env[f"FN{i}"], env[f"CO{i}"] = function, code
        lines += [f"    if FN{i}.__code__ is not CO{i}:", "        return MISS"]
    if compiled.cells:
        tests = []
        for i, (cell, obj) in enumerate(compiled.cells):
            env[f"C{i}"], env[f"P{i}"] = cell, obj
            tests.append(f"C{i}.cell_contents is not P{i}")
        lines += ["    try:", f"        if {' or '.join(tests)}:", "            return MISS",
                  "    except ValueError:",  # an empty cell: the checked path decides
                  "        return MISS"]
    return lines


def _match(args, roles, wrapped, shapes, env, miss, written=(), request=None):
    """(lines, flat): lines binding v<i> (values) and s<i> (shadows) of matching `args`, each
    mismatch returning `miss` (and values sharing memory with a position in `written`:
    srcad/build/aliasing.py; arrays of another length than `request`'s code is specialized
    for: srcad/build/length_specialization.py); flat, the expressions of the flat argument
    list."""
    env.update(ndarray=np.ndarray, MISS=MISS)
    fail = f"        return {miss}"
    names = [f"a{i}" for i in range(len(args))]
    lines = [f"    if len(args) != {len(args)}:", fail]
    if args:
        lines.append(f"    {', '.join(names)}{',' if len(names) == 1 else ''} = args")
    flat = []
    for i, (a, role) in enumerate(zip(args, roles)):
        env[f"K{i}"] = type(a)
        lines += [f"    if type(a{i}) is not K{i}:", fail]
        lines.append(f"    v{i} = a{i}.value" if wrapped(a) else f"    v{i} = a{i}")
        value = a.value if wrapped(a) else a
        lines += _same_kind(f"v{i}", value, f"V{i}", env, shapes, fail)
        if request is not None and not shapes and len(request.specs) == len(args):
            test = length_test(f"v{i}", value, request.specs[i].length, request.backend)
            lines += [f"    if {test}:", fail] if test else []
        if role == CONST:
            flat.append(f"v{i}")
        elif role == ACTIVE:  # a NumPy float as it is (arguments.as_given)
            flat.append(f"v{i}" if isinstance(value, np.floating) else f"float(v{i})")
        elif role == BATCH_STACKED:
            env[f"S{i}"] = a.value.dtype
            lines += [f"    s{i} = a{i}.shadows",
                      f"    if (type(s{i}) is not ndarray or s{i}.shape[0] != {len(a.shadows)} "
                      f"or s{i}.shape[1:] != v{i}.shape",
                      f"            or (s{i}.dtype is not S{i} and s{i}.dtype != S{i})):",
                      fail]
            flat += [f"v{i}", f"s{i}"]
        else:
            assert isinstance(a, Duplicated)
            lines.append(f"    s{i} = a{i}.shadow")
            lines += _same_kind(f"s{i}", a.shadow, f"S{i}", env, shapes, fail)
            if role == DUPLICATED_ARRAY:
                lines += [f"    if s{i}.shape != v{i}.shape:", fail]
                flat += [f"v{i}", f"s{i}"]
            else:
                flat += [f"v{i}" if isinstance(value, np.floating) else f"float(v{i})",
                         f"float(s{i})"]
    return lines + alias_lines(len(args), written, env, fail), flat


def _same_kind(var, example, const, env, shapes, fail) -> list:
    """Lines returning (`fail`) unless `var` has the type (array: dtype and rank, or shape) of
    `example` (`shapes`: an int, or a bool, is `example` too: it may set a shape)."""
    if type(example) is np.ndarray:
        env[const] = example.dtype
        size = f"{var}.shape != {example.shape!r}" if shapes else f"{var}.ndim != {example.ndim}"
        test = (f"type({var}) is not ndarray or {size} "
                f"or ({var}.dtype is not {const} and {var}.dtype != {const})")
    else:
        env[const] = type(example)
        test = f"type({var}) is not {const}"
        if type(example) is str:  # a string argument is part of the code (Text)
            env[const + "_value"] = example
            test += f" or {var} != {const}_value"
        elif shapes and is_shape_value(example):  # an int (or ints) may set a shape
            env[const + "_value"] = example
            test += f" or {var} != {const}_value"
    return [f"    if {test}:", fail]


def is_shape_value(value) -> bool:
    """An int, or a tuple of ints: a value that may set a shape (`x[:n]`, `np.zeros(shape)`)."""
    if isinstance(value, tuple):
        return all(isinstance(v, (int, np.integer)) for v in value)
    return isinstance(value, (int, np.integer))


def _define(name, params, lines, env):
    source = "\n".join([f"def {name}({params}):"] + lines) + "\n"
    exec(compile(source, "<srcad fast path>", "exec"), env)
    return source, env[name]


# operators whose prepared call a preparation runs whole (`Prep.run`): the preparation's
# operator, and whether the operator returns (value, result) or the result alone
WHOLE_CALLS = {"gradient": ("gradient", False), "value_and_gradient": ("gradient", True),
               "jacobian": ("jacobian", False), "value_and_jacobian": ("jacobian", True)}
