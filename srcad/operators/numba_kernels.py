"""The numba kernels of the run-time primitives in one generated function: nested gradients
(srcad/operators/nested_numba.py) and recursive helpers (srcad/operators/recursion_numba.py),
each written into the module of the outer code. The pipeline sees one object
(`pipeline.NESTED["numba"]`): its `rename(tree)` renames the primitives' calls to the
kernels, then `helpers` is their source, `names` the names it defines or the tree calls and
`fused` the fused loop nests (srcad/transform/numba_fusion.py) the kernels call.
"""

from __future__ import annotations


class NumbaKernels:
    """The kernels of every maker in `makers` (each called as `maker(norm, types)`)."""

    def __init__(self, norm, types, makers):
        self.parts = [make(norm, types) for make in makers]

    def __bool__(self) -> bool:
        return any(self.parts)

    def rename(self, tree):
        for part in self.parts:
            tree = part.rename(tree)
        return tree

    def for_lengths(self, name, lengths):
        """The name of the kernel `name` made for its operands' `lengths`, or None
        (srcad/operators/nested_number_kernels.py)."""
        for part in self.parts:
            special = getattr(part, "for_lengths", lambda *_: None)(name, lengths)
            if special is not None:
                return special
        return None

    def as_tuples(self, special):
        """(name, array positions) of the variant of the kernel made for lengths `special`
        returning tuples of numbers, or None (srcad/transform/small_kernel_tuples.py)."""
        for part in self.parts:
            made = getattr(part, "as_tuples", lambda _: None)(special)
            if made is not None:
                return made
        return None

    @property
    def cacheable(self) -> bool:
        """May numba keep the code in its on-disk cache? (Not code calling a recursive
        function: numba crashes loading it.)"""
        return all(getattr(p, "cacheable", True) for p in self.parts)

    @property
    def helpers(self) -> str:
        return "\n\n".join(p.helpers for p in self.parts if p.helpers)

    @property
    def names(self) -> set:
        return set().union(*(p.names for p in self.parts))

    @property
    def fused(self) -> dict:
        """{name: FusedLoop} of the fused loop nests the kernels call."""
        return {k: v for p in self.parts for k, v in getattr(p, "fused", {}).items()}
