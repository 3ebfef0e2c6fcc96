"""Rules users add (`srcad.custom_jvp`, `srcad.custom_vjp`, srcad/api/custom_rules.py): each is an
entry of the rule table like srcad's own, whose templates call the user's rule functions.

Generated code calls a rule function by a reserved name, `srcad_rule_` and the function's own
name (`srcad_rule_softplus_jvp`), bound in its namespace (`RULE_FUNCTIONS`); the user's code
can never mean another object by it (srcad/runtime/runtime_names.py renames the user's `srcad_*`).

| primitive (args x0, x1)  | tangent of argument k (g)        | adjoint of argument k (g)      |
|--------------------------|----------------------------------|--------------------------------|
| custom_jvp f, rule jvp   | tangent_map_k(g, x0, x1)         | transposed((x0, x1), g, k)     |
| the same, of floats      | the same                         | g * jvp((x0, x1), (1.0, 0.0))[1] |
| custom_vjp f, fwd, bwd   | refused (JAX: no forward rule)   | bwd(fwd(x0, x1)[1], g)[k]      |

`tangent_map_k` is the jvp rule with argument k's tangent g, the others zero, its tangent
out; `transposed` is that map at the primals, transposed by srcad's reverse mode. Of floats
that map is a product by one number, the tangent of a unit seed: the adjoint is that number
times g, with no transposition (so numba compiles it: the rule function is plain Python).

The result of a custom function has its arguments' broadcast shape (a float of floats, an
array of arrays). Of floats the rule is a scalar rule; of arrays it is not elementwise (a
custom function of an array need not act element by element, so forward lanes never share
a coefficient), its result has the broadcast shape, and each adjoint its operand's shape.
"""

from __future__ import annotations

from srcad.rules.rule_type import Rule, linear

# reserved name -> rule function, for the namespace of generated code (srcad/build/pipeline.py)
RULE_FUNCTIONS: dict[str, object] = {}


def bind(function, suffix: str = "") -> str:
    """The reserved name generated code calls `function` by (the same name each time).

    >>> def bind_example_jvp(primals, tangents): ...
    >>> bind(bind_example_jvp)
    'srcad_rule_bind_example_jvp'
    """
    base = "srcad_rule_" + getattr(function, "__name__", "function").strip("<>") + suffix
    name, k = base, 1
    while name in RULE_FUNCTIONS and RULE_FUNCTIONS[name] is not function:
        k += 1
        name = f"{base}_{k}"
    RULE_FUNCTIONS[name] = function
    return name


def _operands(arity: int) -> list[str]:
    return [f"x{k}" for k in range(arity)]


def _tuple(items) -> str:
    return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"


def jvp_rule(name: str, arity: int, tangent_maps: list, transposed: str,
             slope: str) -> tuple[Rule, Rule]:
    """The table entries of a custom_jvp function of `arity` arguments, (of floats, of
    arrays): forward mode calls the tangent map of argument k (`tangent_maps[k]` in generated
    code: a plain function `(t, x0, x1, ...) -> jvp((x0, x1, ...), (0.0 * x0, t, ...))[1]`,
    the other tangents zero, which srcad differentiates again for second order); reverse
    mode of floats multiplies g by the tangent of a unit seed (`slope`: the jvp rule, by
    another name), of arrays calls `transposed` (srcad/api/custom_rules.py), the rule's
    tangent map transposed."""
    xs = _operands(arity)
    primals = _tuple(xs)
    tangents, adjoints, slopes = [], [], []
    for k in range(arity):
        tangents.append(f"{tangent_maps[k]}(g, {', '.join(xs)})")
        adjoints.append(f"{transposed}({primals}, g, {k})")
        units = _tuple(["1.0" if j == k else "0.0" for j in range(arity)])
        slopes.append(f"g * {slope}({primals}, {units})[1]")
    return (Rule(name, tuple(xs), tuple(slopes), "float", tuple(tangents)),
            Rule(name, tuple(xs), tuple(adjoints), "float", tuple(tangents)))


def vjp_rule(name: str, arity: int, fwd: str, bwd: str, no_forward: str) -> Rule:
    """The table entry of a custom_vjp function: reverse mode runs fwd again for its
    residuals and takes bwd's cotangent of argument k; forward mode is refused before any
    code is made (srcad/analysis/rule_backends.py), `no_forward` raising if ever reached."""
    xs = _operands(arity)
    adjoints = tuple(f"{bwd}({fwd}({', '.join(xs)})[1], g)[{k}]" for k in range(arity))
    tangents = tuple(f"{no_forward}(g)" for _ in xs)
    return Rule(name, tuple(xs), adjoints, "float", tangents)


def shaped(rule: Rule, ranks) -> Rule:
    """`rule` for operands of these ranks: itself of floats, else not elementwise (the result
    of the operands' broadcast shape)."""
    if not any(ranks):
        return rule
    shapes = [f"{x}_shape" for x in rule.operands]
    shape = shapes[0] if len(shapes) == 1 else f"np.broadcast_shapes({', '.join(shapes)})"
    return linear(rule.name, " ".join(rule.operands), *zip(rule.tangents, rule.partials),
                  shape=shape, rank=max(ranks))
