"""The refusals of one function, gathered across the pipeline so that one run reports them all.

`build` (srcad/build/pipeline.py) gives the function's `Refusals` to its stages (the analyses read
it as `norm.refusals`). A check that walks the function calls `refusals.add(error)` for each
construct it refuses and goes on with the next. A stage that stops at a refusal (a type it
cannot infer, a view it cannot resolve) is run again without the statement holding it
(`without_refused` in srcad/frontend/refused_code.py), what it recorded before
forgotten (`mark`, `forget_since`); one that cannot be run so raises, and `stopping()` turns
that into one error listing it with everything gathered before. Outside
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
        after a rewrite, a helper called twice) is recorded once, as first met."""
        if not self.collect:
            raise error
        for problem in error.problems:
            key = _key(problem)
            if key not in self._seen:
                self._seen.add(key)
                self.problems.append(problem.with_traceback(None))

    def mark(self) -> int:
        """A point to go back to (`forget_since`)."""
        return len(self.problems)

    def forget_since(self, mark: int) -> None:
        """Drop what was recorded after `mark`: a check that was cut short by a refusal and
        runs again once the refused code is set aside records it again, or not at all."""
        for problem in self.problems[mark:]:
            self._seen.discard(_key(problem))
        del self.problems[mark:]

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


def _key(problem: SrcadError) -> tuple:
    """What makes two refusals the same (not the context: a helper called twice)."""
    return (problem.filename, problem.line, problem.column, problem.construct, problem.message)


# what a check uses when nothing collects: raise the first refusal, as a check on its own does
STRICT = Refusals(collect=False)
