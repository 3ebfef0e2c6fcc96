"""The operators (gradient, jacobian, hessian, pushforward, pullback, ...) and their
preparations, built on `autodiff`.

`first_order` states the conventions every operator shares and re-exports the first-order
families (`gradient_operators`, `jacobian_operators`, `directional_operators`);
`preparation`, `operator_options` and `prep_cache` read an operator's arguments and keep its
preparation; `second_order` (hvp), `hessian_operators`, `second_order_setup`,
`second_order_refusals` and `reverse_over_forward` are second order; `jacobian_mode` is the
cost model of the mode a jacobian takes without `mode=`; `batched_reverse` and
`batched_lanes` pull back several cotangents in one sweep, `reverse_lane_count` says how
many; `nested`, `nested_numba` and `nested_adjoint_runs` are srcad.grad inside a
differentiated function; `parallel_operators` is parallel=True;
`containers/` the operators over pytrees and `sparse/` sparse Jacobians.

May import: `scale`, `build` and everything below it. Imported by `api`, `testing` and
srcad's `__init__`.
"""
