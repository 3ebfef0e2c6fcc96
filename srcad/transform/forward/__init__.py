"""Forward (tangent) mode: `ForwardTransform` (transform.py) and the tangent styles, lanes,
stacks and unset-tangent analysis it uses."""
