"""Reject, up front, every construct srcad does not differentiate, with file and line.

Everything that passes the fence is handled by the later stages or refused there with its own
message (calls without rules, whole-array arithmetic on active arrays).
"""

from __future__ import annotations

import gast

from srcad.parse import ParsedFunction

_REFUSED = {
    gast.Try: ("try/except", "move the error handling outside the differentiated function"),
    gast.With: ("with", "open resources outside the differentiated function"),
    gast.AsyncWith: ("async with", "differentiate a plain synchronous function"),
    gast.AsyncFor: ("async for", "differentiate a plain synchronous function"),
    gast.Yield: ("yield", "generators cannot be differentiated"),
    gast.YieldFrom: ("yield from", "generators cannot be differentiated"),
    gast.Await: ("await", "differentiate a plain synchronous function"),
    gast.Lambda: ("lambda", "define a module-level function with `def` and call it"),
    gast.ClassDef: ("class definition", "define classes outside and pass numbers or arrays in"),
    gast.FunctionDef: ("nested function definition", "define the helper at module level"),
    gast.AsyncFunctionDef: ("async function", "define the helper at module level"),
    gast.Global: ("global", "pass the value as an argument"),
    gast.Nonlocal: ("nonlocal", "pass the value as an argument and return the new one"),
    gast.Delete: ("del", "let the variable go out of use instead"),
    gast.Import: ("import", "import at module level"),
    gast.ImportFrom: ("import", "import at module level"),
    gast.Raise: ("raise", "check the inputs before calling srcad"),
    gast.ListComp: ("list comprehension", "write a for loop"),
    gast.SetComp: ("set comprehension", "write a for loop"),
    gast.DictComp: ("dict comprehension", "write a for loop"),
    gast.GeneratorExp: ("generator expression", "write a for loop"),
    gast.Dict: ("dict", "use separate variables or a NumPy array"),
    gast.Set: ("set", "use separate variables or a NumPy array"),
    gast.List: ("list", "use a NumPy array; a list literal is accepted as the first argument "
                "of np.concatenate, np.stack, np.hstack, np.vstack and np.array"),
    gast.JoinedStr: ("f-string", "format strings outside the differentiated function"),
    gast.NamedExpr: ("assignment expression (:=)", "assign in a statement of its own"),
    gast.Starred: ("starred expression", "pass the arguments one by one"),
    gast.Match: ("match", "use if/elif/else"),
}


def check_syntax(parsed: ParsedFunction, tree: gast.FunctionDef | None = None) -> None:
    """Raise UnsupportedSyntaxError at the first refused construct of the function body."""
    tree = tree or parsed.tree
    args = tree.args
    if args.vararg or args.kwarg:
        raise parsed.error(tree, "*args/**kwargs", "variadic arguments are not supported",
                           hint="name every argument")
    if args.kwonlyargs:
        raise parsed.error(tree, "keyword-only arguments", "only positional arguments are "
                           "supported", hint="make them ordinary positional arguments")
    if getattr(args, "posonlyargs", None):
        raise parsed.error(tree, "positional-only arguments", "the `/` marker is not "
                           "supported", hint="remove the `/` from the signature")
    allowed = _stack_syntax(tree)
    for stmt in tree.body:
        for node in gast.walk(stmt):
            if id(node) in allowed:
                continue
            refused = _REFUSED.get(type(node))
            if refused is not None:
                construct, hint = refused
                raise parsed.error(node, construct, "not supported by srcad", hint=hint)
            if isinstance(node, (gast.For, gast.While)) and node.orelse:
                raise parsed.error(node, "loop else", "`else` on a loop is not supported",
                                   hint="use a flag variable")
            if isinstance(node, gast.Attribute) and isinstance(node.ctx, gast.Store):
                raise parsed.error(node, "attribute assignment", "not supported",
                                   hint="keep the value in a variable or an array element")
            if isinstance(node, gast.Call) and node.keywords:
                if not all(k.arg in ("dtype", "axis", "keepdims") for k in node.keywords):
                    raise parsed.error(node, "keyword arguments", "calls with keyword arguments "
                                       "are not supported (except dtype= of array constructors, "
                                       "axis= and keepdims= of reductions)",
                                       hint="pass the arguments by position")


def _stack_syntax(tree) -> set:
    """Ids of the list and slice nodes srcad accepts: those its own generated code uses, so
    that generated code can be differentiated again (`tape = []`, a stack of floats or ints,
    and `range(...)[:n]`, the iterations a loop with `break` ran), slices of arrays
    (`x[1:]`, `A[:, k]`, `y[1:] = v`), and list literals listing the arrays NumPy joins
    (`np.stack([a, b])`; the rule table checks the function called)."""
    allowed = set()
    for node in gast.walk(tree):
        if isinstance(node, gast.Assign) and isinstance(node.value, gast.List) \
                and not node.value.elts and isinstance(node.targets[0], gast.Name):
            allowed.add(id(node.value))
        if isinstance(node, gast.Subscript) and isinstance(node.slice, gast.Slice) \
                and isinstance(node.value, gast.Call) and isinstance(node.value.func, gast.Name) \
                and node.value.func.id == "range":
            allowed.add(id(node.slice))
        if isinstance(node, gast.Call) and node.args and isinstance(node.args[0], gast.List) \
                and _called_name(node.func) in _LIST_TAKING:
            allowed.add(id(node.args[0]))  # np.stack([a, b]), np.array([a, b * c])
        if isinstance(node, gast.Subscript):
            # slices of arrays, read and written: x[1:], A[:, k], y[1:] = v
            parts = node.slice.elts if isinstance(node.slice, gast.Tuple) else [node.slice]
            allowed.update(id(p) for p in parts if isinstance(p, gast.Slice))
    return allowed


# NumPy functions whose first argument may be a list literal (checked again by the rule table,
# which knows the function object)
_LIST_TAKING = {"concatenate", "stack", "hstack", "vstack", "array"}


def _called_name(func) -> str | None:
    if isinstance(func, gast.Attribute):
        return func.attr
    return func.id if isinstance(func, gast.Name) else None
