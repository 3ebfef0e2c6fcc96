"""Operators whose input is a container (a dict, list or tuple of arrays and floats, nested):
autodiff with container arguments (`container_calls`), the container Jacobian's layout
(`container_jacobian`), the operators themselves (`container_operators`) and their second
order (`container_second_order`, `container_reverse_over_forward`).

May import: the rest of `operators`, and what `operators` may import.
"""
