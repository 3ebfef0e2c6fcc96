"""Minimization of a failing fuzz program: drop statements, unwrap if/loops, drop helpers and
replace expressions by their operands while the failure keeps the same signature.
"""

from __future__ import annotations

import ast
import copy
import itertools
import signal
import sys
import time

import numpy as np
from checking import Timeout, _alarm, load_module, run_check
from inputs import inputs_ok, plain_namespace


def _split(text: str):
    """(program source, args() source) of a failure module."""
    tree = ast.parse(text)
    keep = [n for n in tree.body if not (isinstance(n, ast.FunctionDef) and n.name == "args")
            and not (isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant))]
    args = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "args"]
    return ast.Module(keep, []), ast.unparse(args[0])


def _stmt_lists(tree):
    """Every statement list inside function bodies, as (owner, field)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.If | ast.For | ast.While):
            for fieldname in ("body", "orelse"):
                body = getattr(node, fieldname, None)
                if body:
                    yield node, fieldname


def _candidates(tree):
    """Smaller variants of the tree (fresh copies), biggest cuts first."""
    n_top = len(tree.body)
    for k in range(n_top):
        node = tree.body[k]
        if isinstance(node, ast.FunctionDef) and node.name != "f":
            t = copy.deepcopy(tree)
            del t.body[k]
            yield t
    lists = list(_stmt_lists(tree))
    for li in range(len(lists)):
        owner, fieldname = lists[li]
        for si in range(len(getattr(owner, fieldname))):
            # drop the statement
            t = copy.deepcopy(tree)
            o, fname = list(_stmt_lists(t))[li]
            body = getattr(o, fname)
            stmt = body[si]
            del body[si]
            if not body and fname == "body":
                body.append(ast.Pass())
            yield t
            # unwrap a compound statement into its parts
            if isinstance(stmt, ast.If | ast.For | ast.While):
                for part in ("body", "orelse"):
                    inner = getattr(stmt, part)
                    if inner:
                        t = copy.deepcopy(tree)
                        o, fname = list(_stmt_lists(t))[li]
                        body = getattr(o, fname)
                        body[si:si + 1] = copy.deepcopy(inner)
                        yield t
            # simplify an if test to True/False
            if isinstance(stmt, ast.If) and stmt.orelse:
                t = copy.deepcopy(tree)
                o, fname = list(_stmt_lists(t))[li]
                getattr(o, fname)[si].orelse = []
                yield t


def _expr_sites(tree):
    """(parent, field, index) of every expression inside a function body, in walk order."""
    for func in tree.body:
        if not isinstance(func, ast.FunctionDef):
            continue
        for node in ast.walk(func):
            for fieldname, value in ast.iter_fields(node):
                if isinstance(value, ast.expr):
                    yield node, fieldname, None
                elif isinstance(value, list):
                    for i, v in enumerate(value):
                        if isinstance(v, ast.expr):
                            yield node, fieldname, i


def _get(parent, fieldname, index):
    value = getattr(parent, fieldname)
    return value if index is None else value[index]


def _set(parent, fieldname, index, new):
    if index is None:
        setattr(parent, fieldname, new)
    else:
        getattr(parent, fieldname)[index] = new


def _replacements(node):
    """Smaller expressions that might stand for `node`: its operands."""
    if isinstance(node, ast.BinOp):
        return [node.left, node.right]
    if isinstance(node, ast.UnaryOp):
        return [node.operand]
    if isinstance(node, ast.Call):
        return list(node.args)
    if isinstance(node, ast.IfExp):
        return [node.body, node.orelse]
    if isinstance(node, ast.BoolOp):
        return list(node.values)
    return []


def _expr_candidates(tree):
    sites = list(_expr_sites(tree))
    for k, site in enumerate(sites):
        for r in range(len(_replacements(_get(*site)))):
            t = copy.deepcopy(tree)
            tsite = list(_expr_sites(t))[k]
            node = _get(*tsite)
            _set(*tsite, _replacements(node)[r])
            yield t


def minimize(text: str, signature: str, budget: float = 90.0, timeout: float = 10.0):
    """Drop statements while the failure keeps its signature; returns the smallest text."""
    tree, args_src = _split(text)
    values_module, vname = load_module(text)
    values = [a.value if hasattr(a, "value") else a for a in values_module.args()]
    sys.modules.pop(vname, None)
    entry = "f"
    deadline = time.time() + budget

    def still_fails(candidate_tree) -> bool:
        try:
            src = ast.unparse(candidate_tree)
            compile(src, "<candidate>", "exec")
        except (SyntaxError, ValueError):
            return False
        signal.signal(signal.SIGALRM, _alarm)
        signal.setitimer(signal.ITIMER_REAL, 5.0)  # dropping `k += 1` can make a loop endless
        try:
            ns = plain_namespace(src)
            if inputs_ok(ns, entry, values, np.random.default_rng(0)) is not None:
                return False
        except (Exception, Timeout):  # noqa: BLE001
            return False
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        cand_text = src + "\n\n\n" + args_src + "\n"
        try:
            category, sig, _ = run_check(cand_text, timeout)
        except (Exception, Timeout):  # noqa: BLE001
            return False
        return category in ("disagreed", "crashed") and sig == signature

    changed = True
    while changed and time.time() < deadline:
        changed = False
        current = ast.unparse(tree)
        seen = {current}
        for cand in itertools.chain(_candidates(tree), _expr_candidates(tree)):
            if time.time() >= deadline:
                break
            text_c = ast.unparse(cand)
            if text_c in seen or len(text_c) >= len(current):  # no progress (e.g. pass -> pass)
                continue
            seen.add(text_c)
            if still_fails(cand):
                tree = cand
                changed = True
                break
    src = ast.unparse(tree)
    return src + "\n\n\n" + args_src + "\n"
