"""Run every probe program of "never silently wrong, round 3" in every mode on the chosen
backends and print one line per (program, backend, mode) that is not ok, then counts.

    PYTHONPATH=. python scripts/issue_probes/run.py [python] [numba] [--only SECTION]
        [--modes grad,jacfwd,...] [--quoted | --outside] [-v: the refusals too]

--quoted runs the programs the issue quotes, --outside the variants written afterwards from
outside (programs_outside.py, programs_refusals.py, checks_outside.py); the default runs both.
"""
import collections
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(HERE, '..', '..', 'tests')]

import checks_outside  # noqa: E402
import checks_prepared  # noqa: E402
import programs_lists_forward  # noqa: E402
import programs_literals  # noqa: E402
import programs_outside  # noqa: E402
import programs_refusals  # noqa: E402
import programs_second_numba  # noqa: E402
from harness import run_probe  # noqa: E402

QUOTED = (programs_lists_forward.LISTS + programs_lists_forward.FORWARD
          + programs_second_numba.SECOND + programs_second_numba.NUMBA
          + programs_second_numba.WIDENED
          + programs_literals.LITERALS)
OUTSIDE = programs_outside.PROBES + programs_refusals.REFUSALS


def main(argv):
    backends = [a for a in argv if a in ("python", "numba")] or ["python", "numba"]
    only = argv[argv.index("--only") + 1] if "--only" in argv else None
    verbose = "-v" in argv
    modes = set(argv[argv.index("--modes") + 1].split(",")) if "--modes" in argv else None
    quoted, outside = "--outside" not in argv, "--quoted" not in argv
    rows = []
    for probe in (QUOTED if quoted else []) + (OUTSIDE if outside else []):
        if only and not probe.section.startswith(only):
            continue
        if modes:
            probe.modes = tuple(m for m in (probe.modes or modes) if m in modes)
        file = sys.modules[probe.f.__module__].__file__
        for row in run_probe(probe, backends, os.path.basename(file)):
            rows.append(row)
            if row[4] != "ok" and (verbose or row[4] != "refused"):
                print(" | ".join(row), flush=True)
    checks = (([checks_prepared.checks] if quoted else [])
              + ([checks_outside.checks] if outside else []))
    for check in checks:
        for row in check(backends, only):
            rows.append(row)
            print(" | ".join(row), flush=True)
    counts = collections.Counter((r[0], r[2], r[4]) for r in rows)
    for key in sorted(counts):
        print(*key, counts[key], sep="\t")


if __name__ == "__main__":
    main(sys.argv[1:])
