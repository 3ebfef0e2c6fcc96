"""Small helpers over gast trees shared by every stage: templates, substitution, name sets.

Templates are real Python snippets parsed with gast; placeholders are plain names that
`substitute` replaces by expression nodes.
"""

from __future__ import annotations

import ast
import collections
import copy
import functools

import gast

# the statement walks and name sets live in statement_walks.py; every stage reads them here
from srcad.frontend.ast_conversion import to_ast
from srcad.frontend.statement_walks import (  # noqa: F401
    bound_names,
    statement_expressions,
    statements,
    statements_in_order,
    stored_names,
    target_name,
)
from srcad.frontend.transformer import Transformer

Node = gast.AST
_AST = ast.AST


def clone(node):
    """A deep copy of a tree (or a list of trees). ~6x faster than `copy.deepcopy`, which
    otherwise takes a third of a transformation's time (the first call's cost counts)."""
    if type(node) is list:
        return [clone(n) for n in node]
    if not isinstance(node, _AST):
        return node
    cls = type(node)
    new = cls.__new__(cls)
    fields = new.__dict__
    for key, value in node.__dict__.items():
        if isinstance(value, _AST):  # the common cases first: a child, then a list of them
            fields[key] = clone(value)
        elif type(value) is list:
            fields[key] = [clone(v) if isinstance(v, _AST) or type(v) is list else v
                           for v in value]
        else:
            fields[key] = value
    return new


def nodes(tree):
    """Every node of `tree`, in no particular order (`ast.walk`'s work without its
    breadth-first bookkeeping; for the name sets below, which every stage asks for). No
    generator or list per node: every pass of every build walks its trees with it."""
    todo = [tree]
    pop, push = todo.pop, todo.append
    while todo:
        node = pop()
        yield node
        for value in node.__dict__.values():
            if isinstance(value, _AST):
                push(value)
            elif type(value) is list:
                for v in value:
                    if isinstance(v, _AST):
                        push(v)


def walk(tree):
    """Every node of `tree` in `gast.walk`'s breadth-first order, at about half of its
    cost (no generator or list per node for its children): the first call walks trees
    thousands of times.

    >>> [type(n).__name__ for n in walk(parse_expr("a + 1"))]
    ['BinOp', 'Name', 'Add', 'Constant', 'Load']
    """
    todo = collections.deque([tree])
    pop, push = todo.popleft, todo.append
    while todo:
        node = pop()
        fields = node.__dict__
        for name_ in node._fields:
            value = fields.get(name_)
            if isinstance(value, _AST):
                push(value)
            elif type(value) is list:
                for v in value:
                    if isinstance(v, _AST):
                        push(v)
        yield node


@functools.lru_cache(maxsize=None)
def _parse_cached(source: str) -> gast.Module:
    return gast.parse(source)


def parse_expr(source: str) -> Node:
    """Parse one expression.

    >>> type(parse_expr("a + 1")).__name__
    'BinOp'
    """
    return clone(_parse_cached(source).body[0].value)


@functools.lru_cache(maxsize=None)
def template_names(source: str) -> frozenset:
    """Names a template expression reads (cached: rule templates are few)."""
    return frozenset(loaded_names(_parse_cached(source).body[0].value))


@functools.lru_cache(maxsize=None)
def template_count(source: str, name_: str) -> int:
    """How often a template expression reads `name_`."""
    return sum(1 for n in gast.walk(_parse_cached(source).body[0].value)
               if isinstance(n, gast.Name) and n.id == name_)


def parse_stmts(source: str) -> list[Node]:
    """Parse statements."""
    return clone(_parse_cached(source).body)


def name(identifier: str, store: bool = False) -> gast.Name:
    ctx = gast.Store() if store else gast.Load()
    return gast.Name(id=identifier, ctx=ctx, annotation=None, type_comment=None)


def const(value) -> gast.Constant:
    return gast.Constant(value=value, kind=None)


def assign(target: Node, value: Node) -> gast.Assign:
    target = clone(target)
    set_store(target)
    return gast.Assign(targets=[target], value=value, type_comment=None)


def aug_assign(target: Node, op: Node, value: Node) -> gast.AugAssign:
    target = clone(target)
    set_store(target)
    return gast.AugAssign(target=target, op=op, value=value)


def call(func: str, *args: Node) -> gast.Call:
    return gast.Call(func=parse_expr(func), args=list(args), keywords=[])


def lambda_as_def(lam: gast.Lambda, name_: str, where: Node) -> gast.FunctionDef:
    """`def name_(<lam's parameters>): return <lam's body>`, located at `where`.

    >>> unparse_header(lambda_as_def(parse_expr("lambda x, a=2: a * x"), "f", None))
    'def f(x, a=2)'
    """
    body = [gast.Return(value=lam.body)]
    tree = gast.FunctionDef(name=name_, args=lam.args, body=body, decorator_list=[],
                            returns=None, type_comment=None)
    if where is not None:
        gast.copy_location(body[0], where)
        gast.copy_location(tree, where)
    return tree


def expr_stmt(value: Node) -> gast.Expr:
    return gast.Expr(value=value)


def index_value(index: Node) -> Node:
    """An index as a value (`(slice(None), idx)` for the `:, idx` of a subscript)."""
    if isinstance(index, gast.Tuple):
        return gast.Tuple(elts=[index_value(p) for p in index.elts], ctx=gast.Load())
    if isinstance(index, gast.Slice):
        return call("slice", *[as_load(b) if b is not None else const(None)
                               for b in (index.lower, index.upper, index.step)])
    return as_load(index)


def add_at(target: gast.Subscript, value: Node) -> gast.Expr:
    """`np.add.at(a, idx, value)` for the target `a[idx]`: adds once per occurrence of a
    repeated index (`a[idx] += value` would add only the last one)."""
    return gast.Expr(value=call("np.add.at", as_load(target.value), index_value(target.slice),
                                value))


def set_store(target: Node) -> None:
    """Mark a target expression as a store (its inner loads stay loads)."""
    if isinstance(target, (gast.Name, gast.Subscript, gast.Attribute)):
        target.ctx = gast.Store()
    elif isinstance(target, (gast.Tuple, gast.List)):
        target.ctx = gast.Store()
        for element in target.elts:
            set_store(element)


def as_load(node: Node) -> Node:
    node = clone(node)
    for sub in gast.walk(node):
        if hasattr(sub, "ctx"):
            sub.ctx = gast.Load()
    return node


class _Substituter(Transformer):
    def __init__(self, mapping):
        self.mapping = mapping

    def visit_Name(self, node):
        if node.id in self.mapping and isinstance(node.ctx, gast.Load):
            return clone(self.mapping[node.id])
        return node


class Renamer(Transformer):
    """Renames, in place, every name `mapping` lists (loads and stores alike)."""

    def __init__(self, mapping: dict):
        self.mapping = mapping

    def visit_Name(self, node):
        if node.id in self.mapping:
            node.id = self.mapping[node.id]
        return node


class AlwaysEvaluated(Transformer):
    """A transformer that enters only the parts of an expression evaluated whenever it is:
    the test of `a if c else b`, the first operand of `and`/`or`, not a lambda's body (what it
    hoists out of an expression must not run where the expression would not run it)."""

    def visit_IfExp(self, node):
        node.test = self.visit(node.test)
        return node

    def visit_BoolOp(self, node):
        node.values[0] = self.visit(node.values[0])
        return node

    def visit_Lambda(self, node):
        return node


def rename(tree: Node, old: str, new: str) -> Node:
    """`tree` with the name `old` renamed `new` everywhere, in place.

    >>> unparse_expr(rename(parse_expr("x * y + x"), "x", "x_1"))
    'x_1 * y + x_1'
    """
    return Renamer({old: new}).visit(tree)


def renamed(node: Node, mapping: dict) -> Node:
    """A copy of `node` with the names `mapping` lists renamed (loads and stores alike).

    >>> unparse_expr(renamed(parse_expr("x * y"), {"x": "x_1", "y": "y_1"}))
    'x_1 * y_1'
    """
    return Renamer(mapping).visit(clone(node))


def substitute(template: Node | str, mapping: dict) -> Node:
    """Replace placeholder names by nodes (deep copies).

    >>> unparse_expr(substitute("g * y", {"g": name("z_bar"), "y": name("w")}))
    'z_bar * w'
    """
    node = parse_expr(template) if isinstance(template, str) else clone(template)
    return _Substituter(mapping).visit(node)


def substitute_stmt(stmt: Node, mapping: dict) -> Node:
    """`substitute` for a statement."""
    return _Substituter(mapping).visit(clone(stmt))


def negative_bases_parenthesized(node: ast.AST) -> ast.AST:
    """`node` (an ast tree, changed in place) with each negative number that is the base of a
    power written as a negation: astor and ast.unparse print `Constant(-2) ** k` as
    `-2 ** k`, which Python reads as `-(2 ** k)` (the simplifier folds `(-2)` into the
    constant -2).

    >>> tree = ast.parse("y = 2 ** k")
    >>> tree.body[0].value.left.value = -2
    >>> ast.unparse(negative_bases_parenthesized(tree))
    'y = (-2) ** k'
    """
    for parent in ast.walk(node):
        if isinstance(parent, ast.BinOp) and isinstance(parent.op, ast.Pow):
            base = parent.left
            if isinstance(base, ast.Constant) and type(base.value) in (int, float, complex) \
                    and (base.value.real < 0 or str(base.value).startswith("-")):
                parent.left = ast.UnaryOp(op=ast.USub(), operand=ast.Constant(value=-base.value))
    return node


def unparse_expr(node: Node) -> str:
    # new nodes: `node` stays as it is
    return ast.unparse(negative_bases_parenthesized(to_ast(gast.Expression(body=node))))


def unparse_header(stmt: Node) -> str:
    """One line of source for a statement (compound statements: their header line only)."""
    if isinstance(stmt, (gast.For, gast.While, gast.If)):
        stmt = copy.copy(stmt)
        stmt.body, stmt.orelse = [gast.Pass()], []
    tree = ast.fix_missing_locations(to_ast(gast.Module(body=[stmt], type_ignores=[])))
    return ast.unparse(negative_bases_parenthesized(tree)).split("\n")[0].rstrip(":")


def loaded_names(node: Node) -> set[str]:
    """Names read anywhere in an expression or statement."""
    return {
        n.id for n in nodes(node) if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)
    }


def is_leaf(node: Node) -> bool:
    """Names, constants, attribute chains and subscripts: values the adjoint reads, not computes."""
    return isinstance(node, (gast.Name, gast.Constant, gast.Attribute, gast.Subscript))


def same(a: Node, b: Node) -> bool:
    """Are `a` and `b` the same tree (what `gast.dump` shows: the fields, not the positions)?
    Compared node by node, stopping at the first difference: the simplifier asks this of
    every pair of product terms, thousands of times in a first call.

    >>> same(parse_expr("a * 2.0"), parse_expr("a * 2.0")), same(const(0.0), const(-0.0))
    (True, False)
    """
    if type(a) is not type(b):
        return False
    if isinstance(a, ast.AST):
        fields_a, fields_b = a.__dict__, b.__dict__
        return all(same(fields_a.get(f, _ABSENT), fields_b.get(f, _ABSENT))
                   for f in a._fields)
    if type(a) is list:
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return a is b or repr(a) == repr(b)  # as gast.dump shows them: 0.0 is not -0.0


_ABSENT = object()


COMMENT_PREFIX = "SRCAD-COMMENT:"
# the nodes of an expression of names, numbers, operators, comparisons, choices and reads
# (attributes, elements, slices): what it calls is the caller's to check
READING_NODES = (gast.Name, gast.Constant, gast.BinOp, gast.UnaryOp, gast.BoolOp, gast.Compare,
                 gast.IfExp, gast.Attribute, gast.Subscript, gast.Tuple, gast.Slice,
                 gast.operator, gast.unaryop, gast.boolop, gast.cmpop, gast.expr_context)


def comment(text: str) -> gast.Expr:
    """A statement that codegen prints as `# text` (analyses see an inert string)."""
    return gast.Expr(value=const(COMMENT_PREFIX + " " + text))


def located(stmts: list, at: Node) -> list:
    """`stmts`, each node of them without a location given `at`'s (new statements standing
    for the statement `at`: errors name its line)."""
    for stmt in stmts:
        for node in gast.walk(stmt):
            if isinstance(node, (gast.stmt, gast.expr)) and not hasattr(node, "lineno"):
                gast.copy_location(node, at)
    return stmts


def relocated(tree: Node, at: Node) -> Node:
    """`tree` with every node of it at the location of `at` (code srcad makes for the code at
    `at`, replacing what parsing a template gave it)."""
    for node in gast.walk(tree):
        if isinstance(node, (gast.stmt, gast.expr)):
            gast.copy_location(node, at)
    return tree


def is_comment(stmt: Node) -> bool:
    return (isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Constant)
            and isinstance(stmt.value.value, str))


def is_tuple_return(stmt) -> bool:
    """Is `stmt` a `return a, b` of values (no element itself a tuple, a list or starred):
    the function returns a tuple differentiated value by value. srcad's own generated code
    returns `(value, (adjoints...))`, which is not one."""
    return isinstance(stmt, gast.Return) and isinstance(stmt.value, gast.Tuple) and not any(
        isinstance(e, (gast.Tuple, gast.List, gast.Starred)) for e in stmt.value.elts)


def constant_index(index, size):
    """The int a constant index (`2`, `-1`) picks among `size` parts, else None."""
    if isinstance(index, gast.UnaryOp) and isinstance(index.op, gast.USub) \
            and isinstance(index.operand, gast.Constant):
        value = -index.operand.value
    elif isinstance(index, gast.Constant):
        value = index.value
    else:
        return None
    if type(value) is not int or not -size <= value < size:
        return None
    return value % size
