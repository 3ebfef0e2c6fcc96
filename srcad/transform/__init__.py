"""The transformations: `normalize/` (lowering, inlining, lists, views: the tree the
analyses read), then `forward/` and `reverse/` (the derivative code) and the passes after them
(tapes, simplification, numba compatibility).

May import: `analysis`, `rules`, `frontend`, `runtime` and the shared vocabulary. A nested
srcad.grad's primitive and srcad's public functions are registered with
`normalize/nested_calls.py` from above (`PRIMITIVE`, `register_public`). Imported by `build`.
"""
