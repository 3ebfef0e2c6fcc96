"""Counting the work of a pass: the nodes its tree walks yield (`syntax.walk`, `syntax.nodes`,
`gast.walk`), for tests that a pass's work grows with the function, not with its square."""

import gast

from srcad.frontend import syntax as S


def counting_walks(monkeypatch) -> list:
    """Patch the tree walks to count the nodes they yield; returns [count], kept up to date
    until `monkeypatch` undoes the patches."""
    walked = [0]

    def counting(walk):
        def walked_nodes(tree):
            for node in walk(tree):
                walked[0] += 1
                yield node
        return walked_nodes

    monkeypatch.setattr(S, "walk", counting(S.walk))
    monkeypatch.setattr(S, "nodes", counting(S.nodes))
    monkeypatch.setattr(gast, "walk", counting(gast.walk))
    return walked
