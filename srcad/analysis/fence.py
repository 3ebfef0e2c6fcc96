"""Reject, up front, every construct srcad does not differentiate, with file, line and column,
all of them in one error (`check_syntax`), or each with the node refused (`syntax_refusals`:
normalization sets those statements aside so the later checks report in the same error).

Everything that passes the fence is handled by the later stages or refused there with its own
message (calls without rules, whole-array arithmetic on active arrays).
"""

from __future__ import annotations

import builtins
import types

import gast

from srcad.analysis.global_writes import global_write_refusals
from srcad.analysis.primitives import user_callable
from srcad.errors import UnsupportedSyntaxError
from srcad.frontend import syntax as S
from srcad.frontend.parse import ParsedFunction, library_object
from srcad.rules import lookup_call, lookup_method, method_function
from srcad.rules.numpy_entries import library_keyword_refusal

_REFUSED = {
    gast.Try: ("try/except", "move the error handling outside the differentiated function"),
    gast.With: ("with", "srcad runs differentiable code inside np.errstate(...) (settings "
                "'ignore', 'warn', 'print'), warnings.catch_warnings() and "
                "contextlib.nullcontext() on constants, without `as`; open other resources "
                "outside the differentiated function"),
    gast.AsyncWith: ("async with", "differentiate a plain synchronous function"),
    gast.AsyncFor: ("async for", "differentiate a plain synchronous function"),
    gast.Yield: ("yield", "generators cannot be differentiated"),
    gast.YieldFrom: ("yield from", "generators cannot be differentiated"),
    gast.Await: ("await", "differentiate a plain synchronous function"),
    gast.Lambda: ("lambda", "assign it to a name and call it, call it where it is written, "
                  "or pass it to a function of your own (not in `and`/`or`, a `while` "
                  "condition or a call of a library function), or define it with `def`"),
    gast.ClassDef: ("class definition", "define classes outside and pass numbers or arrays in"),
    gast.FunctionDef: ("nested function definition", "give it named parameters and constant "
                       "defaults (a name defined several times: the same number of "
                       "positional parameters and no defaults in each), or define it at "
                       "module level"),
    gast.AsyncFunctionDef: ("async function", "define the helper at module level"),
    gast.Global: ("global", "pass the value as an argument"),
    gast.Nonlocal: ("nonlocal", "pass the value as an argument and return the new one"),
    gast.Delete: ("del", "let the variable go out of use instead"),
    gast.Import: ("import", "import at module level"),
    gast.ImportFrom: ("import", "import at module level"),
    gast.Raise: ("raise", "check the inputs before calling srcad"),
    gast.ListComp: ("list comprehension", "sum(...), max(...) and min(...) of a comprehension "
                    "are lowered to loops, and so is `ys = [e for v in seq if c]` (several "
                    "`for`s too, over ranges or arrays); write other uses as a for loop"),
    gast.SetComp: ("set comprehension", "write a for loop"),
    gast.DictComp: ("dict comprehension", "write a for loop"),
    gast.GeneratorExp: ("generator expression", "sum(...), max(...) and min(...) of a "
                        "comprehension are lowered to loops; write other uses as a for loop"),
    gast.Dict: ("dict", "use separate variables or a NumPy array"),
    gast.Set: ("set", "use separate variables or a NumPy array"),
    gast.List: ("list", "srcad supports a list literal read by constant index, len/sum/max/min "
                "and loops over it, and a list of floats (a literal, `[0.0] * n`) filled by "
                "appends, `extend([...])`, `+= [...]` or `ys = ys + [...]` (under ifs, in for "
                "loops over ranges or arrays and while loops nested in any depth) that is "
                "otherwise only read (indexed by any "
                "int, len/sum/max/min, np.array, looped over without appending), written by "
                "element (`ys[k] = v`, `ys[k] += v`) or popped (`ys.pop()`, `v = ys.pop()`), "
                "also while it fills, bound once (or by a literal in every arm of an if) and, "
                "when made in a loop body, used only in that body; a literal of ints only by "
                "constant index (write floats, `[0.0] * n`); otherwise use a NumPy array (a "
                "list literal is also accepted as the first argument of np.concatenate, "
                "np.stack, np.hstack, np.vstack and np.array); a list may be passed to and "
                "returned from your own functions (not in an expression that also reads a "
                "list the call changes), bound to another name once in the block that makes "
                "it (`zs = ys`) and copied (`list(ys)`)"),
    gast.JoinedStr: ("f-string", "format strings outside the differentiated function"),
    gast.NamedExpr: ("assignment expression (:=)", "assign in a statement of its own"),
    gast.Starred: ("starred expression", "pass the arguments one by one"),
    gast.Match: ("match", "use if/elif/else"),
}

# builtins that run code given as text or read variables by name: srcad never sees what they
# read, so a derivative through them would be silently missing (`eval("p[0]") * x` gave 0)
_READS_BY_NAME = {builtins.eval: "eval", builtins.exec: "exec", builtins.locals: "locals",
                  builtins.globals: "globals", builtins.vars: "vars"}


def _empty_message(reduce) -> str:
    try:
        reduce(())
    except ValueError as err:
        return str(err)
    raise AssertionError(f"{reduce.__name__}(()) did not raise")  # pragma: no cover


# what max()/min() of an empty sequence raise in this Python (the text changed in 3.12)
EMPTY_REDUCTION = {"max": _empty_message(max), "min": _empty_message(min),
                   # np.split's, raised by the parts srcad unpacks (normalize/split_parts.py)
                   "split": "array split does not result in an equal division",
                   "vsplit": "vsplit only works on arrays of 2 or more dimensions",
                   "dsplit": "dsplit only works on arrays of 3 or more dimensions"}


def check_syntax(parsed: ParsedFunction, body: list | None = None, local_functions=(),
                 top_level: bool = True, enclosing=()) -> None:
    """Raise one UnsupportedSyntaxError listing every refused construct of the function (each
    with its line, column and fix), so that one run shows them all. `body` is the lowered
    body (srcad/transform/normalize/lower.py), `local_functions` the names of the functions it
    defined; `top_level` False checks a helper, which may take keyword-only parameters;
    `enclosing`: the names a local function's caller binds, which it may write into (inlined,
    its writes are the caller's own)."""
    problems = [error for _, error in syntax_refusals(parsed, body, local_functions, top_level,
                                                       enclosing)]
    if problems:
        raise UnsupportedSyntaxError.combine(problems, function=parsed.name,
                                             filename=parsed.filename)


def syntax_refusals(parsed: ParsedFunction, body: list | None = None, local_functions=(),
                    top_level: bool = True, enclosing=()) -> list:
    """(refused node, its UnsupportedSyntaxError) for every construct `check_syntax` refuses;
    the node of a refused signature is the function definition itself."""
    tree = parsed.tree
    body = tree.body if body is None else body
    problems = [(tree, error) for error in _signature_problems(parsed, tree, top_level)]
    allowed = _stack_syntax(tree, parsed.generated) | _stack_syntax_in(body, parsed.generated)
    # a refused `with` is refused once, not its context manager's keywords again
    allowed |= {id(item.context_expr) for stmt in body for n in S.walk(stmt)
                if isinstance(n, gast.With) for item in n.items}
    called = {id(n.func) for stmt in body for n in S.walk(stmt)
              if isinstance(n, gast.Call) and isinstance(n.func, gast.Name)
              and n.func.id in local_functions}
    # a local function passed to a function of the user's: inlining substitutes it
    called |= {id(a) for stmt in body for n in S.walk(stmt) if isinstance(n, gast.Call)
               and _user_call(parsed, n, local_functions)
               for a in n.args + [k.value for k in n.keywords]
               if isinstance(a, gast.Name) and a.id in local_functions}
    # reductions lower.py left in place: in a while condition, `and`/`or`, `x if c else y`
    unlowered = {id(n.args[0]) for stmt in body for n in S.walk(stmt)
                 if isinstance(n, gast.Call) and isinstance(n.func, gast.Name)
                 and n.func.id in ("sum", "max", "min") and n.args
                 and isinstance(n.args[0], (gast.GeneratorExp, gast.ListComp))}
    for stmt in body:
        for node in S.walk(stmt):
            if id(node) in allowed:
                continue
            problem = _problem(parsed, node, local_functions, called)
            if problem is not None and id(node) in unlowered:
                problem = (problem[0], "a sum/max/min of it in a while condition, "
                           "`and`/`or` or `x if c else y` is not lowered to a loop",
                           "assign it to a variable in a statement of its own first")
            if problem is not None:
                problems.append((node, parsed.error(node, *problem[:2], hint=problem[2])))
    return problems + global_write_refusals(parsed, body, local_functions, enclosing)


def _signature_problems(parsed, tree, top_level) -> list:
    args = tree.args
    out = []
    if args.vararg or args.kwarg:
        hint = "name every argument"
        wrapped = getattr(parsed.func, "__wrapped__", None)
        if wrapped is not None and parsed.func.__code__.co_name == tree.name:
            hint = (f"this is a decorator's wrapper of {wrapped.__qualname__}, which srcad "
                    "differentiates as written; differentiate the undecorated function "
                    f"({parsed.func.__name__}.__wrapped__) or a plain `def` that calls it")
        out.append(parsed.error(tree, "*args/**kwargs", "variadic arguments are not supported",
                                hint=hint))
    if args.kwonlyargs and top_level:
        out.append(parsed.error(tree, "keyword-only arguments", "the differentiated function "
                                "takes its arguments by position",
                                hint="make them ordinary positional arguments"))
    if getattr(args, "posonlyargs", None):
        out.append(parsed.error(tree, "positional-only arguments", "the `/` marker is not "
                                "supported", hint="remove the `/` from the signature"))
    return out


def _problem(parsed, node, local_functions, called):
    """(construct, message, hint) when `node` is refused, else None."""
    if isinstance(node, gast.Name) and node.id in local_functions and id(node) not in called:
        return ("local function", f"the local function `{node.id}` can only be called or "
                "passed to a function of your own", "call it directly, or pass it by its name "
                "to your own function; pass its results around, not the function")
    refused = _REFUSED.get(type(node))
    if refused is not None:
        construct, hint = refused
        return construct, "not supported by srcad", hint
    if isinstance(node, gast.Call) and node.keywords and not (
            isinstance(node.func, gast.Name) and node.func.id in local_functions):
        callee = _library_callee(parsed, node.func)
        unfollowed = library_keyword_refusal(node, callee, lookup_call(callee))
        if unfollowed is not None:  # np.add(x, y, out=z), np.var(x, dtype=np.float32)
            return unfollowed
    if isinstance(node, gast.Call) and not (isinstance(node.func, gast.Name)
                                            and node.func.id in local_functions):
        name = next((n for f, n in _READS_BY_NAME.items() if _callee(parsed, node.func) is f),
                    None)
        if name is not None:
            return (f"{name}()", f"`{name}` reads or runs code by name, out of srcad's sight: "
                    "what flows through it would get no derivative",
                    "write the expression itself in the function")
    if isinstance(node, (gast.For, gast.While)) and node.orelse:
        return "loop else", "`else` on a loop is not supported", "use a flag variable"
    if isinstance(node, gast.Attribute) and isinstance(node.ctx, gast.Store):
        return ("attribute assignment", "not supported",
                "keep the value in a variable or an array element")
    if isinstance(node, gast.Call) and node.keywords and not _takes_keywords(parsed, node,
                                                                           local_functions):
        known = _rule_keywords(parsed, node.func)
        unread = [k.arg for k in node.keywords if not (
            k.arg in ("dtype", "axis", "keepdims") or k.arg in known
            or (_without_derivative(parsed, node.func) and k.arg not in ("out", None)))]
        if unread:
            return ("keyword arguments", f"`{unread[0] or '**'}=`: keyword arguments are "
                    "supported in calls to your own functions, enumerate(start=), dtype= of "
                    "array constructors, axis= and keepdims= of reductions and the keywords "
                    "each library function's rule reads only",
                    "the keywords srcad reads of each library function are listed on the "
                    "page Supported functions, docs/functions.md")
    return None


def _without_derivative(parsed, func) -> bool:
    """Is `func` a library function srcad knows has no derivative (np.round, np.argmax)?
    Its keywords (`decimals=`) change a value that carries none."""
    info = lookup_call(_library_callee(parsed, func))
    return info is not None and info.rule is None and info.select is None \
        and info.result != "other"


def _rule_keywords(parsed, func) -> tuple:
    """The keywords the rule table reads for the function `func` names (logsumexp's `b=`),
    or for the array method it names (`x.var(ddof=1)` reads as `np.var(x, ddof=1)`)."""
    info = lookup_call(_library_callee(parsed, func))
    if info is None and _is_method(parsed, func):
        info = lookup_method(func.attr)  # x.round(decimals=1): a method of no NumPy function
    return info.keywords if info is not None else ()


def _library_callee(parsed, func):
    """The object `f` or `module.f` names, or the NumPy function of an array method
    (`x.var` is np.var: its keywords are np.var's), or None."""
    callee = _callee(parsed, func)
    return method_function(func.attr) if callee is None and _is_method(parsed, func) else callee


def _is_method(parsed, func) -> bool:
    """Is `func` an attribute of a value that is not a module (an array's method)?"""
    return isinstance(func, gast.Attribute) \
        and not isinstance(_callee(parsed, func.value), types.ModuleType)


def _callee(parsed, func):
    """The object `f` or `module.f` names, or None."""
    if isinstance(func, gast.Name):
        return _resolved(parsed, func.id)
    if isinstance(func, gast.Attribute):
        base = _callee(parsed, func.value)
        return getattr(base, func.attr, None) \
            if isinstance(base, types.ModuleType) or library_object(base) else None
    return None


def _takes_keywords(parsed, call, local_functions) -> bool:
    """Is `call` a call to one of the user's own functions (whose keywords inlining binds)?"""
    if any(k.arg is None for k in call.keywords):  # f(**options)
        return False
    if isinstance(call.func, gast.Name) and call.func.id not in local_functions \
            and _resolved(parsed, call.func.id) is builtins.enumerate:
        return all(k.arg == "start" for k in call.keywords)  # lowered by desugar: start=
    return _user_call(parsed, call, local_functions)


def _resolved(parsed, name_):
    try:
        return parsed.resolve(name_)
    except KeyError:
        return None


def _user_call(parsed, call, local_functions) -> bool:
    """Is `call` a call to one of the user's own functions, by name (which inlining binds)?"""
    return isinstance(call.func, gast.Name) and user_callable(parsed, call.func, local_functions)


def _stack_syntax_in(body, generated: bool) -> set:
    module = gast.FunctionDef(name="_", args=None, body=body, decorator_list=[], returns=None,
                              type_comment=None)
    return _stack_syntax(module, generated)


def _stack_syntax(tree, generated: bool) -> set:
    """Ids of the list and slice nodes srcad accepts: those its own generated code uses, so
    that generated code can be differentiated again (`tape = []`, a stack of floats or ints,
    in `generated` code only: a stack of the user's is lowered to a buffer by
    srcad/transform/normalize/conditional_lists.py, or refused, as the reverse mode has no
    rule for `pop`,
    and `range(...)[:n]`, the iterations a loop with `break` ran), slices of arrays
    (`x[1:]`, `A[:, k]`, `y[1:] = v`), and list literals listing the arrays NumPy joins
    (`np.stack([a, b])`; the rule table checks the function called). A stack is popped; any
    other list is the user's, and refused unless srcad/transform/normalize/lists.py lowered it."""
    allowed = set()
    popped = {n.func.value.id for n in S.walk(tree) if isinstance(n, gast.Call)
              and isinstance(n.func, gast.Attribute) and n.func.attr == "pop"
              and isinstance(n.func.value, gast.Name)}
    for node in S.walk(tree):
        if isinstance(node, gast.Assign) and isinstance(node.value, gast.List) \
                and not node.value.elts and isinstance(node.targets[0], gast.Name) \
                and node.targets[0].id in popped and generated:
            allowed.add(id(node.value))
        if isinstance(node, gast.Subscript) and isinstance(node.slice, gast.Slice) \
                and isinstance(node.value, gast.Call) and isinstance(node.value.func, gast.Name) \
                and node.value.func.id == "range":
            allowed.add(id(node.slice))
        if isinstance(node, gast.Call) and node.args and isinstance(node.args[0], gast.List) \
                and _called_name(node.func) in _LIST_TAKING:
            allowed.add(id(node.args[0]))  # np.stack([a, b]), np.array([a, b * c])
        if isinstance(node, gast.Call) and _called_name(node.func) == "tensordot":
            allowed.update(id(n) for a in node.args[2:] + [k.value for k in node.keywords]
                           for n in S.walk(a) if isinstance(n, gast.List))  # axes=([1], [0])
        if _is_empty_reduction_raise(node) or (generated and _is_run_time_check(node)):
            allowed.update(id(n) for n in S.walk(node))
        if isinstance(node, gast.Subscript):
            # slices of arrays, read and written: x[1:], A[:, k], y[1:] = v
            parts = node.slice.elts if isinstance(node.slice, gast.Tuple) else [node.slice]
            allowed.update(id(p) for p in parts if isinstance(p, gast.Slice))
    return allowed


# NumPy functions whose first argument may be a list literal (checked again by the rule table,
# which knows the function object)
_LIST_TAKING = {"concatenate", "stack", "hstack", "vstack", "column_stack", "array",
                "fsum", "prod", "fmean",  # math.fsum([a, b]), math.prod, statistics.fmean
                "multi_dot"}  # np.linalg.multi_dot([a, b, c])


def _called_name(func) -> str | None:
    if isinstance(func, gast.Attribute):
        return func.attr
    return func.id if isinstance(func, gast.Name) else None


def _is_run_time_check(node) -> bool:
    """`raise ValueError('srcad: ...')`, a check srcad's generated code makes of the values it
    meets (the rows appended to a list have one length); differentiated again (second
    order), the check stays as it is."""
    exc = node.exc if isinstance(node, gast.Raise) else None
    return isinstance(exc, gast.Call) and isinstance(exc.func, gast.Name) \
        and exc.func.id == "ValueError" and len(exc.args) == 1 and not exc.keywords \
        and isinstance(exc.args[0], gast.Constant) and isinstance(exc.args[0].value, str) \
        and exc.args[0].value.startswith("srcad: ") and node.cause is None


def _is_empty_reduction_raise(node) -> bool:
    """`raise ValueError("max() arg is an empty sequence")`, as srcad/transform/normalize/lower.py
    writes it after the loop of max()/min() of a comprehension (Python raises it there)."""
    exc = node.exc if isinstance(node, gast.Raise) else None
    return isinstance(exc, gast.Call) and isinstance(exc.func, gast.Name) \
        and exc.func.id == "ValueError" and len(exc.args) == 1 and not exc.keywords \
        and isinstance(exc.args[0], gast.Constant) \
        and exc.args[0].value in EMPTY_REDUCTION.values() and node.cause is None
