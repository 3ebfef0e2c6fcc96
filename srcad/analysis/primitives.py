"""Which array primitive an expression node applies: one answer for the type analysis, the
activity analysis and the transformations.

`array_call(norm, node)` recognizes the spellings of an array primitive: a NumPy function
with a rule `select` (`np.sum(x, axis=0)`), an array method (`x.sum(axis=0)`, `x.dot(y)`),
the transpose attribute `x.T`, the parts `.sign` and `.logabsdet` of `np.linalg.slogdet(A)`
and the operator `x @ y`. It returns the call's facts, its
operand expressions and its literal keywords (`axis`, `keepdims`); `select_rule` then picks
the rule for the operands' ranks.
"""

from __future__ import annotations

import functools
import types
from dataclasses import dataclass

import gast
import numpy as np

from srcad import rules as R
from srcad.errors import SecondOrderRefusal, SrcadError, UnsupportedSyntaxError
from srcad.frontend.parse import library_object, resolve_callee


@dataclass(frozen=True)
class ArrayCall:
    info: R.CallInfo
    operands: list
    keywords: dict


def array_call(norm, node) -> ArrayCall | None:
    """The array primitive `node` applies, or None (also for every scalar-only spelling the
    scalar rules already cover: operators other than `@`, math functions)."""
    if isinstance(node, gast.BinOp) and isinstance(node.op, gast.MatMult):
        return ArrayCall(R.table.MATMUL_OPERATOR, [node.left, node.right], {})
    if isinstance(node, gast.Attribute) and node.attr == "T" and not _is_module(norm, node.value):
        return ArrayCall(R.table.TRANSPOSE_ATTRIBUTE, [node.value], {})
    if isinstance(node, gast.Attribute) and node.attr in R.table.SLOGDET_PARTS \
            and isinstance(node.value, gast.Call) and len(node.value.args) == 1 \
            and resolve_callee(norm.parsed, node.value.func, norm.extra_names) \
            is np.linalg.slogdet:  # `s, ld = np.linalg.slogdet(A)`, unpacked by desugar
        return ArrayCall(R.table.SLOGDET_PARTS[node.attr], list(node.value.args), {})
    info = None
    part = _part(norm, node)  # np.linalg.eigh(A).eigenvectors, np.linalg.svd(A)[1]
    if part is not None:
        info, node = part
    if not isinstance(node, gast.Call):
        return None
    func, args = node.func, list(node.args)
    if info is None and isinstance(func, gast.Attribute) and not _is_module(norm, func.value):
        info = R.lookup_method(func.attr)
        args = [func.value] + args
    if info is None:
        obj = resolve_callee(norm.parsed, func, norm.extra_names)
        info = R.lookup_call(obj)
        if info is None and args and isinstance(args[0], (gast.List, gast.Tuple)):
            info = R.table.lookup_listed(obj)  # math.fsum([a, b])
        elif info is None and args:
            info = R.table.lookup_of_arrays(obj)  # math.fsum(v) of a vector v
    if info is None or info.select is None:
        return None
    if info.name == "array" and args and isinstance(args[0], (gast.List, gast.Tuple)):
        info = R.table.ARRAY_OF_LIST
    if info.sequence and not (args and isinstance(args[0], (gast.List, gast.Tuple))):
        raise norm.parsed.error(node, info.name, f"{info.name} of a value that is not a list "
                                "or tuple written out", hint=f"list the arrays in the call: "
                                f"np.{info.name}([a, b])")
    if info.name == "transpose" and len(args) > 2:  # x.transpose(1, 0, 2): the axes listed
        args = [args[0], gast.Tuple(elts=args[1:], ctx=gast.Load())]
    if info.shape_arguments and len(args) == 2 and isinstance(args[1], gast.Tuple) \
            and args[1].elts:  # (x.reshape(()) keeps its shape value of no axis)
        args = [args[0]] + list(args[1].elts)  # x.reshape((n, m)) is x.reshape(n, m)
    keywords, operand_keywords = {}, []
    for name, value in zip(info.leading, args):  # np.einsum("ij,jk", a, b): literals first
        keywords[name] = _literal(norm, node, info.name, name, value)
    args = args[len(info.leading):]
    count = len(args) if not info.keywords or info.operand_count < 0 else info.operand_count
    for name, value in list(zip(info.keywords, args[count:])) + \
            [(k.arg, k.value) for k in node.keywords]:
        if name == "dtype" and info.constructor:
            continue  # np.full(n, x, dtype=int): the type analysis reads it
        if name not in info.keywords:
            raise norm.parsed.error(node, info.name, f"the keyword `{name}` of {info.name}",
                                    hint=f"srcad knows {', '.join(info.keywords) or 'none'}")
        if name in info.operand_keywords:  # logsumexp(a, b=w): w is an operand
            if not (isinstance(value, gast.Constant) and value.value is None):
                keywords[name] = True
                operand_keywords.append((info.operand_keywords.index(name), value))
            continue
        keywords[name] = _literal(norm, node, info.name, name, value)
    if part is None and info.result == "other" and keywords.get("compute_uv", True):
        return None  # a tuple (np.linalg.eigh(A)): its parts are the primitives
    if info.sequence:  # np.stack([a, b], axis=1): the listed values are the operands
        listed = [e for a in args[:count] if isinstance(a, (gast.List, gast.Tuple))
                  for e in a.elts]  # math.dist([a, b], [c, d]): both lists'
        return ArrayCall(info, listed, keywords)
    # in the table's order, however the call orders them (np.linspace(a, num=n, stop=b))
    return ArrayCall(info, args[:count] + [v for _, v in sorted(operand_keywords,
                                                                key=lambda p: p[0])], keywords)


def _part(norm, node):
    """(the part's facts, the call) for a part of the tuple a decomposition returns."""
    if isinstance(node, gast.Attribute):
        key = node.attr
    elif isinstance(node, gast.Subscript) and isinstance(node.slice, gast.Constant) \
            and type(node.slice.value) is int:
        key = node.slice.value
    else:
        return None
    if not isinstance(node.value, gast.Call) or not isinstance(node.value.func,
                                                               (gast.Name, gast.Attribute)):
        return None
    info = R.table.lookup_part(resolve_callee(norm.parsed, node.value.func, norm.extra_names),
                               key)
    return None if info is None else (info, node.value)


def select_rule(norm, node, call: ArrayCall, ranks) -> R.Rule:
    """The rule of `call` for operands of these ranks (0 for floats); refusals are located
    at `node`."""
    if not call.info.sequence and any(isinstance(o, gast.List) for o in call.operands):
        # np.prod([a, b]): the list's values are not the rule's operands (a wrong zero)
        raise norm.parsed.error(node, call.info.name, f"{call.info.name} of a list written "
                                "out", hint=f"pass an array: np.{call.info.name}(np.array([...]))")
    try:
        return call.info.select(tuple(ranks), call.keywords)
    except SrcadError as error:  # a refusal second order meets keeps its kind (in_user_code)
        kind = type(error) if isinstance(error, SecondOrderRefusal) else UnsupportedSyntaxError
        raise norm.parsed.error(node, error.construct, error.message, hint=error.hint,
                                kind=kind) from None


def _literal(norm, node, fname, name, value):
    try:
        return _evaluate(value)
    except ValueError:
        pass
    sign = 1.0
    if isinstance(value, gast.UnaryOp) and isinstance(value.op, gast.USub):
        sign, value = -1.0, value.operand
    if isinstance(value, (gast.Name, gast.Attribute)):  # ord=np.inf, ord=-np.inf
        try:
            constant = resolve_callee(norm.parsed, value, norm.extra_names)
        except (KeyError, AttributeError):
            constant = None
        if isinstance(constant, float):
            return sign * constant
    if (fname, name) in _DATA_KEYWORDS:  # an array of data, not a setting
        raise norm.parsed.error(node, fname, f"`{name}=` of {fname} is an array srcad does "
                                "not follow", hint=_DATA_KEYWORDS[fname, name])
    raise norm.parsed.error(node, fname, f"`{name}=` of {fname} is not a literal",
                            hint=f"write {name}= as a literal (axis=0, keepdims=True, "
                            "ord=np.inf): what the call computes depends on it")


# keywords that take data rather than a setting, and what to write instead
_DATA_KEYWORDS = {("trapezoid", "x"): "pass the spacing as dx= (a number), or write the sum "
                  "out: np.sum((x[1:] - x[:-1]) * (y[1:] + y[:-1])) / 2"}


def _evaluate(value):
    if isinstance(value, gast.Constant):
        return value.value
    if isinstance(value, (gast.Tuple, gast.List)):  # axes=([1], [0]) as tuples
        return tuple(_evaluate(e) for e in value.elts)
    if isinstance(value, gast.UnaryOp) and isinstance(value.op, gast.USub):
        return -_evaluate(value.operand)
    raise ValueError(value)


def _is_module(norm, node) -> bool:
    obj = resolve_callee(norm.parsed, node, norm.extra_names) \
        if isinstance(node, (gast.Name, gast.Attribute)) else None
    return isinstance(obj, types.ModuleType) or library_object(obj)



def effect_call(norm, node) -> str | None:
    """What the call of an expression statement (`f(...)` alone on its line, made for its
    effect) is: "add.at" for `np.add.at(a, idx, v)` (a rule: it adds v into a at idx),
    "print", "call" for any other call, whose writes into its arguments srcad cannot see; None
    when `node` is not a call."""
    if not isinstance(node, gast.Call):
        return None
    func = node.func
    if isinstance(func, gast.Attribute) and func.attr == "at" and len(node.args) == 3 \
            and not node.keywords and resolve_callee(norm.parsed, func.value,
                                                     norm.extra_names) is np.add:
        return "add.at"
    obj = resolve_callee(norm.parsed, func, norm.extra_names) \
        if isinstance(func, (gast.Name, gast.Attribute)) else None
    return "print" if obj is print else "call"


def effect_operands(node) -> list:
    """The values a call made for its effect receives: its arguments and, for a method, the
    variable it is called on (`z` in `z.fill(c)`)."""
    operands = list(node.args) + [k.value for k in node.keywords]
    if isinstance(node.func, gast.Attribute) and isinstance(node.func.value, gast.Name):
        operands.append(node.func.value)
    return operands


def user_callable(parsed, func, local_names) -> bool:
    """Might `func` (a call's function expression) name a plain Python function of the
    user's: a local function, or a Python function without a derivative rule?"""
    if isinstance(func, gast.Lambda):
        return True
    if isinstance(func, gast.Name) and func.id in local_names:
        return True
    obj = resolve_callee(parsed, func, {})
    if R.lookup_call(obj) is not None:  # a function with a rule (srcad.custom_jvp)
        return False
    obj = getattr(obj, "__srcad_wrapped__", obj)
    if isinstance(obj, functools.partial):
        obj = obj.func
    return isinstance(obj, types.FunctionType) and R.lookup_call(obj) is None \
        and not getattr(obj, "srcad_constant_block", False)  # runs as is: constant_blocks.py
