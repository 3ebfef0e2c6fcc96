"""One second-order pass for a run of a nested gradient's adjoints in numba code.

The reverse sweep through `gx = srcad.grad(g)(x, p)` asks for the adjoint of each
differentiated operand in a row, with the same operands and seed:

    x_bar += unshared(x_bar, srcad_nested_adjoint_1_0(x, p, gx_bar))
    p_bar += unshared(p_bar, srcad_nested_adjoint_1_1(x, p, gx_bar))

and one forward-over-reverse pass of g gives them all. The python backend keeps the last pass
(srcad/operators/nested.py); numba kernels keep nothing, so each call ran the pass again. This
rewrite gives such a run one kernel call returning every adjoint it asks for, before its first
statement, and each statement reads its own:

    srcad_adjoints_1 = srcad_nested_adjoints_1_0_1(x, p, gx_bar)
    x_bar += unshared(x_bar, srcad_adjoints_1[0])
    p_bar += unshared(p_bar, srcad_adjoints_1[1])

Guarantees: a run is merged only when its calls are adjacent statements of one block, name
the same token and operands (the same source text), each a different operand, and no
statement before a call in the run binds or writes a name the operands read, and every name
those statements write is a parameter of the function or a name only ever bound to a new
array (an allocation or arithmetic: never another name, a subscript or an attribute, which
could be a view of an operand); otherwise the calls stay as they were.

>>> import gast
>>> tree = gast.parse('''
... def f(x, p, g_bar, x_bar, p_bar):
...     x_bar += srcad_nested_adjoint_1_0(x, p, g_bar)
...     p_bar += srcad_nested_adjoint_1_1(x, p, g_bar)
... ''')
>>> runs = shared_adjoint_runs(tree)
>>> runs
[(1, (0, 1))]
>>> from srcad.build.codegen import to_source
>>> print(to_source(tree).strip().splitlines()[1])
    srcad_adjoints_1 = srcad_nested_adjoints_1_0_1(x, p, g_bar)
"""

from __future__ import annotations

import re

import gast

from srcad.frontend import syntax as S

_ADJOINT = re.compile(r"srcad_nested_adjoint_(\d+)_(\d+)$")


def kernel_name(token: int, positions) -> str:
    """The name of the kernel returning the adjoints of operands `positions` of `token`."""
    return f"srcad_nested_adjoints_{token}_{'_'.join(map(str, positions))}"


def shared_adjoint_runs(tree) -> list:
    """Rewrite every run in `tree` (in place); the (token, operand numbers) of each run,
    for the kernels to write."""
    fresh = fresh_names(tree)
    runs, counter = [], [0]
    for node in list(gast.walk(tree)):
        for field in ("body", "orelse", "finalbody"):
            block = getattr(node, field, None)
            if isinstance(block, list) and block and isinstance(block[0], gast.stmt):
                setattr(node, field, _merged(block, fresh, runs, counter))
    return runs


def _merged(block, fresh, runs, counter) -> list:
    out, i = [], 0
    while i < len(block):
        run = _run_from(block, i, fresh)
        if len(run) < 2:
            out.append(block[i])
            i += 1
            continue
        token = run[0][1][0]
        positions = tuple(k for _, (_, k), _ in run)
        counter[0] += 1
        name = f"srcad_adjoints_{counter[0]}"
        first_call = run[0][0]
        merged = gast.Call(S.name(kernel_name(token, positions)),
                           [S.clone(a) for a in first_call.args], [])
        out += S.located([S.assign(S.name(name), merged)], block[i])
        for slot, (call, _, statement) in enumerate(run):
            replace_call(statement, call, gast.Subscript(S.name(name), S.const(slot), gast.Load()))
            out.append(statement)
        runs.append((token, positions))
        i += len(run)
    return out


def _run_from(block, i, fresh) -> list:
    """[(call, (token, k), statement)] of the run starting at block[i] (may be one long)."""
    run = []
    written: set = set()
    for statement in block[i:]:
        found = _adjoint_call(statement)
        if found is None:
            break
        call, token, k = found
        if run:
            head_call, (head_token, _), _ = run[0]
            read = names_in(call.args)
            if token != head_token or any(k == other for _, (_, other), _ in run) \
                    or not all(map(S.same, call.args, head_call.args)) \
                    or len(call.args) != len(head_call.args) \
                    or read & written or not written <= fresh:
                break
        run.append((call, (token, k), statement))
        written |= bound_names(statement)
    return run


def _adjoint_call(statement):
    """(call, token, k) of the one adjoint kernel call in `statement`, else None."""
    calls = [n for n in gast.walk(statement) if isinstance(n, gast.Call)
             and isinstance(n.func, gast.Name) and _ADJOINT.match(n.func.id)]
    if len(calls) != 1 or not isinstance(statement, (gast.Assign, gast.AugAssign)):
        return None
    token, k = _ADJOINT.match(calls[0].func.id).groups()
    return calls[0], int(token), int(k)


def names_in(nodes) -> set:
    return {n.id for node in nodes for n in gast.walk(node) if isinstance(n, gast.Name)}


def bound_names(statement) -> set:
    """Names `statement` binds or writes into (the array of a subscript target)."""
    targets = statement.targets if isinstance(statement, gast.Assign) else [statement.target]
    return names_in(targets)


_ALLOCATORS = {"zeros", "zeros_like", "empty", "empty_like", "ones", "full", "copy"}


def fresh_names(tree) -> set:
    """The parameters of the functions in `tree`, and the names every assignment binds to a
    new value: an allocation (`np.zeros(...)`), arithmetic or a constant."""
    params, bound, other = set(), set(), set()
    for node in gast.walk(tree):
        if isinstance(node, gast.FunctionDef):
            params |= {a.id for a in node.args.args}
        elif isinstance(node, gast.Assign):
            names = names_in(node.targets)
            if all(isinstance(t, gast.Name) for t in node.targets) and _new_value(node.value):
                bound |= names
            else:
                other |= names
        elif isinstance(node, (gast.For, gast.With, gast.NamedExpr)):
            other |= names_in([getattr(node, "target", node)])
    return params | (bound - other)


def _new_value(value) -> bool:
    if isinstance(value, (gast.BinOp, gast.UnaryOp, gast.Constant)):
        return True
    return isinstance(value, gast.Call) and isinstance(value.func, gast.Attribute) \
        and isinstance(value.func.value, gast.Name) and value.func.value.id == "np" \
        and value.func.attr in _ALLOCATORS


def replace_call(statement, call, replacement) -> None:
    """`statement` with the node `call` replaced by `replacement` (in place)."""
    for node in gast.walk(statement):
        for field, value in gast.iter_fields(node):
            if value is call:
                setattr(node, field, replacement)
            elif isinstance(value, list):
                for index, item in enumerate(value):
                    if item is call:
                        value[index] = replacement
