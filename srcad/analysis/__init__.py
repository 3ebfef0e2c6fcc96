"""The analyses of a normalized function: types and shapes, activity, what is recorded on
the tape, definite assignment, writes, induction variables, and the fence (the syntax check
that refuses what srcad does not support).

May import: `rules`, `frontend`, `runtime` and the shared vocabulary; never `transform` (what
both need, such as `resolve_callee`, lives in `frontend`). Imported by `transform` and `build`.
"""
