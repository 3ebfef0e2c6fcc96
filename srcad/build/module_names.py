"""The names a generated module's text defines at its top level and the globals it reads:
what srcad/build/compiler.py imports from a module of numba helper kernels into the modules
calling them, and what it binds in the helpers' own header."""

from __future__ import annotations

import ast


def defined_in(text: str) -> list:
    """The names `text` binds at its top level (functions and assigned globals), sorted.

    >>> defined_in("k = 2.0\\ndef f(x):\\n    return x * k\\n")
    ['f', 'k']
    """
    if not text:
        return []
    names = set()
    for node in ast.parse(text).body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names |= {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
    return sorted(names)


def free_in(text: str) -> set:
    """The globals the functions of `text` read: names loaded in a function that it neither
    binds (parameters, assignments, loop targets) nor the module defines.

    >>> sorted(free_in("def f(x):\\n    y = np.sin(x)\\n    return y * g(x)\\n"))
    ['g', 'np']
    """
    if not text:
        return set()
    tree = ast.parse(text)
    module = set(defined_in(text))
    free = set()
    for node in tree.body:
        if not isinstance(node, ast.FunctionDef):
            continue
        bound = {a.arg for a in ast.walk(node.args) if isinstance(a, ast.arg)}
        bound |= {n.id for n in ast.walk(node) if isinstance(n, ast.Name)
                  and isinstance(n.ctx, (ast.Store, ast.Del))}
        bound |= {n.name for n in ast.walk(node) if isinstance(n, ast.FunctionDef)}
        free |= {n.id for n in ast.walk(node) if isinstance(n, ast.Name)
                 and isinstance(n.ctx, ast.Load)} - bound
        for decorator in node.decorator_list:
            free |= {n.id for n in ast.walk(decorator) if isinstance(n, ast.Name)}
    return free - module


def helper_units(text: str) -> list:
    """The helper kernels of `text` cut into the smallest modules that can stand alone: one
    per function, or per group of functions calling each other (recursion), each with the
    global assignments it reads; in an order where a unit's callees come first. Each unit
    is `(names it defines, its text, names it imports from earlier units)`, so two generated
    functions calling the same kernel share its module, and numba compiles it once.

    >>> [u[0] for u in helper_units("def g(x):\\n    return x\\n\\ndef f(x):\\n    return g(x)\\n")]
    [['g'], ['f']]
    """
    if not text:
        return []
    tree = ast.parse(text)
    lines = text.splitlines()
    functions = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    assigns = [n for n in tree.body if not isinstance(n, ast.FunctionDef)]

    def segment(node):
        first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
        return "\n".join(lines[first - 1:node.end_lineno])
    calls = {name: free_in(segment(node)) & set(functions) - {name}
             for name, node in functions.items()}
    reads = {name: free_in(segment(node)) for name, node in functions.items()}
    units = []
    for group in _components(calls):
        read = set().union(*(reads[n] for n in group))
        kept = [segment(a) for a in assigns
                if set(defined_in(ast.unparse(a))) & read]
        body = "\n\n\n".join(kept + [segment(functions[n]) for n in group])
        units.append((sorted(group), body, sorted(set().union(*(calls[n] for n in group))
                                                  - set(group))))
    return units


def _components(calls: dict) -> list:
    """The strongly connected components of the call graph `calls`, callees first
    (Tarjan's algorithm), each in the order the functions were given."""
    order = {name: k for k, name in enumerate(calls)}
    index, low, stack, on_stack, out = {}, {}, [], set(), []

    def visit(name):
        index[name] = low[name] = len(index)
        stack.append(name)
        on_stack.add(name)
        for callee in sorted(calls[name], key=order.get):
            if callee not in index:
                visit(callee)
                low[name] = min(low[name], low[callee])
            elif callee in on_stack:
                low[name] = min(low[name], index[callee])
        if low[name] == index[name]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == name:
                    break
            out.append(sorted(group, key=order.get))

    for name in calls:
        if name not in index:
            visit(name)
    return out
