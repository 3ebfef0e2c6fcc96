"""From a function object to a checked tree: the second stage from the bottom.

`parse` reads a function's source (`source_check`: the text Python compiled; `lambdas`,
`partials`: a lambda's or a partial's), resolves its names (`resolve_callee`) and its constant
sequences, and renames what would clash with the runtime's names; `syntax` holds the gast
helpers every later stage uses; `refusals` and `refused_code` gather a function's refusals
across the pipeline; `pytrees` flattens and rebuilds parameter containers; `source_functions`
makes a function of source text srcad wrote (a partial's call; build's generated code).

May import: `runtime` (the names generated code uses) and the shared vocabulary
(`srcad.errors`, `srcad.annotations`, `srcad.hints`). Imported by every stage above.
"""
