"""The refusals of one function, gathered across the pipeline so that one run reports them all.

`build` (srcad/pipeline.py) gives the function's `Refusals` to its stages (the analyses read
it as `norm.refusals`). A check that walks the function calls `refusals.add(error)` for each
construct it refuses and goes on with the next; a stage that cannot go on (its result would
be meaningless: a type it could not infer, a view it could not resolve) raises, and
`stopping()` turns that into one error listing it with everything gathered before. Outside
`build`, or before it starts collecting, `add` raises at once: a check that is called on its
own refuses as it always did, and never lets a refused construct through unreported.
"""

from __future__ import annotations

import contextlib

from srcad.errors import SrcadError


class Refusals:
    """The SrcadErrors met in one function: one error for all of them (`error()`)."""

    def __init__(self, function: str | None = None, filename: str | None = None,
                 collect: bool = True):
        self.function, self.filename, self.collect = function, filename, collect
        self.problems: list[SrcadError] = []
        self._seen: set = set()

    def __bool__(self) -> bool:
        return bool(self.problems)

    def add(self, error: SrcadError) -> None:
        """Record `error` (each of a combined error's problems), or raise it when this
        collector does not collect. The same refusal met twice (a check that runs again
        after a rewrite) is recorded once."""
        if not self.collect:
            raise error
        for problem in error.problems:
            key = (problem.filename, problem.line, problem.column, problem.construct,
                   problem.message)
            if key not in self._seen:
                self._seen.add(key)
                self.problems.append(problem.with_traceback(None))

    def error(self) -> SrcadError:
        """One error for every refusal recorded (the refusal itself when there is one)."""
        return SrcadError.combine(self.problems, function=self.function,
                                  filename=self.filename)

    def raise_any(self) -> None:
        """Stop here if anything was refused."""
        if self.problems:
            raise self.error()

    @contextlib.contextmanager
    def stopping(self):
        """Run stages that stop at a refusal they cannot go on from: the refusal is reported
        with everything recorded before it. Once something was refused, a stage that fails
        otherwise is taken to have stumbled on a construct it was never meant to see (what
        was refused is what the user changes first), and the refusals are reported."""
        try:
            yield self
        except SrcadError as err:
            if not self.problems:
                raise
            self.add(err)
            raise self.error() from None
        except Exception:
            if not self.problems:
                raise
            raise self.error() from None


# what a check uses when nothing collects: raise the first refusal, as a check on its own does
STRICT = Refusals(collect=False)
