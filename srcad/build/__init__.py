"""From a checked call to compiled derivative code, and running it.

`arguments` checks a call and makes a `Request`; `pipeline`, the only orchestrator, runs the
stages (frontend, analysis, transform), `codegen` prints the tree and `compiler` compiles it
(python: in memory; numba: a module in the cache folder, `numba_constants` wrapping what numba
cannot embed); `cache`, `plans` and `engines` keep compiled code, the fast path of repeated
calls and the operators' buffers; `differentiate` is `autodiff`; `running` runs generated
code, and `checkpoint_fallback` / `shape_fallback` run it again when a loop goes over the
memory budget or changes an array's shape; `aliasing` and `output_restore` guard arguments
that share memory and outputs read between passes.

May import: `transform`, `analysis`, `rules`, `frontend`, `runtime` and the shared vocabulary.
What runs above it registers with it when imported, instead of being imported: autodiff's
parallel, container and batched-reverse calls (`differentiate.register_mode`), the nested
gradients' run time (`pipeline.NESTED`), the clearing of the operators' preparations
(`cache.clear_also`).
"""
