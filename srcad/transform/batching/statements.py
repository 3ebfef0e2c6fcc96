"""Batched statements: a function body lifted statement by statement into the body of its
batched version, `<name>_vmap(<params>, batch_size)`.

A variable is batched everywhere or nowhere (found by iterating to a fixed point: a variable
given a batched value anywhere is batched from its first assignment, where an unbatched value
is copied across the batch). Ranks are followed statement by statement; a loop or branch that
leaves a variable with another rank than it found is not lifted. Loops and branches are
kept when what decides them is the same for every example; a `while` or `if` deciding per
example, early returns and writes into unbatched arguments are not lifted (`NotLiftable`).

>>> import gast
>>> tree = gast.parse("def f(x, w):\\n    return np.tanh(x @ w)").body[0]
>>> import numpy
>>> print(lift(tree, {"x": (True, 1), "w": (False, 1)}, {"np": numpy}).source.strip())
def f_vmap(x, w, batch_size):
    return np.tanh(x @ w)
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

import gast

from srcad.transform.batching.core import NotLiftable, Value, aligned, unparsed
from srcad.transform.batching.selects import select
from srcad.transform.batching.values import Expressions

_FIXED_POINT_ROUNDS = 20
_STATEMENTS = {"Return": "a return before the end", "Expr": "a call made for its effect",
               "Raise": "a raise statement", "Try": "a try statement", "With": "a with block",
               "Assert": "an assert statement", "Break": "a break", "Continue": "a continue",
               "FunctionDef": "a function defined inside", "Delete": "a del statement"}


@dataclass
class Lifted:
    """The source of the batched function `name` and which of its results carry the batch:
    `outputs` mirrors the returned tuple (nested tuples of bools), or is one bool."""

    source: str
    name: str
    outputs: object
    writes: bool = False  # the body writes elements of an array (an argument's, maybe)


def lift(tree: gast.FunctionDef, params: dict, namespace: dict, docstring: str = "",
         comment_lines: list | None = None, first_line: int = 1) -> Lifted:
    """The batched version of the function `tree`. `params`: name -> (batched, rank per
    example) for every parameter, in order. `comment_lines`: the function's source lines (the
    tree's line 1 first; its `def` is line `first_line` of its file), for a comment before
    each statement saying what it lifts."""
    forced = {n for n, (batched, _) in params.items() if batched}
    for _ in range(_FIXED_POINT_ROUNDS):
        body = _Body(tree, params, forced, namespace, comment_lines, first_line)
        lines, outputs = body.function(tree)
        if body.batched_names <= forced:
            break
        forced |= body.batched_names
    else:  # pragma: no cover - each round adds a name, and names are finitely many
        raise NotLiftable("batched variables that never settle", tree)
    name = f"{tree.name}_vmap"
    header = f"def {name}({', '.join(list(params) + ['batch_size'])}):"
    doc = [f'    """{docstring}"""'] if docstring else []
    writes = body.writes or body.expressions.unknown_calls
    return Lifted(formatted("\n".join([header] + doc + lines)), name, outputs, writes)


class _Body:
    """One pass over the body, with `forced` the variables known to be batched."""

    def __init__(self, tree, params, forced, namespace, comment_lines, first_line):
        self.forced = forced
        self.first_line = first_line
        self.batched_names = set(forced)
        self.params = set(params)
        self.writes = False
        self.used = {n.id for n in gast.walk(tree) if isinstance(n, gast.Name)}
        self.comment_lines = comment_lines
        self.names = {n: Value(n, batched, rank) for n, (batched, rank) in params.items()}
        self.expressions = Expressions(self.names, namespace)

    def function(self, tree):
        body = list(tree.body)
        if body and isinstance(body[-1], gast.Return):
            body, final = body[:-1], body[-1]
        else:
            final = None
        lines = []
        for statement in body:
            lines += self.statement(statement, 1)
        if final is None or final.value is None:
            raise NotLiftable("a function that returns nothing", tree)
        lines += self._comment(final, 1)
        text, outputs = self.returned(final.value)
        return lines + [f"    return {text}"], outputs

    def returned(self, node):
        """(text, which results are batched) of the returned expression (tuples kept)."""
        if isinstance(node, gast.Tuple):
            parts = [self.returned(e) for e in node.elts]
            comma = "," if len(parts) == 1 else ""
            return f"({', '.join(p[0] for p in parts)}{comma})", tuple(p[1] for p in parts)
        value = self.expressions.lift(node)
        return value.text, value.batched

    def fresh(self, base) -> str:
        """A name no parameter, variable or global of the body uses."""
        taken = set(self.names) | set(self.expressions.namespace) | self.used
        name, k = base, 1
        while name in taken:
            name, k = f"{base}_{k}", k + 1
        self.used.add(name)
        return name

    def block(self, statements, depth):
        lines = []
        for statement in statements:
            lines += self.statement(statement, depth)
        return lines or ["    " * depth + "pass"]

    def statement(self, node, depth):
        pad = "    " * depth
        kind = type(node).__name__
        if kind == "Expr" and isinstance(node.value, gast.Constant):
            return []  # a docstring or a bare constant
        if kind == "Pass":
            return [pad + "pass"]
        method = getattr(self, "_" + kind, None)
        if method is None:
            raise NotLiftable(_STATEMENTS.get(kind, f"a statement of kind {kind}"), node)
        return self._comment(node, depth) + method(node, pad, depth)

    def _comment(self, node, depth):
        line = getattr(node, "lineno", None)
        if not self.comment_lines or line is None or not 0 < line <= len(self.comment_lines):
            return []
        text = self.comment_lines[line - 1].strip()
        return ["    " * depth + f"# line {line + self.first_line - 1}: {text}"]

    # -- assignments
    def _Assign(self, node, pad, depth):
        if len(node.targets) != 1:
            raise NotLiftable("a chained assignment", node)
        target = node.targets[0]
        value = self.expressions.lift(node.value)
        if isinstance(target, gast.Name):
            return [pad + f"{target.id} = {self.bind(target.id, value, node)}"]
        if isinstance(target, gast.Subscript):
            return [pad + self.write(target, value, "=", node)]
        raise NotLiftable("an assignment to several names at once", node)

    def _AugAssign(self, node, pad, depth):
        symbol = {gast.Add: "+", gast.Sub: "-", gast.Mult: "*", gast.Div: "/"}.get(
            type(node.op))
        if symbol is None:
            raise NotLiftable("this augmented assignment", node)
        target = node.target
        if isinstance(target, gast.Subscript):
            value = self.expressions.lift(node.value)
            return [pad + self.write(target, value, symbol + "=", node)]
        if not isinstance(target, gast.Name) or target.id not in self.names:
            raise NotLiftable("an augmented assignment to this target", node)
        old = self.names[target.id]
        value = self.expressions.lift(node.value)
        if value.batched:
            self.batched_names.add(target.id)
        if old.rank is not None and old.rank > 0 and (old.batched or not value.batched):
            # an array updated in place, as the example's code updates it
            self.writes = True
            if value.batched and value.rank is not None and value.rank > old.rank:
                raise NotLiftable("an in-place update that would broadcast the array", node)
            return [pad + f"{target.id} {symbol}= {aligned(value, old.rank)}"]
        if target.id in self.params and not old.batched and value.batched:
            raise NotLiftable("an argument updated with a batched value", node)
        combined = self.expressions.elementwise(lambda a, b: f"{a} {symbol} {b}",
                                                [old, value], node)
        return [pad + f"{target.id} = {self.bind(target.id, combined, node)}"]

    def bind(self, name, value: Value, node) -> str:
        """The text assigned to `name`: copied across the batch when `name` is batched and
        the value is not."""
        if value.batched:
            self.batched_names.add(name)
            if name in self.params and not self.names[name].batched:
                raise NotLiftable("an argument rebound to a batched value", node)
        if name in self.forced and not value.batched:
            self.names[name] = Value(name, True, value.rank)
            if value.rank == 0:
                return f"np.full(batch_size, {value.text})"
            return f"np.full((batch_size,) + np.shape({value.text}), {value.text})"
        self.names[name] = Value(name, value.batched, value.rank)
        return value.text

    def write(self, target, value: Value, symbol, node) -> str:
        """`a[index] = value` (or `+=`...) into the array `a`, batched or not."""
        if not isinstance(target.value, gast.Name) or target.value.id not in self.names:
            raise NotLiftable("a write into an element of this target", node)
        name = target.value.id
        array = self.names[name]
        self.writes = True
        if value.batched:
            self.batched_names.add(name)
            if not array.batched:
                if name in self.params:
                    raise NotLiftable("a batched value written into an argument", node)
                if name not in self.forced:  # batched from its creation in the next round
                    return f"{unparsed(target)} {symbol} {value.text}"
        element = self.expressions.lift(target)
        if element.rank is None:
            raise NotLiftable("a write whose element rank is not known", node)
        if value.batched and value.rank is not None and value.rank > element.rank:
            raise NotLiftable("a write that would broadcast the element", node)
        return f"{element.text} {symbol} {aligned(value, element.rank)}"

    # -- control flow
    def _For(self, node, pad, depth):
        if node.orelse or not isinstance(node.target, gast.Name):
            raise NotLiftable("this for loop", node)
        iterator = node.iter
        if not (isinstance(iterator, gast.Call) and isinstance(iterator.func, gast.Name)
                and iterator.func.id == "range" and not iterator.keywords):
            raise NotLiftable("a for loop over anything but range(...)", node)
        bounds = [self.expressions.unbatched(a).text for a in iterator.args]
        variable = node.target.id
        if variable in self.forced:
            raise NotLiftable("a loop variable also given batched values", node)
        before = dict(self.names)
        self.names[variable] = Value(variable, False, 0)
        body = self.block(node.body, depth + 1)
        self._same_ranks(before, node)
        return [pad + f"for {variable} in range({', '.join(bounds)}):"] + body

    def _While(self, node, pad, depth):
        if node.orelse:
            raise NotLiftable("a while loop with else", node)
        test = self.expressions.lift(node.test)
        if test.batched:
            raise NotLiftable("a while loop whose condition differs between examples", node)
        before = dict(self.names)
        body = self.block(node.body, depth + 1)
        self._same_ranks(before, node)
        test = self.expressions.unbatched(node.test)  # the names may have changed kind
        return [pad + f"while {test.text}:"] + body

    def _If(self, node, pad, depth):
        test = self.expressions.lift(node.test)
        if test.batched:  # both branches, chosen per example
            return select(self, node, test, pad)
        before = dict(self.names)
        body = self.block(node.body, depth + 1)
        after_body = dict(self.names)
        self.names.clear()
        self.names.update(before)
        orelse = self.block(node.orelse, depth + 1) if node.orelse else []
        for name, value in after_body.items():
            other = self.names.get(name)
            if other is not None and other.rank != value.rank:
                raise NotLiftable(f"{name} of another rank in each branch", node)
            self.names.setdefault(name, value)
        lines = [pad + f"if {test.text}:"] + body
        return lines + ([pad + "else:"] + orelse if orelse else [])

    def _same_ranks(self, before, node):
        for name, value in before.items():
            if self.names[name].rank != value.rank:
                raise NotLiftable(f"{name} changing rank in a loop", node)


def formatted(source: str) -> str:
    """`source` with each statement printed by `ast.unparse` (the parentheses lifting added
    around every operand dropped where Python does not need them); comments kept."""
    out = []
    for line in source.splitlines():
        stripped = line.strip()
        indent = line[:len(line) - len(line.lstrip())]
        if stripped.startswith(("#", '"""', "def ", "for ", "while ", "if ", "else:")) \
                or not stripped:
            out.append(line)
            continue
        try:
            out.append(indent + ast.unparse(ast.parse(stripped)))
        except SyntaxError:  # pragma: no cover - every line lifting writes is a statement
            out.append(line)
    return "\n".join(out) + "\n"

