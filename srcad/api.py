"""The public entry points: `autodiff`, the `reverse`/`forward` decorators and `source`.

They live by concern in srcad/differentiate.py (`autodiff`), srcad/decorators.py (the decorators,
`source`) and srcad/arguments.py (argument checks); this module keeps `srcad.api` importable.
"""

from srcad.arguments import Batch as Batch
from srcad.arguments import _arguments as _arguments
from srcad.arguments import bind_arguments as bind_arguments
from srcad.decorators import forward as forward
from srcad.decorators import reverse as reverse
from srcad.decorators import source as source
from srcad.differentiate import _compiled as _compiled
from srcad.differentiate import autodiff as autodiff
