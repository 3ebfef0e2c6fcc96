"""Stage 2: the normalized function every mode differentiates.

lower conveniences -> fence -> desugar -> inline user calls -> split tuple locals ->
name library calls and subscripted computed arrays -> desugar again (tuple results) ->
structured exits.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import gast

from srcad.analysis.fence import syntax_refusals
from srcad.errors import UnsupportedSyntaxError
from srcad.frontend import syntax as S
from srcad.frontend.lambdas import function_name
from srcad.frontend.parse import ParsedFunction, resolve_callee
from srcad.frontend.refusals import STRICT, Refusals
from srcad.frontend.refused_code import set_aside_refused, without_refused
from srcad.rules import lookup_call
from srcad.transform.names import Namer
from srcad.transform.normalize import list_calls  # noqa: F401 - registers lower()'s list-call pass
from srcad.transform.normalize.call_binding import bind_calls
from srcad.transform.normalize.computed_subscripts import name_computed_arrays
from srcad.transform.normalize.containers import split_container_params
from srcad.transform.normalize.desugar import Desugar, desugar
from srcad.transform.normalize.exits import always_assigns, structure_exits
from srcad.transform.normalize.free_containers import bind_free_containers
from srcad.transform.normalize.inline import Inliner
from srcad.transform.normalize.lists import split_fixed_lists
from srcad.transform.normalize.lower import lower
from srcad.transform.normalize.nested_calls import rewrite_nested_calls
from srcad.transform.normalize.tuples import split_tuple_locals


@dataclass
class Normalized:
    parsed: ParsedFunction
    params: list[str]
    body: list  # ends with `return <expr>` when the function returns a value
    namer: Namer
    extra_names: dict = field(default_factory=dict)  # names inlined helpers need
    dependencies: list = field(default_factory=list)  # (globals, name, object) read (cache)
    cells: list = field(default_factory=list)  # (closure cell, object) read (cache)
    docstring: str | None = None
    # arrays srcad itself made that never leave the function (hoisted precomputations), each
    # -> (the arrays made together, their length `stop` (len(range(stop)) if negative), stop
    # known >= 0): numba reverse mode keeps them in a workspace array passed in and kept
    # across calls, so a call allocates no array of its own
    workspace: dict = field(default_factory=dict)
    # the function's refusals: the analyses add what they refuse (srcad/frontend/refusals.py)
    refusals: Refusals = STRICT

    def resolve(self, name_: str):
        if name_ in self.extra_names:
            return self.extra_names[name_]
        return self.parsed.resolve(name_)


def normalize(parsed: ParsedFunction, containers: tuple = (),
              refusals: Refusals = STRICT) -> Normalized:
    """`containers`: (position, treedef) of the parameters passed as containers (one
    parameter per leaf in the result, srcad/transform/normalize/containers.py). The syntax
    check's refusals and the inlining's (in a helper or at its call) go to `refusals`; when
    it collects, normalization goes on without the refused code
    (srcad/frontend/refused_code.py) for the later checks."""
    tree = parsed.tree
    body = S.clone(tree.body)
    doc = None
    if body and S.is_comment(body[0]):
        doc = body[0].value.value
        body = body[1:]
    namer = Namer.for_tree(tree)
    body, local_functions = lower(parsed, body, namer)
    returns = len(_returns(body))  # fewer once refused code is set aside: _normalized_body
    body = without_refused(body, lambda attempt: rewrite_nested_calls(
        parsed, attempt, namer, local_functions), refusals, parsed)
    refused = syntax_refusals(parsed, body, local_functions)
    if refused:
        refusals.add(UnsupportedSyntaxError.combine([e for _, e in refused],
                                                    function=parsed.name,
                                                    filename=parsed.filename))
        body = set_aside_refused(body, [n for n, _ in refused if n is not tree],
                                 _signature_names(tree) if any(n is tree for n, _ in refused)
                                 else set())
    body, params, inliner = without_refused(body, lambda attempt: _normalized_body(
        parsed, attempt, namer, containers, local_functions, refusals, returns), refusals,
        parsed)
    return Normalized(parsed, params, body, namer, inliner.extra,
                      inliner.dependencies, inliner.cells, doc, refusals=refusals)


def _normalized_body(parsed, body, namer, containers, local_functions, refusals,
                     returns) -> tuple:
    """(body, parameters, Inliner) once the checked `body` is normalized: what the
    module docstring lists after the fence. `returns`: the function's own returns; when
    fewer are left (refused code set aside), what the others return says nothing about
    the function's result, and a tuple returned on some paths sets them aside too."""
    intact = len(_returns(body)) == returns
    body = desugar(parsed, body, namer, unpack_calls=False)
    inliner = Inliner(parsed, namer, local_functions=local_functions, refusals=refusals)
    body = inliner.block(body)
    if inliner.refused:  # a call refused in the helper or at the call: what it feeds goes
        before = len(_returns(body))  # (the blocks of `body` are changed in place)
        body = set_aside_refused(body, inliner.refused, set())
        intact = intact and len(_returns(body)) == before
    params = [a.id for a in parsed.tree.args.args]
    body = bind_free_containers(parsed, body, params, namer, inliner.extra, inliner.dependencies)
    body, params = split_container_params(parsed, body, params, containers, namer)
    body = split_tuple_locals(body, params, namer, Desugar(parsed, namer, True)._assign_one)
    # `for v in helper(x)`: the inlined helper's tuple result is a literal now; unroll it
    body = split_fixed_lists(parsed, body, namer, params)
    body = _bind_library_calls(parsed, body, namer, inliner.extra)
    body = name_computed_arrays(parsed, body, namer, inliner.extra)
    body = desugar(parsed, body, namer)
    final = None
    returns = _returns(body)
    if not intact and any(S.is_tuple_return(r) for r in returns):
        body, returns = set_aside_refused(body, returns, set()), []
    if body and isinstance(body[-1], gast.Return) and len(returns) == 1:
        final = body.pop()
        if S.is_tuple_return(final):  # `return a, b`: each element a variable
            body += _named_elements(final, namer)
    elif any(S.is_tuple_return(r) for r in returns):
        # `return a, b` on several paths: each assigns the same fresh names, returned once
        results = _tuple_results(parsed, returns, namer)
        if _falls_through(body):
            raise parsed.error(body[-1], "return", "a function returning a tuple must return "
                               "one on every path; here the end of the function is reached "
                               "without a return (which returns None)",
                               hint="end the function with return a, b")
        body = Inliner._split_tuple_returns(body, results)
        final = gast.Return(value=gast.Tuple(elts=[S.name(r) for r in results],
                                             ctx=gast.Load()))
        gast.copy_location(final, returns[-1])
    result = namer.fresh("result") if returns and final is None else None
    body, _ = structure_exits(body, result, namer.fresh("returned"))
    if final is not None:
        body.append(final)
    elif result is not None:
        if not always_assigns(body, result):  # a path falls off the end: it returns None
            body.insert(0, S.assign(S.name(result), S.const(None)))
        body.append(gast.Return(value=S.name(result)))
    return body or [gast.Pass()], params, inliner


def _returns(body) -> list:
    return [n for s in body for n in S.walk(s) if isinstance(n, gast.Return)]


def _signature_names(tree) -> set:
    """The parameters of a signature the syntax check refuses (*args, **kwargs, keyword-only,
    positional-only): names the function reads that hold no value srcad passes."""
    args = tree.args
    out = {a.id for a in list(args.kwonlyargs) + list(getattr(args, "posonlyargs", None) or [])}
    return out | {a.id for a in (args.vararg, args.kwarg) if a is not None}


def _tuple_results(parsed, returns, namer) -> list:
    """Fresh names for the values of a tuple returned on several paths; every return must
    return a tuple of the same length."""
    size = len(next(r for r in returns if S.is_tuple_return(r)).value.elts)
    for r in returns:
        if not S.is_tuple_return(r) or len(r.value.elts) != size:
            raise parsed.error(r, "return", f"every return of a function returning a tuple of "
                               f"{size} values must return {size} values, as `return a, b`",
                               hint="return the same number of values on every path")
    return [namer.fresh(f"result_{k}") for k in range(size)]


def _falls_through(stmts) -> bool:
    """Can control reach the end of `stmts` (a loop may always run to its end)?"""
    if not stmts:
        return True
    last = stmts[-1]
    if isinstance(last, gast.Return):
        return False
    if isinstance(last, gast.If):
        return _falls_through(last.body) or _falls_through(last.orelse)
    return True


def _named_elements(final, namer) -> list:
    """Assignments making every element of the tuple `final` returns a variable (the
    transforms seed and read each element's derivative by name)."""
    out = []
    for k, element in enumerate(final.value.elts):
        if not isinstance(element, gast.Name):
            name_ = namer.fresh(f"result_{k}")
            out.append(gast.copy_location(S.assign(S.name(name_), element), final))
            final.value.elts[k] = S.name(name_)
    return out


def _bind_library_calls(parsed, body, namer, extra) -> list:
    """Each call of a library function srcad has no rule for (run as it is on constants) is
    bound to a variable before its statement: derivative code reads the variable instead of
    calling again (`random.random()` twice would draw two numbers)."""
    out = []
    for stmt in body:
        for block in ("body", "orelse"):
            if isinstance(stmt, (gast.For, gast.While, gast.If)):
                setattr(stmt, block, _bind_library_calls(parsed, getattr(stmt, block), namer,
                                                         extra))
        if isinstance(stmt, (gast.Assign, gast.AugAssign, gast.Return)):
            out.extend(bind_calls(stmt, namer, lambda call: _library_call_base(
                parsed, call, extra)))
        else:
            out.append(stmt)
    return out


def _library_call_base(parsed, call, extra):
    """The base of the name a call of a library function with no rule is bound to, else
    None (a rule's function, a class, the user's own functions)."""
    obj = resolve_callee(parsed, call.func, extra)
    if obj is None or not callable(obj) or lookup_call(obj) is not None \
            or isinstance(obj, type):
        return None
    return f"{function_name(obj, 'call')}_value"
