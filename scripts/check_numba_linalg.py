"""Check the numba backend's np.linalg programs (solve, inv, det, slogdet, cholesky) in
forward and reverse mode against central finite differences and forward against reverse
(srcad.testing.check_grads). Kept out of the test suite: numba compiles LAPACK bindings for
each function, tens of seconds in all.

    python scripts/check_numba_linalg.py
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from tests.test_numba_array_ops import LINALG  # noqa: E402

from srcad.testing import check_grads  # noqa: E402


def main() -> int:
    for f, args in LINALG:
        check_grads(f, *args(), modes=("fwd", "rev"), backend="numba")
        print(f"{f.__name__}: forward and reverse agree with finite differences")
    return 0


if __name__ == "__main__":
    sys.exit(main())
