"""Printing converts gast trees to `ast` trees as gast's own converter does
(srcad/frontend/ast_conversion.py), node for node, positions included."""

import ast

import gast
import pytest

from srcad.frontend.ast_conversion import to_ast

SOURCES = [
    "def f(x, y=2.0, *args, k=1, **kw):\n    return x",
    "def f(a, /, b):\n    '''doc'''\n    for i in range(3):\n        if a[i, 1:2] > -b:\n"
    "            a[i] += b ** 2 @ c\n        elif not a:\n            break\n        else:\n"
    "            continue\n    while a and b or c:\n        pass\n"
    "    return a if b else (c, [d], {e: 1}, {f})",
    "x = f(*a, key=b.c.d, **kw)[::2]\ny = ~x << 3 >> 1 | 4 & 5 ^ 6 // 7 % 8 - +9\n"
    "z = 1 < a <= b != c is not d in e not in f is g",
    "try:\n    import numpy as np\nexcept ValueError as err:\n    raise err from None\n"
    "finally:\n    del x\nwith open(p) as fh, ctx():\n    global q\nlambda a, *b: a\n"
    "[v for v in w if v]\n{k: v for k, v in w}\nprint(f'{x!r:>3}')\nclass C(B, metaclass=M):\n"
    "    async def g(self):\n        await h()\n        yield 1\n        return None",
]


@pytest.mark.parametrize("source", SOURCES)
def test_the_tree_is_the_one_gast_makes(source):
    tree = gast.parse(source)
    ours, gasts = to_ast(tree), gast.gast_to_ast(tree)
    assert ast.dump(ours, include_attributes=True) == ast.dump(gasts, include_attributes=True)
    assert ast.unparse(ours) == ast.unparse(gasts)
