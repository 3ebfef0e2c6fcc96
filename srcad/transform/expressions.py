"""Differentiate one expression tree with the rule table, for both modes.

An expression such as `w * math.exp(-(x - m) ** 2 / v)` is not split into one statement per
operation in the primal code. Its derivative code recomputes, into named temporaries
(`exp_1 = ...`), only the intermediate values that some rule needs, then applies the rules:
top-down for adjoints (`exp_1_bar = ...`), bottom-up for tangents.
"""

from __future__ import annotations

import gast

from srcad import rules as R
from srcad.analysis.primitives import array_call, select_rule
from srcad.analysis.shape_lengths import operand_ranks
from srcad.frontend import syntax as S
from srcad.frontend.parse import resolve_callee
from srcad.rules.numpy_division import follows_numpy, numpy_divisions
from srcad.transform.branch_guards import guarded, negated, only_if
from srcad.transform.broadcasting import Broadcasting
from srcad.transform.simplify import scale_first, shape_value, simplify

BINOPS = {gast.Add: R.ADD, gast.Sub: R.SUB, gast.Mult: R.MUL, gast.Div: R.DIV,
           gast.Pow: R.POW, gast.Mod: R.MOD}
ARRAY_BINOPS = {**BINOPS, gast.Pow: R.ARRAY_POW, gast.Mod: R.ARRAY_MOD}
UNARY = {gast.USub: R.NEG, gast.UAdd: R.POS}


class ExpressionDiff:
    """Rule application over expression trees of one function.

    `leaf_active(node)` says whether a Name or Subscript leaf carries a derivative;
    `leaf_value(node)` gives the expression to read its primal value through (a taped copy or
    the leaf itself). With `types`, array operands select array rules and broadcasting is
    undone (transform/broadcasting.py); without, every operand is a float.
    """

    def __init__(self, norm, namer, leaf_active, leaf_value=None, types=None):
        self.norm = norm
        self.namer = namer
        self.leaf_active = leaf_active
        self.leaf_value = leaf_value or (lambda node: node)
        self.types = types
        self.shapes = Broadcasting(self)
        self._primitives: dict[int, tuple] = {}

    # -- primitives ------------------------------------------------------------------------
    def primitive(self, node):
        """(rule, operand nodes) for a differentiable compound node, else None."""
        key = id(node)
        if key not in self._primitives:
            self._primitives[key] = (node, self._primitive(node))
        return self._primitives[key][1]

    def _primitive(self, node):
        found = self._rule_and_operands(node)
        if found is not None and found[0].name in ("pow", "power") and _is_zero(found[1][1]):
            return R.POW_BY_ZERO, found[1]  # x ** 0: the constant 1
        return found

    def _rule_and_operands(self, node):
        call = array_call(self.norm, node) \
            if isinstance(node, (gast.Call, gast.BinOp, gast.Attribute)) else None
        if call is not None:
            rule = select_rule(self.norm, node, call, self._ranks(call.operands))
            if len(call.operands) != len(rule.operands):
                raise self.norm.parsed.error(node, "call", f"{call.info.name} takes "
                                             f"{len(rule.operands)} arguments here")
            return rule, call.operands
        if isinstance(node, gast.BinOp):
            table = ARRAY_BINOPS if self.shapes.rank(node) > 0 else BINOPS
            rule = table.get(type(node.op))
            return (rule, [node.left, node.right]) if rule else None
        if isinstance(node, gast.UnaryOp):
            rule = UNARY.get(type(node.op))
            return (rule, [node.operand]) if rule else None
        if isinstance(node, gast.IfExp):
            return R.IFEXP, [node.test, node.body, node.orelse]
        if isinstance(node, gast.Call):
            obj = resolve_callee(self.norm.parsed, node.func, self.norm.extra_names)
            info = R.lookup_call(obj)
            if info is not None and info.rule is not None:
                if len(node.args) != len(info.rule.operands):
                    raise self.norm.parsed.error(node, "call", f"{info.name} takes "
                                                 f"{len(info.rule.operands)} arguments here")
                return info.rule, list(node.args)
        return None

    def _ranks(self, operands) -> list:
        if self.types is None:
            return [0] * len(operands)
        return operand_ranks(self.norm, self.types.of, operands)

    def is_active(self, node) -> bool:
        if isinstance(node, (gast.Name, gast.Subscript)):
            return self.leaf_active(node)
        prim = self.primitive(node)
        if prim is None:
            return False
        rule, operands = prim
        return any(p is not None and self.is_active(o) for p, o in zip(rule.partials, operands))

    # -- shared: intermediate values a rule needs ------------------------------------------
    def _plan(self, root):
        """Ids of compound active nodes whose values some applied rule reads."""
        needed: set[int] = set()

        def visit(node):
            prim = self.primitive(node)
            if prim is None:
                return
            rule, operands = prim
            placeholders = dict(zip(rule.operands, operands))
            for k, (partial, operand) in enumerate(zip(rule.partials, operands)):
                if partial is None or not self.is_active(operand):
                    continue
                used = S.template_names(partial)
                if rule.tangents is not None:  # one prepare serves both modes
                    used = used | S.template_names(rule.tangents[k])
                if "ans" in used:
                    needed.add(id(node))
                for pname in used & set(placeholders):
                    other = placeholders[pname]
                    if self.primitive(other) is not None and self.is_active(other):
                        needed.add(id(other))
                visit(operand)

        if self.is_active(root):
            visit(root)
        return needed

    def intermediates(self, root) -> set:
        """Ids of the nodes of `root` whose values `prepare` computes into temporaries."""
        return self._plan(root)

    def prepare(self, root, root_name=None):
        """Statements computing the intermediates the rules need, as (stmts, temps, rebuild).

        With `root_name`, the statements end by assigning the root's value to that name (the
        primal statement itself, recomputed from the same temporaries)."""
        stmts, temps, rebuild = self._values(root, self._plan(root), root_name)
        if root_name is not None and temps.get(id(root)) != root_name:
            stmts.append(S.assign(S.name(root_name), rebuild(root)))
            temps[id(root)] = root_name
        return stmts, temps, rebuild

    def _values(self, root, needed, root_name=None):
        """Statements computing the needed intermediates; returns (stmts, {id: expr})."""
        stmts, temps = [], {}

        def rebuild(node):
            if id(node) in temps:
                return S.name(temps[id(node)])
            if isinstance(node, (gast.Name, gast.Subscript)):
                return self.leaf_value(node)
            clone = gast.copy_location(type(node)(**{f: getattr(node, f) for f in node._fields}),
                                       node)
            for field, value in gast.iter_fields(node):
                if isinstance(value, gast.expr) and field != "func":
                    setattr(clone, field, rebuild(value))
                elif field == "func" and isinstance(value, gast.Attribute):
                    # a method's receiver is an operand (`x.dot(y)`): read as recorded too
                    setattr(clone, field, rebuild(value))
                elif isinstance(value, list):
                    setattr(clone, field, [rebuild(v) if isinstance(v, gast.expr) else v
                                           for v in value])
            return clone

        def post(node, guard=None):
            if isinstance(node, gast.IfExp):
                post(node.test, guard)
                post(node.body, guarded(guard, rebuild(node.test)))
                post(node.orelse, guarded(guard, negated(rebuild(node.test))))
            else:
                for child in gast.iter_child_nodes(node):
                    if isinstance(child, gast.expr):
                        post(child, guard)
            if id(node) in needed or (node is root and root_name is not None):
                rule, _ = self.primitive(node) or (None, None)
                temp = root_name if node is root and root_name else self.namer.fresh(rule.name)
                stmts.append(S.assign(S.name(temp), only_if(guard, rebuild(node))))
                temps[id(node)] = temp

        post(root)
        return stmts, temps, rebuild

    def _instance(self, rule, k, operands, node, seed, rebuild, tangent=False):
        template = rule.tangent(k) if tangent else rule.partials[k]
        if self._numpy_numbers(rule, node):  # NumPy's division (srcad/rules/numpy_division.py)
            template = numpy_divisions(template)
        mapping = {p: rebuild(o) for p, o in zip(rule.operands, operands)}
        mapping["ans"] = rebuild(node)
        mapping["g"] = seed
        for p, o in zip(rule.operands, operands):
            if f"{p}_shape" in S.template_names(template):
                mapping[f"{p}_shape"] = shape_value(self.shapes.named_shape(o, rebuild))
        return simplify(S.substitute(template, mapping))

    def _numpy_numbers(self, rule, node) -> bool:
        """Is `node` a call of a NumPy or SciPy function of numbers (an elementwise rule)?"""
        return rule.elementwise and isinstance(node, gast.Call) \
            and follows_numpy(resolve_callee(self.norm.parsed, node.func, self.norm.extra_names)) \
            and self.shapes.rank(node) == 0

    def _contribution(self, rule, k, operands, node, seed, rebuild):
        """The adjoint contribution of `seed` to operand k, in the operand's shape. A seed
        broadcast up to the node (`np.broadcast_to(s, shape)`, a sum's adjoint) is used
        unbroadcast where the partial's other factors already have the node's shape
        (`s / add`, not `np.broadcast_to(s, shape) / add`): NumPy broadcasts `s` the same."""
        if rule.elementwise and _is_broadcast_to(seed) \
                and self.shapes.term_exact(rule, k, operands, False, partial=True):
            seed = seed.args[0]
        contribution = self._instance(rule, k, operands, node, seed, rebuild)
        if rule is R.MUL and self.shapes.rank(operands[1 - k]) == 0:
            contribution = scale_first(contribution)
        if rule.elementwise and self.shapes.may_broadcast(operands, k):
            return self.shapes.reduce_to(contribution, operands[k], rebuild)
        return contribution

    # -- reverse -----------------------------------------------------------------------------
    def fit_seed(self, root, seed, prepared=None):
        """The seed of a slice `y[1:] = root` summed to the shape of `root` (which may be
        narrower: NumPy broadcasts it into the slice)."""
        rebuild = prepared[2] if prepared is not None else self.leaf_value
        if self.shapes.rank(root) == 0:
            return S.call("np.sum", seed)
        return S.call("unbroadcast", seed, self.shapes.shape_of(root, rebuild))

    def adjoint(self, root, seed, accumulate, prepared=None):
        """Statements that add `seed`-weighted partials of `root` into its active leaves.

        `accumulate(leaf, contribution)` returns the statements for one leaf. Without
        `prepared` (from `prepare`, emitted elsewhere) the intermediates are computed first."""
        if prepared is None:
            stmts, temps, rebuild = self.prepare(root)
        else:
            stmts, (_, temps, rebuild) = [], prepared

        def propagate(node, g, out=stmts):
            if isinstance(node, (gast.Name, gast.Subscript)):
                out.extend(accumulate(node, g))
                return
            if isinstance(node, gast.IfExp):
                # `b if t else c`: the seed goes to the taken branch only, in an `if`, so that
                # the other branch's leaves (`x[k]` with k out of range there) are not touched
                taken, other = [], []
                if self.is_active(node.body):
                    propagate(node.body, g, taken)
                if self.is_active(node.orelse):
                    propagate(node.orelse, S.clone(g), other)
                test = rebuild(node.test)
                if not taken:
                    test, taken, other = gast.UnaryOp(op=gast.Not(), operand=test), other, []
                out.append(gast.If(test=test, body=taken, orelse=other))
                return
            rule, operands = self.primitive(node)
            active = [(k, o) for k, o in enumerate(operands)
                      if rule.partials[k] is not None and self.is_active(o)]
            merged: dict[str, gast.AST] = {}  # `s * s`: one accumulation of both partials
            for k, operand in active:
                contribution = self._contribution(rule, k, operands, node, g, rebuild)
                if isinstance(operand, (gast.Name, gast.Subscript)):
                    key = gast.dump(operand)
                    if key in merged:
                        merged[key] = simplify(gast.BinOp(left=merged[key], op=gast.Add(),
                                                          right=contribution))
                        continue
                    merged[key] = contribution
            done = set()
            for k, operand in active:
                if isinstance(operand, (gast.Name, gast.Subscript)):
                    key = gast.dump(operand)
                    if key not in done:
                        done.add(key)
                        propagate(operand, merged[key], out)
                    continue
                contribution = self._contribution(rule, k, operands, node, g, rebuild)
                if isinstance(operand, (gast.Name, gast.Subscript)) or S.is_leaf(contribution) \
                        or self._reads_seed_once(operand):
                    propagate(operand, contribution, out)  # used once: no temporary needed
                    continue
                base = temps.get(id(operand)) or self.primitive(operand)[0].name
                temp = self.namer.fresh(f"{base}_bar")
                out.append(S.assign(S.name(temp), contribution))
                propagate(operand, S.name(temp), out)

        if self.is_active(root):
            self.shapes.collect(stmts)
            propagate(root, seed)
            self.shapes.drop_unused(stmts)
            self.shapes.collect(None)
        return stmts

    def _reads_seed_once(self, node) -> bool:
        """Would propagating into `node` read its seed exactly once (one active operand whose
        rule uses g once)? Then the seed can stay an expression instead of a temporary."""
        prim = self.primitive(node)
        if prim is None:
            return False
        rule, operands = prim
        uses = [rule.partials[k] for k, o in enumerate(operands)
                if rule.partials[k] is not None and self.is_active(o)]
        return len(uses) == 1 and S.template_count(uses[0], "g") == 1

    # -- forward -----------------------------------------------------------------------------
    def coefficients(self, root, prepared):
        """Partial derivatives as values (the rules applied to g = 1), for batched tangents:
        computed once, then every lane is a multiply-add. Returns (stmts, {key: expr})."""
        _, _, rebuild = prepared
        stmts, coefs = [], {}

        def visit(node, guard=None):
            prim = self.primitive(node)
            if prim is None:
                return
            rule, operands = prim
            for k, operand in enumerate(operands):
                if rule.partials[k] is None or not self.is_active(operand):
                    continue
                if isinstance(node, gast.IfExp):  # no coefficient: `tangent` selects a branch
                    test = rebuild(node.test)
                    visit(operand, guarded(guard, test if operand is node.body
                                           else negated(test)))
                    continue
                if not rule.elementwise or rule.selects(k):  # its tangent formula per lane
                    visit(operand, guard)
                    continue
                coef = self._instance(rule, k, operands, node, S.const(1.0), rebuild)
                if not S.is_leaf(coef) and not _is_negated_leaf(coef):
                    temp = self.namer.fresh(f"{rule.name}_d{rule.operands[k]}")
                    stmts.append(S.assign(S.name(temp), only_if(guard, coef)))
                    coef = S.name(temp)
                coefs[id(node), k] = coef
                visit(operand, guard)

        if self.is_active(root):
            visit(root)
        return stmts, coefs

    def tangent(self, root, leaf_tangent, prepared, coefs=None):
        """The tangent of `root` as one expression (None when inactive), given the
        intermediates from `prepare` and `leaf_tangent(leaf)` for the active leaves; with
        `coefs` (from `coefficients`) each term is tangent * coefficient."""
        _, _, rebuild = prepared

        def term(rule, k, operands, node, seed):
            if coefs is None or (id(node), k) not in coefs:
                return self._instance(rule, k, operands, node, seed, rebuild, tangent=True)
            return simplify(gast.BinOp(left=seed, op=gast.Mult(), right=coefs[id(node), k]))

        def tan(node):
            """(tangent expression, whether it has the node's whole shape)"""
            if isinstance(node, (gast.Name, gast.Subscript)):
                return leaf_tangent(node), True
            if isinstance(node, gast.IfExp):
                # `b if t else c`: the taken branch's tangent only (the other branch's leaves,
                # `x[k]` with k out of range there, are not read)
                return gast.IfExp(test=rebuild(node.test), body=branch(node.body),
                                  orelse=branch(node.orelse)), True
            rule, operands = self.primitive(node)
            terms, exact = [], False
            for k, operand in enumerate(operands):
                if rule.tangent(k) is None or not self.is_active(operand):
                    continue
                t, t_exact = tan(operand)
                if not rule.elementwise and not t_exact:
                    t, t_exact = self.shapes.widen(t, operand, rebuild), True
                terms.append(term(rule, k, operands, node, t))
                exact = exact or not rule.elementwise or \
                    self.shapes.term_exact(rule, k, operands, t_exact)
            total = terms[0]
            for t in terms[1:]:
                total = simplify(gast.BinOp(left=total, op=gast.Add(), right=t))
            return total, exact

        def branch(node):
            return tan(node)[0] if self.is_active(node) else S.const(0.0)

        if not self.is_active(root):
            return None
        total, exact = tan(root)
        if not exact and self.shapes.rank(root) > 0:
            total = self.shapes.widen(total, root, rebuild)
        return total



def _is_broadcast_to(node) -> bool:
    return isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) \
        and node.func.attr == "broadcast_to" and len(node.args) == 2


def _is_negated_leaf(node) -> bool:
    return isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub) \
        and S.is_leaf(node.operand)


def _is_zero(node) -> bool:
    """Is node the number 0 written out (`0`, `0.0`, `-0.0`)?"""
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, (gast.USub, gast.UAdd)):
        node = node.operand
    return isinstance(node, gast.Constant) and type(node.value) in (int, float) \
        and node.value == 0
