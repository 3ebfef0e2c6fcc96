"""The loop of the fuzz drivers that check one program per seed and return one outcome for
it (extremum_lanes.py, zero_adjoint_loops.py, reassociated_sums.py, background_calls.py):
`--seed` and `--count` on the command line, each seed checked in turn, the outcomes counted by
kind (the text before a colon), every seed whose outcome is not accepted printed (with its
program where the driver can show it), then the counts; exit status 0 when every outcome was
accepted.
"""

from __future__ import annotations

import argparse
import collections


def run_seeds(description: str, check, argv=None, count: int = 20, accepted=("agreed",),
              title: str = "", seeds=None, program=None) -> int:
    """Run `check(seed)` (an outcome string) over the seeds `--seed`, `--seed` + 1, ... (or
    `seeds(first, count)`); `accepted`: the prefixes of the outcomes that pass; `program(seed)`:
    the program's source printed beside an outcome that does not."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--count", type=int, default=count)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    chosen = seeds(args.seed, args.count) if seeds else range(args.seed, args.seed + args.count)
    outcomes = collections.Counter()
    for seed in chosen:
        outcome = check(seed)
        outcomes[outcome.split(":")[0]] += 1
        if not outcome.startswith(tuple(accepted)):
            shown = f"\n{program(seed)}" if program else ""
            print(f"seed {seed}: {outcome}{shown}", flush=True)
    print(f"{title}: {args.count} programs: {dict(outcomes)}" if title else dict(outcomes))
    return 0 if all(kind.startswith(tuple(accepted)) for kind in outcomes) else 1
