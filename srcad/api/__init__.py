"""The public surface: what a user imports, below srcad's own `__init__`.

`autodiff` (defined in srcad/build/differentiate.py), the `reverse`/`forward` decorators and
`source` (`decorators`), the JAX-style function transforms `grad`, `value_and_grad`, `jacfwd`,
`jacrev` (`function_transforms`), `hessian` (`hessian_transform`), `jvp` and `vjp`
(`jvp_vjp`), `vmap` (`vmap`, its axes in `vmap_axes`), with their shared parts: `argnums`,
`auxiliary` (has_aux), `primals` (pytree arguments),
`packing` (several arguments as one), `reverse_rows` (jacrev's batched sweeps) and
`transform_calls` (one call of a transformed function); what they return is checked by
srcad/build/transform_outputs.py.
This module re-exports the entry points, so `srcad.api` stays importable.

May import: every package below it (`operators`, `scale`, `build`, ...). Imported only by
srcad's `__init__`, `srcad.cli` and `srcad.testing`.
"""

# each registers with autodiff the mode it runs (srcad/build/differentiate.py, `register_mode`)
import srcad.operators.batched_reverse  # noqa: F401
import srcad.operators.containers.container_calls  # noqa: F401
import srcad.operators.nested  # noqa: F401 - and the nested gradients' run time with the pipeline
import srcad.operators.recursion  # noqa: F401 - and the recursive helpers' run time
import srcad.scale.parallel  # noqa: F401
from srcad.api.decorators import forward as forward
from srcad.api.decorators import reverse as reverse
from srcad.api.decorators import source as source
from srcad.api.vmap import vmap as vmap
from srcad.build.arguments import Batch as Batch
from srcad.build.arguments import _arguments as _arguments
from srcad.build.arguments import bind_arguments as bind_arguments
from srcad.build.differentiate import _compiled as _compiled
from srcad.build.differentiate import autodiff as autodiff
