"""The transformations: `normalize/` (lowering, inlining, lists, views: the tree the
analyses read), then `forward/` and `reverse/` (the derivative code) and the passes after them
(tapes, simplification, numba compatibility).

May import: `analysis`, `rules`, `frontend`, `runtime` and the shared vocabulary. The one
import that reaches higher (a nested srcad.grad's primitive, in `normalize/nested_calls.py`)
is listed in pyproject.toml's import contract. Imported by `build`.
"""
