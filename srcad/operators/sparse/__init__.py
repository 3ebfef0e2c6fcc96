"""Sparse Jacobians: patterns and coloring."""
