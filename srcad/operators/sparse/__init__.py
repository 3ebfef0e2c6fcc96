"""Sparse Jacobians: `jacobian(f, x, sparse=True)` (`sparse_jacobian`), the pattern found
by dependency propagation and its coloring (`sparsity`), or read from the source
(`static_sparsity`, with the recorder its index slices call, `sparsity_recorder`).

May import: the rest of `operators`, and what `operators` may import.
"""
