"""Reading MAPF plans out of model text: per-agent move lines, JSON, and per-step lines.

Accepted forms (case-insensitive; the last ``<answer>...</answer>`` block is read when there is one):

- one line per agent: ``Agent 0: RIGHT, DOWN, WAIT`` (also ``agent_0 = [up, up]``, ``Agent 1 moves: R R D``);
- JSON: ``{"0": ["UP", "LEFT"], "1": [...]}``, keys such as ``"agent 0"``/``"agent_0"``, a list of lists, or
  any of those under ``"moves"``, ``"plan"``, ``"paths"``, ``"actions"`` or ``"answer"``; a move list may
  also be one string;
- one line per time step: ``Step 1: UP, WAIT, LEFT`` (agents in order) or
  ``Step 1: Agent 0: UP, Agent 1: WAIT``.

Move words: ``UP DOWN LEFT RIGHT WAIT``, ``U D L R W``, ``NORTH SOUTH WEST EAST``, ``STAY``/``STOP``/
``NOOP``/``IDLE`` for a wait, and runs of letters such as ``RRD``. Anything else that stands where a move
should is kept as an unknown move (the scorer reports it as an illegal move). The work is bounded: the text is
cut to :data:`MAX_TEXT` characters and each agent to :data:`MAX_MOVES` moves.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

MAX_TEXT = 200_000
MAX_MOVES = 2_000
UNKNOWN = "?"

_WORDS = {
    "UP": "UP", "U": "UP", "NORTH": "UP",
    "DOWN": "DOWN", "D": "DOWN", "SOUTH": "DOWN",
    "LEFT": "LEFT", "L": "LEFT", "WEST": "LEFT",
    "RIGHT": "RIGHT", "R": "RIGHT", "EAST": "RIGHT",
    "WAIT": "WAIT", "W": "WAIT", "STAY": "WAIT", "STOP": "WAIT", "NOOP": "WAIT", "IDLE": "WAIT", "HOLD": "WAIT",
}
_RUN = {"U": "UP", "D": "DOWN", "L": "LEFT", "R": "RIGHT", "W": "WAIT"}
_AGENT_LINE = re.compile(
    r"^[\s>*#\-\d.)]*?[*_`\"']*agent[\s_#-]*(\d+)[*_`\"']*(?:'s)?\s*(?:moves?|actions?|path|plan|steps?)?\s*"
    r"[*_`]*\s*[:=\-\u2013>]+\s*(.*)$", re.I)
_STEP_LINE = re.compile(r"^[\s>*#\-]*(?:step|t|time|turn)\s*=?\s*(\d+)\s*[:.)\-=]+\s*(.*)$", re.I)
_AGENT_IN_STEP = re.compile(r"agent[\s_#-]*(\d+)\s*[:=\-]*\s*([A-Za-z?]+)", re.I)
_TOKEN = re.compile(r"[A-Za-z?]+")
_KEY = re.compile(r"^\s*(?:agent)?[\s_#-]*(\d+)\s*$", re.I)


@dataclass(frozen=True)
class ParsedPlan:
    """Moves read from a response.

    Attributes:
        moves: Agent ``i``'s moves at index ``i`` (``"?"`` for a word that is not a move); ``None`` if no
            plan was found.
        form: Which form was read: ``"lines"``, ``"json"``, ``"steps"`` or ``""``.
        missing: Agents the response gave no moves for.
        too_long: Whether some agent's move list was cut at :data:`MAX_MOVES`.
    """

    moves: tuple[tuple[str, ...], ...] | None
    form: str = ""
    missing: tuple[int, ...] = ()
    too_long: bool = False


def move_words(text: str) -> list[str]:
    """The moves in a fragment such as ``"[RIGHT, down, W]"`` or ``"RRD"`` (stops at ``(`` or ``#``)."""
    text = re.split(r"[(#]", text, maxsplit=1)[0]
    out: list[str] = []
    for token in _TOKEN.findall(text):
        upper = token.upper()
        word = _WORDS.get(upper)
        if word is not None:
            out.append(word)
        elif len(upper) > 1 and all(ch in _RUN for ch in upper):
            out.extend(_RUN[ch] for ch in upper)
        else:
            out.append(UNKNOWN)
        if len(out) > MAX_MOVES:
            break
    return out


def parse_plan(text: object, agents: int) -> ParsedPlan:
    """The plan in ``text`` for ``agents`` agents; never raises."""
    if not isinstance(text, str) or agents < 1:
        return ParsedPlan(None)
    text = text[-MAX_TEXT:]
    body = _last_answer_block(text)
    body = body.replace("```json", "\n").replace("```", "\n")
    for reader, form in ((_from_json, "json"), (_from_agent_lines, "lines"), (_from_step_lines, "steps")):
        found = reader(body, agents)
        if found:
            return _finish(found, agents, form)
    return ParsedPlan(None)


def _last_answer_block(text: str) -> str:
    """The inside of the last ``<answer>...</answer>`` (linear time), or the whole text when there is none."""
    lower = text.lower()
    end = lower.rfind("</answer>")
    if end < 0:
        return text
    start = lower.rfind("<answer>", 0, end)
    return text[start + len("<answer>"):end] if start >= 0 else text


def _finish(found: dict[int, list[str]], agents: int, form: str) -> ParsedPlan:
    too_long = any(len(m) > MAX_MOVES for m in found.values())
    moves = tuple(tuple(found.get(i, [])[:MAX_MOVES]) for i in range(agents))
    missing = tuple(i for i in range(agents) if i not in found)
    return ParsedPlan(moves, form, missing, too_long)


def _from_agent_lines(body: str, agents: int) -> dict[int, list[str]]:
    found: dict[int, list[str]] = {}
    for line in body.splitlines():
        match = _AGENT_LINE.match(line)
        if match and int(match.group(1)) < agents:
            found[int(match.group(1))] = move_words(match.group(2))  # the last line for an agent wins
    return found


def _from_step_lines(body: str, agents: int) -> dict[int, list[str]]:
    steps: list[dict[int, str]] = []
    for line in body.splitlines():
        match = _STEP_LINE.match(line)
        if not match:
            continue
        rest = match.group(2)
        named = _AGENT_IN_STEP.findall(rest)
        if named:
            step = {int(a): (move_words(w) or [UNKNOWN])[0] for a, w in named if int(a) < agents}
        else:
            words = move_words(rest)
            step = dict(enumerate(words[:agents]))
        steps.append(step)
        if len(steps) > MAX_MOVES:
            break
    if not steps:
        return {}
    return {i: [step.get(i, UNKNOWN) for step in steps] for i in range(agents) if any(i in s for s in steps)}


def _from_json(body: str, agents: int) -> dict[int, list[str]]:
    start = min((i for i in (body.find("{"), body.find("[")) if i >= 0), default=-1)
    if start < 0:
        return {}
    end = max(body.rfind("}"), body.rfind("]"))
    if end <= start:
        return {}
    try:
        value = json.loads(body[start:end + 1])
    except (ValueError, RecursionError):
        return {}
    return _moves_of(value, agents, depth=0)


def _moves_of(value: object, agents: int, depth: int) -> dict[int, list[str]]:
    if depth > 3:
        return {}
    if isinstance(value, dict):
        for key in ("moves", "plan", "paths", "actions", "answer", "solution"):
            for k, v in value.items():
                if isinstance(k, str) and k.lower() == key:
                    return _moves_of(v, agents, depth + 1)
        found: dict[int, list[str]] = {}
        for k, v in value.items():
            match = _KEY.match(str(k))
            if match and int(match.group(1)) < agents:
                words = _list_words(v)
                if words is not None:
                    found[int(match.group(1))] = words
        return found
    if isinstance(value, list) and value and all(isinstance(v, list) for v in value):
        found = {}
        for i, v in enumerate(value[:agents]):
            words = _list_words(v)
            if words is not None:
                found[i] = words
        return found
    return {}


def _list_words(value: object) -> list[str] | None:
    if isinstance(value, str):
        return move_words(value)
    if isinstance(value, list):
        out: list[str] = []
        for item in value[:MAX_MOVES + 1]:
            words = move_words(item) if isinstance(item, str) else []
            out.append(words[0] if len(words) == 1 else UNKNOWN)
        return out
    return None
