"""One rollout's environment: calls run on a fork of the row's initial state, with the failures the
row records injected, and every call logged.

Failure rows (behaviours ``retry`` and ``report_error``, written by stage 2) record in
``ground_truth["failure"]`` which oracle call fails and how::

    {"call": 2, "transient": true, "attempts": 1, "error": {"code": "timeout", "message": "...", ...}, ...}

``call`` is the index of the failing call among the oracle calls (flattened over turns), and
``error`` the observation the agent sees (``{"code", "message"}``, or the full
``{"error": {...}}`` observation). A transient failure answers the first ``attempts`` identical
calls (same name and arguments) with the error and then lets the call through; a permanent one
answers every identical call with the error. A failed call never touches the state. A list of such
objects is accepted too.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from covert.env import Environment, State, canonical_bytes, error_observation
from covert.rewards.rowview import BadRow

MAX_ATTEMPTS = 8  # transient failures repeat at most this often (covert writes 1 to 3)


@dataclass(frozen=True)
class Failure:
    """A recorded failure of one oracle call."""

    index: int
    name: str
    arguments: dict[str, Any]
    observation: dict[str, Any]
    transient: bool
    attempts: int = 1

    @property
    def key(self) -> tuple[str, bytes] | None:
        """The identity of the failing call."""
        return call_key(self.name, self.arguments)


@dataclass(frozen=True)
class CallRecord:
    """One call made during a session."""

    name: str
    arguments: Any
    output: Any
    injected: bool  # the output is a recorded failure, not the tool's own answer


def call_key(name: Any, arguments: Any) -> tuple[str, bytes] | None:
    """A hashable identity of a call (name and canonical arguments); ``None`` if it has none."""
    if not isinstance(name, str):
        return None
    try:
        return name, canonical_bytes(arguments)
    except (TypeError, ValueError):
        return None


def failures_of(truth: Mapping[str, Any], calls: Sequence[Mapping[str, Any]]) -> list[Failure]:
    """The failures a ground truth records (see the module docstring); ``calls`` are the oracle calls,
    flattened. Entries that do not name a real oracle call are ignored; more entries than calls, or
    ``attempts`` outside 1..:data:`MAX_ATTEMPTS`, make the row a :class:`BadRow` (scoring repeats a
    transient failure ``attempts`` times)."""
    raw = truth.get("failure")
    entries = raw if isinstance(raw, list) else [raw] if isinstance(raw, Mapping) else []
    if len(entries) > len(calls):
        raise BadRow(f"the ground truth records {len(entries)} failures for {len(calls)} calls")
    out = []
    for entry in entries:
        if not isinstance(entry, Mapping):
            continue
        index = entry.get("call")
        if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < len(calls):
            continue
        call = calls[index]
        transient = entry.get("transient") is True
        attempts = entry.get("attempts", 1)
        if isinstance(attempts, bool) or not isinstance(attempts, int) or not 1 <= attempts <= MAX_ATTEMPTS:
            raise BadRow(f"a failure's attempts must be an integer from 1 to {MAX_ATTEMPTS}, not {attempts!r}"[:200])
        out.append(Failure(
            index=index,
            name=call["name"],
            arguments=call.get("arguments") or {},
            observation=_observation(entry.get("error")),
            transient=transient,
            attempts=attempts,
        ))
    return out


def _observation(error: Any) -> dict[str, Any]:
    if isinstance(error, Mapping) and isinstance(error.get("error"), Mapping):
        return {"error": dict(error["error"])}
    if isinstance(error, Mapping) and "code" in error:
        return {"error": dict(error)}
    return error_observation("unavailable", "The service is temporarily unavailable. Please try again.")


class Session:
    """An environment for one rollout: calls never raise and are logged in :attr:`log`."""

    def __init__(self, env: Environment, failures: Sequence[Failure] = ()) -> None:
        self.env = env
        self.log: list[CallRecord] = []
        self._failures = {f.key: f for f in failures if f.key is not None}
        self._left = {key: f.attempts for key, f in self._failures.items() if f.transient}

    @classmethod
    def start(cls, env_cls: type[Environment], initial: State, failures: Sequence[Failure] = ()) -> Session:
        """A session on a fork of ``initial`` (O(1): the snapshot and its record digests are shared)."""
        return cls(env_cls(initial), failures)

    @property
    def state(self) -> State:
        """The current state."""
        return self.env.state

    def failure_of(self, name: Any, arguments: Any) -> Failure | None:
        """The recorded failure of this call, if any."""
        key = call_key(name, arguments)
        return self._failures.get(key) if key is not None else None

    def call(self, name: Any, arguments: Any) -> Any:
        """Run one call (or answer it with its recorded failure) and log it."""
        key = call_key(name, arguments)
        failure = self._failures.get(key) if key is not None else None
        if failure is not None and (not failure.transient or self._left[key] > 0):
            if failure.transient:
                self._left[key] -= 1
            self.log.append(CallRecord(name, arguments, failure.observation, True))
            return failure.observation
        output = self.env.call(name, arguments)
        self.log.append(CallRecord(name, arguments, output, False))
        return output
