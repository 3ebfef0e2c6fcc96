"""The public entry points: `autodiff`, the `reverse`/`forward` decorators and `source`.

They live by concern in srcad/build/differentiate.py (`autodiff`), srcad/api/decorators.py (the
decorators, `source`) and srcad/build/arguments.py (argument checks); this module keeps `srcad.api`
importable. """

from srcad.api.decorators import forward as forward
from srcad.api.decorators import reverse as reverse
from srcad.api.decorators import source as source
from srcad.build.arguments import Batch as Batch
from srcad.build.arguments import _arguments as _arguments
from srcad.build.arguments import bind_arguments as bind_arguments
from srcad.build.differentiate import _compiled as _compiled
from srcad.build.differentiate import autodiff as autodiff
