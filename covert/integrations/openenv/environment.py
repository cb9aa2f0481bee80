"""covert rows as an OpenEnv :class:`~openenv.core.env_server.interfaces.Environment`.

``reset(row=...)`` (an RL row as a mapping) or ``reset(index=i, dataset=..., config=..., split=...)``
(a row of a dataset the server serves) starts an episode on the row's initial state, with the
failures the row records (:meth:`covert.rewards.Scorer.prepare` and its session, as the reward
replays them) and, on rows with ``extra_info.user_scenario``, covert's template user. Each ``step``
is one assistant message: its calls run on the episode's state and come back as tool messages; a
message without calls goes to the user, whose reply comes back, or ends the episode. When the episode
ends (the user stops, there is no user, or the turn limit is reached) the observation carries
``covert.rewards.score`` of the conversation: the same value the reward gives the recorded messages.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

import orjson
from openenv.core.env_server.interfaces import Environment

from covert.env import error_observation
from covert.integrations.openenv.models import CovertAction, CovertObservation, CovertState
from covert.procgen.rows import procgen_truth
from covert.rewards import default_scorer, parse_completion
from covert.rewards.session import Session
from covert.rewards.trl_env import user_scenario_of
from covert.user.scenario import UserScenario
from covert.user.simulator import STOP_SIGNALS, TemplateUser

MAX_TURNS = 30
"""Assistant messages per episode; the episode ends (and is scored) at the limit."""
MAX_CALLS_PER_TURN = 64
MAX_CONTENT_CHARS = 200_000
STOP_NO_USER = "no_user"
STOP_TURN_LIMIT = "turn_limit"
_LOCK = threading.Lock()  # the default scorer's row cache is shared by the server's sessions


_LOADING = threading.Lock()  # sessions resetting by index at once load a dataset once, not once each


def _dataset(path: str, config: str, split: str) -> Any:
    with _LOADING:
        return _load(path, config, split)


@lru_cache(maxsize=16)
def _load(path: str, config: str, split: str) -> Any:
    import datasets

    return datasets.load_dataset(path, config, split=split)


def dataset_row(path: str, index: int, config: str = "rl", split: str = "train") -> dict[str, Any]:
    """Row ``index`` of a covert dataset (a directory or a Hub repo id), loaded once per process."""
    rows = _dataset(path, config, split)
    if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < len(rows):
        raise ValueError(f"index must be an integer from 0 to {len(rows) - 1} for {path} {config}/{split}, not {index!r}")
    return rows[index]


class CovertOpenEnv(Environment[CovertAction, CovertObservation, CovertState]):
    """One episode at a time on a covert row; the server makes one instance per session.

    Args:
        datasets: Datasets (directories or Hub repo ids) that ``reset(index=...)`` may read; the
            first is the default. ``reset(row=...)`` needs none.
        max_turns: Assistant messages per episode.
    """

    SUPPORTS_CONCURRENT_SESSIONS = True

    def __init__(self, datasets: Sequence[str] = (), max_turns: int = MAX_TURNS) -> None:
        super().__init__()
        self.datasets = tuple(datasets)
        self.max_turns = max_turns
        self._row: dict[str, Any] | None = None
        self._session: Session | None = None
        self._user: TemplateUser | None = None
        self._completion: list[dict[str, Any]] = []
        self._state = CovertState()
        self._turns = 0
        self._calls = 0

    def reset(self, seed: int | None = None, episode_id: str | None = None, row: Any = None,
              index: int | None = None, dataset: str | None = None, config: str = "rl",
              split: str = "train", **_: Any) -> CovertObservation:
        """Start an episode on ``row``, or on row ``index`` of ``dataset`` (default: the first one served)."""
        if row is None:
            if index is None:
                raise ValueError("reset needs row={...} (an RL row) or index=N (a row of a served dataset)")
            path = dataset or (self.datasets[0] if self.datasets else None)
            if path is None or path not in self.datasets:
                raise ValueError(f"dataset {path!r} is not served here; served: {list(self.datasets)}")
            row = dataset_row(path, index, config, split)
        if not isinstance(row, Mapping):
            raise ValueError(f"row must be an RL row (a mapping), not {type(row).__name__}")
        row = dict(row)
        if procgen_truth(row) is not None and not row.get("tools"):
            raise ValueError("a procedural text row offers no tools, so it has no episode to play: score its "
                             "answer with covert.rewards.score(row, answer)")
        with _LOCK:
            prepared = default_scorer().prepare(row)
        self._row = row
        self._session = prepared.session()
        scenario = user_scenario_of(row)
        self._user = TemplateUser(UserScenario.from_dict(scenario)) if scenario else None
        self._completion = []
        self._turns = self._calls = 0
        self._state = CovertState(episode_id=episode_id or str(uuid.uuid4()), task_id=prepared.view.task_id or "",
                                  builder=prepared.view.builder, state_hash=self._session.state.hash())
        prompt = [dict(m) for m in row.get("prompt") or []]
        tools = row.get("tools") or [s.openai() for s in prepared.env_cls.tool_specs.values()]
        return CovertObservation(messages=prompt, tools=list(tools), task_id=self._state.task_id)

    def step(self, action: CovertAction, timeout_s: float | None = None, **_: Any) -> CovertObservation:
        """Run one assistant message (see the module docstring)."""
        task = self._state.task_id
        if self._session is None:
            return CovertObservation(error="no episode: call reset first", done=True, task_id=task)
        if self._state.done:
            return CovertObservation(error="the episode is over: call reset", done=True, reward=self._state.reward,
                                     task_id=task)
        content, calls, problem = _read(action)
        if problem is not None:
            return CovertObservation(error=problem, task_id=task)
        self._turns += 1
        self._state.step_count += 1
        message: dict[str, Any] = {"role": "assistant", "content": content}
        if calls:
            message["tool_calls"] = calls
        self._completion.append(message)
        turn = parse_completion([message])
        readable = turn.turns[0] if turn.turns else None
        if readable is not None and len(readable.calls) + readable.invalid > MAX_CALLS_PER_TURN:
            # calls written in the text are bounded like tool_calls: none of them runs
            message["tool_calls"] = [{}] * (len(readable.calls) + readable.invalid)
            message["content"] = ""
            return CovertObservation(error=f"{len(readable.calls) + readable.invalid} tool calls in one message; "
                                           f"at most {MAX_CALLS_PER_TURN} are run", task_id=task)
        if readable is not None and (readable.calls or readable.invalid):
            out = self._run_calls(message, readable, turn.reasons)
            error = "; ".join(turn.reasons) or None
            if self._turns >= self.max_turns:
                return self._end(STOP_TURN_LIMIT, out, error)
            return CovertObservation(messages=out, error=error, task_id=task)
        if self._user is None:
            return self._end(STOP_NO_USER, [])
        reply = self._user.reply(message)
        said = {"role": "user", "content": reply.content}
        self._completion.append(said)
        if reply.stop is not None:
            return self._end(reply.stop, [said])
        if self._turns >= self.max_turns:
            return self._end(STOP_TURN_LIMIT, [said])
        return CovertObservation(messages=[said], task_id=task)

    def _run_calls(self, message: dict[str, Any], readable: Any, reasons: list[str]) -> list[dict[str, Any]]:
        """Run the readable calls in order (as the reward replays them); answer each unreadable one
        with an error tool message."""
        assert self._session is not None
        raw = message.get("tool_calls") or []
        ids = [c.get("id") if isinstance(c, Mapping) and isinstance(c.get("id"), str) else None for c in raw]
        out = []
        for k, call in enumerate(readable.calls):
            output = self._session.call(call.name, call.arguments)
            call_id = ids[k] if k < len(ids) and ids[k] else f"call_{self._calls}"
            self._calls += 1
            out.append({"role": "tool", "tool_call_id": call_id, "name": call.name, "content": _json(output)})
        for k in range(readable.invalid):
            why = reasons[k] if k < len(reasons) else "a tool call could not be read"
            out.append({"role": "tool", "tool_call_id": f"invalid_{k}", "name": "",
                        "content": _json(error_observation("invalid_tool_call", why))})
        self._completion.extend(out)
        self._state.calls = self._calls
        self._state.state_hash = self._session.state.hash()
        return out

    def _end(self, stop: str, messages: list[dict[str, Any]], error: str | None = None) -> CovertObservation:
        """End the episode and score it (the user's closing words are not part of what is scored)."""
        scored = self._completion
        if stop in STOP_SIGNALS and scored and scored[-1]["role"] == "user":
            scored = scored[:-1]
        with _LOCK:
            result = default_scorer().score(self._row, scored)
        self._state.done = True
        self._state.reward = result.value
        return CovertObservation(messages=messages, done=True, reward=result.value, stop=stop, error=error,
                                 components=dict(result.components), reasons=list(result.reasons),
                                 task_id=self._state.task_id)

    @property
    def state(self) -> CovertState:
        """The episode's state: task, builder, state hash, calls run, whether it ended, its reward."""
        return self._state

    @property
    def completion(self) -> list[dict[str, Any]]:
        """The episode's messages after the prompt (assistant, tool and user messages)."""
        return list(self._completion)


def _read(action: CovertAction) -> tuple[str, list[Any], str | None]:
    """The message's text and raw calls, or why the action cannot be one assistant message."""
    content = action.content if action.content is not None else ""
    if not isinstance(content, str):
        return "", [], f"content must be a string, not {type(content).__name__}"
    if len(content) > MAX_CONTENT_CHARS:
        return "", [], f"content has {len(content)} characters; at most {MAX_CONTENT_CHARS} are read"
    calls = action.tool_calls if action.tool_calls is not None else []
    if not isinstance(calls, list):
        return "", [], f"tool_calls must be a list of calls, not {type(calls).__name__}"
    if len(calls) > MAX_CALLS_PER_TURN:
        return "", [], f"{len(calls)} tool calls in one message; at most {MAX_CALLS_PER_TURN} are run"
    return content, calls, None


def _json(value: Any) -> str:
    try:
        return orjson.dumps(value).decode()
    except (TypeError, orjson.JSONEncodeError):
        return "null"
