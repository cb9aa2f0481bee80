"""Errors every layer shares: what the CLI reports as one line with exit status 2, a row that fails
validation and a candidate that synthesis (or the language composing its answer) rejects."""

from __future__ import annotations


class UsageError(Exception):
    """Bad input from the command line: printed as one line, exit status 2."""


class EngineUnavailable(UsageError, ImportError):
    """The engine asked for cannot run here (Ray is not installed): one line, exit status 2 in the CLI."""


def missing_extra(exc: ImportError, feature: str, extra: str) -> ImportError:
    """What to raise when importing ``feature`` failed on ``exc``: for an optional library that is not
    installed, a :class:`ModuleNotFoundError` that names it and the extra that installs it (``pip install
    'covert[EXTRA]'``), as the LLM backends say; any other import error as it was."""
    missing = exc.name or ""
    if not isinstance(exc, ModuleNotFoundError) or not missing or missing.split(".")[0] == "covert":
        return exc
    return ModuleNotFoundError(f"{feature} needs {missing.split('.')[0]}, which is not installed: "
                               f"pip install 'covert[{extra}]'", name=missing)


class ReasonedError(Exception):
    """An error with a short stable ``reason`` code (counted in reports) and a ``detail`` saying where."""

    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason
        self.detail = detail


class Invalid(ReasonedError):
    """A row that fails validation; ``reason`` is a stable code, ``detail`` says where."""


class Rejected(ReasonedError):
    """A candidate that failed; ``reason`` is a short stable code such as ``redundant_step``."""
