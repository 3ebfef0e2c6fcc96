"""Stage: gast tree -> Python source text a person can read.

Printing goes through `astor` (behind `to_source` only); where astor cannot be imported
(Python 3.14 removed the ast nodes it needs) `ast.unparse` takes over. Comment statements made
by `syntax.comment` are printed as real `#` comments.
"""

from __future__ import annotations

import ast
import warnings

import gast

from srcad.frontend.ast_conversion import to_ast
from srcad.frontend.syntax import COMMENT_PREFIX, negative_bases_parenthesized

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    try:
        import astor
    except Exception:  # pragma: no cover - depends on the Python version
        astor = None


def to_source(tree: gast.AST) -> str:
    """Print a gast tree as Python source.

    >>> import gast
    >>> to_source(gast.parse("x = 1")).strip()
    'x = 1'
    """
    node = negative_bases_parenthesized(to_ast(tree))  # gast_to_ast, faster (ast_conversion.py)
    if astor is not None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            text = astor.to_source(node)
    else:
        text = ast.unparse(node) + "\n"
    return _comments(text)


def _comments(text: str) -> str:
    out = []
    for line in text.splitlines():
        stripped = line.strip()
        if stripped[:1] in "'\"" and COMMENT_PREFIX in stripped:
            try:
                value = ast.literal_eval(stripped)
            except (ValueError, SyntaxError):
                value = None
            if isinstance(value, str) and value.startswith(COMMENT_PREFIX):
                indent = line[: len(line) - len(line.lstrip())]
                out.append(f"{indent}# {value[len(COMMENT_PREFIX):].strip()}")
                continue
        out.append(line)
    return "\n".join(out) + "\n"
