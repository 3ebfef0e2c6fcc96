"""`parallel=True` on the operators and their preparations.

Every first-order operator is linear in f: when `srcad.scale.row_sums` proves f(x, data) to be the
sum of f(x, chunk) over consecutive chunks of data's rows, its gradient, jacobian, pushforward
(J v), derivative and pullback (u^T J) are the sums of those of the chunks too, for every x,
tangent and cotangent. So `op(f, x, Constant(data), backend="numba", parallel=True)` prepares
`op` once per chunk of rows (each preparation with its own buffers and tapes), runs the chunks
on numba's threads and adds their results in chunk order: the same bits on every call, equal
to parallel=False up to the order of the additions. The data must be a Constant (x is what
is differentiated, never split).

Refused, naming the operator: the second-order operators (hvp, hessian, second_derivative
run srcad's forward mode over its generated Python reverse code, on the python backend only:
there is no numba code to run on threads), any backend but numba, and memory= (as for
`autodiff(..., parallel=True)`).
"""

from __future__ import annotations

import inspect

import numpy as np

from srcad.annotations import Constant
from srcad.build.differentiate import _target
from srcad.errors import ArgumentError
from srcad.operators.preparation import PreparationMismatchError, keywords_as_constants
from srcad.scale import parallel
from srcad.scale.parallel import check_parallel_options, chunk_bounds, data_argument, run_chunks

# operator -> the preparation it runs (prepare_<that>)
_PREPARED_BY = {
    "gradient": "gradient", "value_and_gradient": "gradient",
    "jacobian": "jacobian", "value_and_jacobian": "jacobian",
    "pushforward": "pushforward", "derivative": "derivative", "pullback": "pullback",
}
_SECOND_ORDER = ("hvp", "gradient_and_hvp", "hessian", "second_derivative")
# keywords of a call, not of its preparation (each call may bring new ones)
_CALL_KEYWORDS = ("tangent", "cotangent")
_ENTRIES = {}  # name -> its ParallelEntry


def parallel_option(operator: str):
    """Mark an operator or a `prepare_*` (below its `operator_entry`) as taking `parallel=True`
    and a ParallelPreparation as `prep=`: operator_entry hands those calls to its
    ParallelEntry; parallel=False changes nothing. (No wrapper of its own: a prepared call
    costs no more than before.)"""
    def decorate(op):
        op.parallel_entry = ParallelEntry(operator)
        return op
    return decorate


class ParallelEntry:
    """An operator's calls with `parallel=` or a ParallelPreparation; `public` is the operator
    as users call it (operator_entry sets it)."""

    def __init__(self, operator):
        self.operator, self.public = operator, None
        _ENTRIES[operator] = self

    def __call__(self, f, args, options):
        prep, out = options.pop("prep", None), options.pop("out", None)
        if options.pop("parallel", False) or type(prep) is ParallelPreparation:
            return _parallel_operator(self.operator, f, args, prep, out, options)
        if prep is not None:  # parallel=False: the operator as usual
            options["prep"] = prep
        if out is not None:
            options["out"] = out
        return self.public(f, *args, **options)


def _parallel_operator(operator, f, args, prep, out, options):
    kind = operator.removeprefix("prepare_")
    if kind in _SECOND_ORDER:
        raise ArgumentError(f"parallel=True splits first-order derivatives of a sum over rows "
                            f"into chunks on threads; {kind} (second order) does not run in "
                            "chunks", construct="parallel",
                            hint=f"leave parallel= out of {operator}")
    args = _bound(operator, f, args, options)
    if operator.startswith("prepare_"):
        if prep is not None or out is not None:
            raise ArgumentError(f"{operator} takes no prep= or out=", construct="prep")
        return ParallelPreparation(kind, f, args, options, operator)
    call_keywords = {k: options[k] for k in _CALL_KEYWORDS if k in options}
    if prep is None:
        prep = ParallelPreparation(_PREPARED_BY[operator], f, args, options, operator)
    else:
        prep.check_call(operator, options)
    return prep.call(operator, f, args, call_keywords, out)


def _bound(operator, f, args, options):
    """args with f's keyword arguments (taken out of `options`) and defaults appended as
    Constants, as every operator binds them (srcad/operators/preparation.py: operator_entry)."""
    taken = inspect.signature(_ENTRIES[operator].public).parameters
    keywords = {k: options.pop(k) for k in list(options) if k not in taken}
    f = _target(f)
    if keywords or len(args) != f.__code__.co_argcount:
        args = keywords_as_constants(f, args, keywords)
    return args


class ParallelPreparation:
    """What `prepare_<operator>(..., parallel=True)` returns: one preparation of the operator
    per chunk of the rows of f's Constant data, run on threads, their results added in chunk
    order."""

    splits_rows = True  # what operator_entry looks for in prep=

    def __init__(self, operator, f, args, options, called=None):
        """`operator` to prepare per chunk (prepare_<operator>), by the `called` one."""
        options = dict(options)
        check_parallel_options(options.get("backend"), options.pop("memory", None),
                               called or operator)
        self.operator, self.options = operator, options
        self.function = _target(f)
        self.position, data = data_argument(self.function, args,
                                            f"{operator} with parallel=True", operator=True)
        self.rows = len(data)
        self.bounds = chunk_bounds(self.rows, parallel.thread_count())
        prepare = _ENTRIES[f"prepare_{operator}"].public
        self.preps = [prepare(self.function, *self._chunk(args, start, stop), **options)
                      for start, stop in self.bounds]

    def _chunk(self, args, start, stop):
        chunk_args = list(args)
        chunk_args[self.position] = Constant(args[self.position].value[start:stop])
        return chunk_args

    def check_call(self, operator, options):
        """An operator given this preparation as prep=: it must be the operator it was made
        for, with no option other than the preparation's."""
        if _PREPARED_BY.get(operator) != self.operator:
            raise PreparationMismatchError(f"this parallel preparation prepares "
                                           f"{self.operator}, not {operator}",
                                           hint=f"call prepare_{_PREPARED_BY.get(operator)} "
                                           "with parallel=True")
        for key, value in options.items():
            if key in _CALL_KEYWORDS or value is None:
                continue
            if key == "memory":
                check_parallel_options("numba", value, operator)
            if self.options.get(key) != value:
                raise PreparationMismatchError(f"the parallel preparation was made with "
                                               f"{key}={self.options.get(key)!r}; this call "
                                               f"asks for {key}={value!r}",
                                               hint=f"leave {key}= out of the call")

    def call(self, operator, f, args, call_keywords, out):
        """operator(f, *args, **call_keywords) as the sum of its chunks' results; with out=
        the sum is written into `out` (the first chunk's call fills it, the others are added)."""
        data = args[self.position] if len(args) > self.position else None
        if _target(f) is not self.function or not isinstance(data, Constant) \
                or len(data.value) != self.rows:
            raise PreparationMismatchError("this parallel preparation was made for another "
                                           f"function or another row count ({self.rows} rows)",
                                           hint="prepare again for these arguments")
        op = _ENTRIES[operator].public

        def run(k):
            start, stop = self.bounds[k]
            given = {"out": out} if out is not None and k == 0 else {}
            return op(self.function, *self._chunk(args, start, stop), prep=self.preps[k],
                      **call_keywords, **given)

        results = run_chunks(run, len(self.bounds))
        total = results[0]
        for result in results[1:]:
            total = _add(total, result)
        return total


def _add(total, result):
    """total + result, in place into total's arrays (a chunk's own result, or out=)."""
    if isinstance(total, tuple):
        return tuple(_add(a, b) for a, b in zip(total, result))
    if isinstance(total, np.ndarray):
        total += result
        return total
    return total + result
