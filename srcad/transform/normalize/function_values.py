"""Functions as values inside a differentiated function, lowered to what the inliner inlines
(srcad/transform/normalize/inline.py); runs in `lower`, before the fence.

* `r = A if c else B` (and `r op= ...`, `return ...`), the whole right side, whose arms call a
  function of the user's or a lambda, or are lambdas: `if c: r = A` / `else: r = B`, so a call
  in an arm runs only when that arm is taken, as in Python, and is inlined there;
* a nested `def` or `name = lambda ...` inside a loop or branch, or one name defined several
  times: each definition a local function of its own; a name defined once is called as it
  is, one defined several times through a chooser, `name_choice = k` where the k-th
  definition was, and a local function `name` that calls the definition chosen (their
  positional parameters must agree). Free names read the enclosing function's variables
  at the call, as Python's closures do;
* a lambda passed to a function of the user's (`apply(lambda t: t ** 3, x)`): a local
  function, passed by name; the inliner substitutes it for the parameter it is bound to.

>>> from srcad.frontend import syntax as S
>>> body = arms_as_ifs(S.parse_stmts("r = (lambda y: y * y)(x) if c else x"), lambda f: False)
>>> print(S.unparse_header(body[0]), type(body[0].body[0]).__name__)
if c Assign
"""

from __future__ import annotations

import gast

from srcad.analysis.primitives import user_callable  # noqa: F401 (lower imports it here)
from srcad.frontend import syntax as S

_BLOCKS = (gast.If, gast.For, gast.While)



def local_names(body) -> set:
    """Names a nested `def` or `name = lambda ...` of `body` defines (in any block)."""
    out = set()
    for stmt in body:
        for node in S.walk(stmt):
            if isinstance(node, gast.FunctionDef):
                out.add(node.name)
            elif _assigned_lambda(node):
                out.add(node.targets[0].id)
    return out


def _assigned_lambda(node) -> bool:
    return isinstance(node, gast.Assign) and len(node.targets) == 1 \
        and isinstance(node.targets[0], gast.Name) and isinstance(node.value, gast.Lambda)


# -- conditional arms ---------------------------------------------------------------------------
def arms_as_ifs(body: list, calls_user) -> list:
    """`body` with each assignment, augmented assignment or return whose whole value is
    `A if c else B` with an arm that holds a lambda or a call `calls_user(func)` accepts
    made an if statement (nested conditional arms too), in every block."""
    out = []
    for stmt in body:
        if isinstance(stmt, _BLOCKS):
            stmt.body = arms_as_ifs(stmt.body, calls_user)
            stmt.orelse = arms_as_ifs(stmt.orelse, calls_user)
        out.append(_as_if(stmt, calls_user))
    return out


def _as_if(stmt, calls_user):
    value = getattr(stmt, "value", None)
    if not (isinstance(stmt, (gast.Return, gast.AugAssign)) or (
            isinstance(stmt, gast.Assign) and len(stmt.targets) == 1)) \
            or not isinstance(value, gast.IfExp) \
            or not any(_calls_in(arm, calls_user) for arm in (value.body, value.orelse)):
        return stmt
    arms = []
    for arm in (value.body, value.orelse):
        copy = S.clone(stmt)
        copy.value = arm
        arms.append([_as_if(copy, calls_user)])
    return gast.copy_location(gast.If(test=value.test, body=arms[0], orelse=arms[1]), stmt)


def _calls_in(expr, calls_user) -> bool:
    return any(isinstance(node, gast.Lambda) or (isinstance(node, gast.Call)
                                                 and calls_user(node.func))
               for node in S.walk(expr))


# -- definitions in blocks ----------------------------------------------------------------------
def define_in_blocks(lowering, body: list) -> list:
    """`body` with the definitions of each name defined inside a block or more than once made
    local functions of `lowering` (srcad/transform/normalize/lower.py), as the module
    docstring says; a name whose definitions the inliner cannot take (variadic parameters,
    defaults that are not constants, differing parameters) stays as written, for the fence."""
    found: dict = {}  # name -> [(definition statement, its function tree, nested?)]

    def scan(stmts, nested):
        for stmt in stmts:
            tree = stmt if isinstance(stmt, gast.FunctionDef) and not stmt.decorator_list else \
                S.lambda_as_def(stmt.value, stmt.targets[0].id, stmt) \
                if _assigned_lambda(stmt) else None
            if tree is not None:
                found.setdefault(tree.name, []).append((stmt, tree, nested))
            if isinstance(stmt, _BLOCKS):
                scan(stmt.body, True)
                scan(stmt.orelse, True)

    scan(body, False)
    replaced: dict = {}  # id(definition statement) -> what stands for it
    for name_, definitions in found.items():
        if len(definitions) == 1 and not definitions[0][2] \
                or not all(_inlinable(tree) for _, tree, _ in definitions):
            continue
        if len(definitions) == 1:
            lowering.define_local(definitions[0][1])
            replaced[id(definitions[0][0])] = []
            continue
        arities = {_positional(tree) for _, tree, _ in definitions}
        if len(arities) != 1 or any(t.args.defaults or t.args.kwonlyargs
                                    for _, t, _ in definitions):
            continue
        choice = lowering.namer.fresh(f"{name_}_choice")
        chosen = []
        for k, (stmt, tree, _) in enumerate(definitions):
            tree.name = lowering.namer.fresh(name_)
            lowering.define_local(tree)
            chosen.append(tree.name)
            replaced[id(stmt)] = [gast.copy_location(S.assign(S.name(choice), S.const(k)), stmt)]
        lowering.define_local(_chooser(name_, choice, chosen, definitions[0][1]))
    return _replaced(body, replaced) if replaced else body


def _inlinable(tree) -> bool:
    defaults = tree.args.defaults + [d for d in tree.args.kw_defaults if d is not None]
    return not (tree.args.vararg or tree.args.kwarg) \
        and all(isinstance(d, gast.Constant) for d in defaults)


def _positional(tree) -> tuple:
    return len(tree.args.args)


def _chooser(name_, choice, chosen, first) -> gast.FunctionDef:
    """`def name_(<first's parameters>)` returning the call of the definition `choice`
    picks."""
    params = [a.id for a in first.args.args]
    arguments = ", ".join(params)
    lines = [f"def {name_}({arguments}):"]
    for k, definition in enumerate(chosen):
        keyword = "if" if k == 0 else "elif" if k < len(chosen) - 1 else "else"
        test = f" {choice} == {k}" if keyword != "else" else ""
        lines += [f"    {keyword}{test}:", f"        return {definition}({arguments})"]
    tree = S.parse_stmts("\n".join(lines) + "\n")[0]
    for node in S.walk(tree):
        if isinstance(node, (gast.stmt, gast.expr)):
            gast.copy_location(node, first)
    return tree


def _replaced(stmts, replaced) -> list:
    out = []
    for stmt in stmts:
        if id(stmt) in replaced:
            out.extend(replaced[id(stmt)])
            continue
        if isinstance(stmt, _BLOCKS):
            stmt.body = _replaced(stmt.body, replaced) or [gast.copy_location(gast.Pass(), stmt)]
            stmt.orelse = _replaced(stmt.orelse, replaced)
        out.append(stmt)
    return out


# -- lambdas passed -----------------------------------------------------------------------------
def name_passed_lambdas(lowering, call) -> None:
    """Each lambda passed to `call`, a call of a function of the user's, made a local function
    of `lowering` and passed by its name (`passed_lambda`)."""
    if not user_callable(lowering.parsed, call.func, lowering.local_functions) \
            or isinstance(call.func, gast.Lambda):
        return
    for holder, field in [(call.args, k) for k in range(len(call.args))] + \
            [(keyword, "value") for keyword in call.keywords]:
        value = holder[field] if isinstance(holder, list) else getattr(holder, field)
        if not isinstance(value, gast.Lambda):
            continue
        name_ = lowering.namer.fresh("passed_lambda")
        if lowering.define_local(S.lambda_as_def(value, name_, value)):
            named = gast.copy_location(S.name(name_), value)
            if isinstance(holder, list):
                holder[field] = named
            else:
                setattr(holder, field, named)
