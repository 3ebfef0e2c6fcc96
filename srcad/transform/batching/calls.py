"""Batched calls: the NumPy, `math` and builtin functions a batched body may call, each with
how it is lifted (elementwise, a reduction whose axes shift by one, `np.dot` as `@`, an array
built like another). A call of anything else on a batched value is not lifted.

An unbatched call is kept as written.
"""

from __future__ import annotations

import builtins
import math
import types

import gast
import numpy as np

from srcad.transform.batching import core
from srcad.transform.batching.core import NotLiftable, Value, operand, unparsed

_ELEMENTWISE = ("sin", "cos", "tan", "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh",
                "arcsinh", "arccosh", "arctanh", "exp", "exp2", "expm1", "log", "log2", "log10",
                "log1p", "sqrt", "cbrt", "square", "abs", "absolute", "fabs", "negative",
                "positive", "sign", "floor", "ceil", "trunc", "rint", "reciprocal", "maximum",
                "minimum", "fmax", "fmin", "power", "arctan2", "hypot", "logaddexp",
                "logaddexp2", "where", "clip", "isnan", "isfinite", "isinf", "heaviside",
                "copysign", "add", "subtract", "multiply", "divide", "true_divide", "mod",
                "logical_and", "logical_or", "logical_not", "greater", "less", "equal",
                "sinc", "deg2rad", "rad2deg")
NUMPY_ELEMENTWISE = {getattr(np, n) for n in _ELEMENTWISE}
# math's functions of one or two floats and their NumPy counterparts on a batch
MATH_AS_NUMPY = {math.sin: "sin", math.cos: "cos", math.tan: "tan", math.asin: "arcsin",
                 math.acos: "arccos", math.atan: "arctan", math.sinh: "sinh",
                 math.cosh: "cosh", math.tanh: "tanh", math.exp: "exp", math.expm1: "expm1",
                 math.log1p: "log1p", math.sqrt: "sqrt", math.fabs: "fabs",
                 math.floor: "floor", math.ceil: "ceil", math.atan2: "arctan2",
                 math.hypot: "hypot", math.log10: "log10", math.log2: "log2",
                 math.pow: "power", math.erf: None}
REDUCTIONS = {np.sum: "sum", np.mean: "mean", np.prod: "prod", np.max: "max", np.min: "min",
              np.amax: "amax", np.amin: "amin", np.std: "std", np.var: "var", np.any: "any",
              np.all: "all"}
_METHOD_REDUCTIONS = ("sum", "mean", "prod", "max", "min", "std", "var", "any", "all")
_LIKE = {np.zeros_like, np.ones_like, np.empty_like, np.copy}
_CREATED = {np.zeros, np.ones, np.empty, np.full}
_SCANS = (np.cumsum, np.cumprod)
# the modules whose functions write no array they are given (without out=)
_PURE_MODULES = ("numpy", "math", "builtins", "numpy.linalg", "numpy._core.fromnumeric",
                 "numpy._core.numeric", "numpy._core.multiarray", "numpy.lib._shape_base_impl",
                 "numpy.linalg._linalg", "numpy._core.shape_base", "numpy._core.function_base",
                 "numpy.lib._function_base_impl", "numpy.lib._twodim_base_impl")
_JOINS = (np.concatenate, np.stack, np.hstack, np.vstack)
_BUILTIN_AS_NUMPY = {builtins.abs: "abs"}
# Python's `max(x, y)` is x unless y > x (`min`: unless y < x): at a NaN y it is x, where
# np.maximum/np.minimum give NaN; on a batch, the same selection by np.where
_BUILTIN_SELECTIONS = {builtins.max: ">", builtins.min: "<"}


class CallLifter:
    """Lifts the calls of an `Expressions` (srcad/transform/batching/values.py)."""

    def __init__(self, expressions):
        self.expressions = expressions

    def lift(self, node):
        lift = self.expressions.lift
        if isinstance(node.func, gast.Attribute) and not _is_module_path(node.func, lift):
            return self._method(node, lift(node.func.value))
        callee = lift(node.func)
        if callee.obj in _JOINS and len(node.args) == 1 and isinstance(node.args[0], gast.List):
            keywords = {k.arg: lift(k.value) for k in node.keywords}
            parts = [lift(e) for e in node.args[0].elts]
            if any(p.batched for p in parts):
                return self._joined(callee.obj, node, parts, keywords)
        args = [lift(a) for a in node.args]
        keywords = {k.arg: lift(k.value) for k in node.keywords}
        if None in keywords:
            raise NotLiftable("a call with **keywords", node)
        batched = any(v.batched for v in args) or any(v.batched for v in keywords.values())
        obj = callee.obj
        if not isinstance(obj, (np.ufunc, types.BuiltinFunctionType)) and \
                getattr(obj, "__module__", "") not in _PURE_MODULES:
            self.expressions.unknown_calls = True  # it may write an array it is given
        if not batched:  # the arguments' texts: an unbatched `x.shape` is not the example's
            return Value(_call_text(callee.text, args, keywords), False,
                         _unbatched_rank(obj, args, keywords), simple=True)
        if any(v.batched for v in keywords.values()):
            raise NotLiftable("a batched keyword argument", node)
        if obj in _BUILTIN_SELECTIONS and len(args) == 2 and not keywords:
            sign = _BUILTIN_SELECTIONS[obj]
            return self.expressions.elementwise(
                lambda x, y: f"np.where({y} {sign} {x}, {y}, {x})", args, node)
        if obj in NUMPY_ELEMENTWISE or (obj in MATH_AS_NUMPY and MATH_AS_NUMPY[obj]) \
                or (obj in _BUILTIN_AS_NUMPY and len(args) == 1 and not keywords):
            name = callee.text if obj in NUMPY_ELEMENTWISE else \
                "np." + (MATH_AS_NUMPY.get(obj) or _BUILTIN_AS_NUMPY.get(obj))
            extra = "".join(f", {k}={v.text}" for k, v in keywords.items())
            return self.expressions.elementwise(
                lambda *texts: f"{name}({', '.join(texts)}{extra})", args, node)
        if obj in REDUCTIONS:
            return self._reduction(f"np.{REDUCTIONS[obj]}", args[0], args[1:], keywords, node)
        if obj is np.dot and len(args) == 2:
            return self._dot(args[0], args[1], node)
        if obj is np.linalg.inv and len(args) == 1 and args[0].rank == 2:
            return Value(f"np.linalg.inv({args[0].text})", True, 2)  # NumPy inverts stacks
        if obj is np.linalg.solve and len(args) == 2 and args[0].rank == 2 \
                and args[1].rank in (1, 2):
            return _solved(args[0], args[1])
        if obj is np.reshape and len(args) == 2 and not args[1].batched and not keywords:
            length = _shape_length(args[1])
            if length is None:
                raise NotLiftable("np.reshape to a shape of unknown length", node)
            shape = f"({args[1].text},)" if args[1].rank == 0 else f"tuple({args[1].text})"
            return Value(f"np.reshape({args[0].text}, (batch_size,) + {shape})", True, length)
        if obj is np.expand_dims and len(args) == 2 and args[1].rank == 0 and not keywords \
                and args[0].rank is not None:
            axis = _constant(args[1])
            if not -(args[0].rank + 1) <= axis <= args[0].rank:
                raise NotLiftable("np.expand_dims along an axis the value lacks", node)
            shifted = axis + 1 if axis >= 0 else axis
            return Value(f"np.expand_dims({args[0].text}, {shifted})", True, args[0].rank + 1)
        if obj in _LIKE and len(args) == 1 and not keywords:
            return Value(f"{callee.text}({args[0].text})", True, args[0].rank)
        if obj is np.outer and len(args) == 2 and not keywords and \
                args[0].rank == 1 and args[1].rank == 1:
            left = f"{operand(args[0])}[:, :, None]" if args[0].batched else \
                f"{operand(args[0])}[:, None]"
            right = f"{operand(args[1])}[:, None, :]" if args[1].batched else operand(args[1])
            return Value(f"{left} * {right}", True, 2, simple=False)
        if obj is np.transpose and len(args) == 1 and not keywords and args[0].rank is not None:
            axes = (0,) + tuple(range(args[0].rank, 0, -1))
            return Value(f"np.transpose({args[0].text}, {axes})", True, args[0].rank)
        if obj is np.broadcast_to and len(args) == 2 and not keywords and \
                isinstance(args[1].obj, core.ShapeOf) and not args[1].batched:
            rank = args[1].obj.length
            if args[0].rank is None or args[0].rank > rank:
                raise NotLiftable("np.broadcast_to of a value of a higher rank", node)
            return Value(f"np.broadcast_to({core.aligned(args[0], rank)}, (batch_size,) + "
                         f"{operand(args[1])})", True, rank)
        if obj in _SCANS and len(args) == 1 and set(keywords) <= {"axis"} and \
                (args[0].rank == 1 or "axis" in keywords):
            axis = _constant(keywords["axis"]) if "axis" in keywords else 0
            if args[0].rank is None or not -args[0].rank <= axis < args[0].rank:
                raise NotLiftable(f"{callee.text} along an axis the value lacks", node)
            return Value(f"{callee.text}({args[0].text}, axis={axis % args[0].rank + 1})", True,
                         args[0].rank)
        if obj is len and len(args) == 1 and args[0].rank:  # the example's first axis
            return Value(f"{operand(args[0])}.shape[1]", False, 0)
        if obj in (float, int) and len(args) == 1 and args[0].rank == 0:
            kind = "float" if obj is float else "int"
            return Value(f"{operand(args[0])}.astype({kind})", True, 0)
        raise NotLiftable(f"a call of {unparsed(node.func)} on a "
                                      "batched value", node)

    def _joined(self, obj, node, parts, keywords):
        """np.concatenate / np.stack / np.hstack / np.vstack of a list written out: the axis
        shifted past the batch axis, unbatched parts repeated across the batch."""
        ranks = {p.rank for p in parts}
        if len(ranks) != 1 or None in ranks or set(keywords) - {"axis"}:
            raise NotLiftable("a join of parts of different or unknown ranks", node)
        rank = ranks.pop()
        if obj in (np.hstack, np.vstack):
            if rank != 1:
                raise NotLiftable(f"{unparsed(node.func)} of parts of rank {rank}", node)
            obj, axis = (np.concatenate, 0) if obj is np.hstack else (np.stack, 0)
        else:
            axis = _constant(keywords["axis"]) if "axis" in keywords else 0
        out_rank = rank + (1 if obj is np.stack else 0)
        if not (-out_rank <= axis < out_rank) or rank == 0 and obj is np.concatenate:
            raise NotLiftable("a join along an axis the parts lack", node)
        texts = [p.text if p.batched else
                 f"np.broadcast_to({p.text}, (batch_size,) + np.shape({p.text}))"
                 for p in parts]
        name = "concatenate" if obj is np.concatenate else "stack"
        return Value(f"np.{name}([{', '.join(texts)}], axis={axis % out_rank + 1})", True,
                     out_rank)

    def _dot(self, left, right, node):
        if 0 in (left.rank, right.rank):
            return self.expressions.elementwise(lambda a, b: f"{a} * {b}", [left, right], node)
        return core.matmul(left, right, node)

    def _method(self, node, base):
        name = node.func.attr
        args = [self.expressions.lift(a) for a in node.args]
        keywords = {k.arg: self.expressions.lift(k.value) for k in node.keywords}
        if name not in _METHOD_REDUCTIONS + ("copy", "dot"):
            self.expressions.unknown_calls = True  # x.fill(0.0), x.sort(): it may write
        if not base.batched and not any(v.batched for v in args):
            rank = 0 if name in _METHOD_REDUCTIONS and not args and not keywords else \
                base.rank if name == "copy" else None
            return Value(_call_text(f"{operand(base)}.{name}", args, keywords), False, rank)
        if name == "dot" and len(args) == 1 and not keywords:
            return self._dot(base, args[0], node)
        if not base.batched:
            raise NotLiftable(f"the method .{name} with a batched argument", node)
        if name in _METHOD_REDUCTIONS:
            return self._reduction(f"np.{name}", base, args, keywords, node)
        if name == "copy" and not args and not keywords:
            return Value(f"{operand(base)}.copy()", True, base.rank)
        raise NotLiftable(f"the method .{name} of a batched value", node)

    def _reduction(self, function, value, args, keywords, node):
        """A reduction of a batched value over its example's axes (all of them, or `axis`)."""
        if len(args) > 1 or value.rank is None:
            raise NotLiftable(f"{function} with these arguments", node)
        axis = args[0] if args else keywords.pop("axis", None)
        keepdims = keywords.pop("keepdims", None)
        kept = keepdims is not None and keepdims.text == "True"
        if "out" in keywords or "initial" in keywords or "where" in keywords:
            raise NotLiftable(f"{function} with these arguments", node)
        if axis is None or axis.text == "None":
            axes = list(range(1, value.rank + 1))
        else:
            given = axis.obj if isinstance(axis.obj, tuple) else _constant(axis)
            given = given if isinstance(given, tuple) else (given,)
            if not all(-value.rank <= a < value.rank for a in given):
                raise NotLiftable(f"{function} over an axis the value lacks", node)
            axes = [a % value.rank + 1 for a in given]
        if value.rank == 0 and not keywords and not kept:  # of a number: the number
            return value
        rest = "".join(f", {k}={v.text}" for k, v in keywords.items())
        axis_text = "()" if not axes else str(axes[0]) if len(axes) == 1 else str(tuple(axes))
        keep = ", keepdims=True" if kept else ""
        rank = value.rank if kept else value.rank - len(axes)
        return Value(f"{function}({value.text}, axis={axis_text}{keep}{rest})",
                                 True, rank)


def _solved(matrix, rhs):
    """np.linalg.solve on a batch: the matrices stacked (an unbatched one repeated), a
    right-hand vector as a one-column matrix (NumPy 2 reads a stack of vectors as a matrix)."""
    a = matrix.text if matrix.batched else \
        f"np.broadcast_to({matrix.text}, (batch_size,) + np.shape({matrix.text}))"
    b = operand(rhs) if rhs.batched else \
        f"np.broadcast_to({rhs.text}, (batch_size,) + np.shape({rhs.text}))"
    if rhs.rank == 1:
        return Value(f"np.linalg.solve({a}, {b}[..., None])[..., 0]", True, 1)
    return Value(f"np.linalg.solve({a}, {b})", True, 2)


def _call_text(callee, args, keywords):
    parts = [a.text for a in args] + [f"{k}={v.text}" for k, v in keywords.items()]
    return f"{callee}({', '.join(parts)})"


def _constant(value):
    try:
        return int(value.text)
    except ValueError:
        raise NotLiftable(f"the axis {value.text}") from None


def _is_module_path(func, lift) -> bool:
    """`np.sum`, `np.linalg.norm`, `math.sin`: a module's function, not a method."""
    return isinstance(lift(func.value).obj, types.ModuleType)


def _unbatched_rank(obj, args, keywords):
    """The per-example rank of an unbatched call's value, where the callee says it."""
    ranks = [a.rank for a in args]
    if obj in NUMPY_ELEMENTWISE or obj in MATH_AS_NUMPY:
        return None if None in ranks else max(ranks, default=0)
    if obj in (float, int, builtins.abs, len) or (obj in REDUCTIONS and len(args) == 1
                                                   and not keywords):
        return 0
    if obj in REDUCTIONS and args and args[0].rank is not None and \
            set(keywords) <= {"axis", "keepdims"}:
        axis = args[1] if len(args) > 1 else keywords.get("axis")
        kept = "keepdims" in keywords and keywords["keepdims"].text == "True"
        if axis is not None and axis.rank == 0:  # one axis
            return args[0].rank if kept else args[0].rank - 1
    if obj in _LIKE and len(args) == 1:
        return ranks[0]
    if obj in _CREATED and args:
        return _shape_length(args[0])
    if obj is np.reshape and len(args) == 2:
        return _shape_length(args[1])
    if obj is np.linalg.inv and len(args) == 1:
        return ranks[0]
    if obj is np.linalg.solve and len(args) == 2:
        return ranks[1]
    if obj is np.expand_dims and len(args) == 2 and ranks[0] is not None:
        return ranks[0] + 1
    if obj in _SCANS and len(args) == 1:
        return ranks[0] if "axis" in keywords else 1
    if obj in (np.arange, np.linspace):
        return 1
    if obj in (np.eye, np.identity):
        return 2
    return None


def _shape_length(shape):
    """The length of a shape argument: an int gives 1, a tuple written out its length."""
    if shape.rank == 0:
        return 1
    text = shape.text.strip()
    if text.startswith("(") and text.endswith(")"):
        inner = text[1:-1].strip().rstrip(",")
        return 0 if not inner else inner.count(",") + 1 if "(" not in inner else None
    return None
