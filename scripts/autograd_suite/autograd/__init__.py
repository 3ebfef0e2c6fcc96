"""A stand-in for autograd whose transforms and checks are srcad's, to run HIPS/autograd's own
tests (tests/test_systematic.py, test_numpy.py, test_linalg.py, test_scipy.py with their
numpy_utils.py and conftest.py, copied from an autograd checkout into a directory DIR):

    AUTOGRAD_CASES=cases.jsonl PYTHONPATH=scripts/autograd_suite:$PWD:DIR \\
        python -m pytest -q -p no:cacheprovider DIR/test_systematic.py ...

Each check_grads / combo_check case (autograd's numpy is NumPy itself) is differentiated by
srcad in reverse (`jacrev`) and forward (`jacfwd`) mode and compared with central
differences; one line per case goes to $AUTOGRAD_CASES: agree, refused (SrcadError), WRONG,
crash, complex (excluded: complex or integer arguments), fd-error (the case itself does not
run on today's NumPy/SciPy). First order only.
"""
import builtins as _builtins

import srcad

grad = srcad.grad
value_and_grad = srcad.value_and_grad
jacobian = srcad.jacrev
hessian = srcad.hessian
tuple = _builtins.tuple


def elementwise_grad(fun, argnum=0):
    def gradient(*args):
        return srcad.vjp(fun, *args)[1](1.0 + 0.0 * fun(*args))[argnum]
    return gradient
