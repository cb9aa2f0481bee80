"""What the audit reads from one SFT row: the user's text, the assistant's text, and the calls turn by turn."""

from __future__ import annotations

import contextlib
import re
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import orjson

from covert.augment.formats import FORMATS, FormatError
from covert.augment.formats import load as load_format
from covert.language.values import normalize_text

# bounds for hostile rows: the audit reads at most this much of each text and of each output
MAX_TEXT = 20_000
MAX_SCALARS = 5_000
_XML_TEXT = re.compile(r">([^<>]{1,300})<")
_LINE_VALUE = re.compile(r"^[\s\-]*[\w.\[\]]{1,80}\s*[:=]\s*(.{1,300})$", re.MULTILINE)
_CELL = re.compile(r"[^,|\t\n]{1,300}")
_TOKEN = re.compile(r"[^\s,|:;<>\"'=\[\]{}()*`]{3,120}")


@dataclass
class CallView:
    """One oracle call as it appears in the row: name, arguments, the tool's reply."""

    name: str
    arguments: dict[str, Any]
    output: Any
    writes: bool
    scalars: frozenset[str] = frozenset()


@dataclass
class RowView:
    """The parts of an SFT row the checks look at (multi-turn and augmented rows too)."""

    task_id: str
    builder: str
    category: str
    system: str
    user_texts: list[str]
    assistant_texts: list[str]
    answer: str
    turns: list[list[CallView]]
    tools: dict[str, dict[str, Any]]
    behaviour: str
    user_norm: str = ""
    extras: dict[str, Any] = field(default_factory=dict)

    @property
    def query(self) -> str:
        """The first user message."""
        return self.user_texts[0] if self.user_texts else ""

    @property
    def calls(self) -> list[CallView]:
        """Every call, in order."""
        return [c for turn in self.turns for c in turn]

    @property
    def read_only(self) -> bool:
        """Calls were made and none of them writes."""
        return bool(self.turns) and not any(c.writes for c in self.calls)


def _formats_of(row: dict[str, Any]) -> list[str]:
    """The format each call's output is shown in, by call order, for a ``multi_format`` row (else ``[]``)."""
    for aug in row.get("augmentations") or []:
        if isinstance(aug, str):
            try:
                aug = orjson.loads(aug)
            except orjson.JSONDecodeError:
                continue
        if isinstance(aug, dict) and aug.get("kind") == "multi_format" and isinstance(aug.get("formats"), list):
            return [str(f) for f in aug["formats"]]
    return []


def parse_output(content: str, shown_as: str | None = None) -> Any:
    """A tool message's content as data: read in the format a ``multi_format`` row says it is shown in
    (``shown_as``: xml, kv, ...), else as JSON; a reply that does not parse so (an XML, YAML, CSV or
    Markdown rendering) becomes the list of the text values it holds (element texts, ``key: value``
    values, table cells and bare tokens), so value checks still see them; it holds no records."""
    content = content[:MAX_TEXT * 10]
    if shown_as in FORMATS:
        with contextlib.suppress(FormatError):
            return load_format(content, shown_as)
    try:
        return orjson.loads(content)
    except orjson.JSONDecodeError:
        values = [v.strip() for v in _XML_TEXT.findall(content)]
        values += [v.strip().strip("'\"") for v in _LINE_VALUE.findall(content)]
        values += [v.strip() for v in _CELL.findall(content)] + _TOKEN.findall(content)
        return list(dict.fromkeys(v for v in values if v))[:MAX_SCALARS]


def scalars_of(value: Any) -> frozenset[str]:
    """The scalars inside nested data as text (numbers as written in JSON), bounded."""
    out: set[str] = set()
    stack = [value]
    while stack and len(out) < MAX_SCALARS:
        item = stack.pop()
        if isinstance(item, bool) or item is None:
            continue
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, float):
            out.add(repr(item)[:-2] if repr(item).endswith(".0") else repr(item))
        elif isinstance(item, (int, str)):
            out.add(str(item))
    return frozenset(out)


@cache
def _tool_writes(builder: str) -> dict[str, bool] | None:
    from covert.env import UnknownBuilderError, get_builder

    try:
        spec = get_builder(builder)
    except (UnknownBuilderError, Exception):  # an imported builder whose store is gone reads as unknown
        return None
    return {name: bool(tool.writes) for name, tool in spec.tools.items()}


_WRITE_VERBS = frozenset((
    "create", "update", "cancel", "delete", "send", "book", "add", "remove", "set", "modify", "change", "transfer",
    "pay", "freeze", "unfreeze", "report", "dispute", "assign", "escalate", "resolve", "submit", "request", "redeem",
    "reply", "forward", "archive", "activate", "control", "reschedule", "respond", "return", "patch", "put", "post",
    "insert", "upsert", "replace", "destroy", "purge", "erase", "trash", "move", "rename", "enable", "disable",
    "start", "stop", "restart", "reset", "revoke", "approve", "reject", "close", "open", "import", "upload", "write",
    "edit", "mark", "attach", "detach", "deactivate", "suspend", "undelete", "untrash", "batchdelete", "batchupdate",
    "batchcreate", "bulkdelete", "publish", "unpublish", "invite", "grant", "apply"))
# verbs that end a name in APIs that name the collection first (``users_patch``, ``instances.delete``)
_LAST_VERBS = frozenset(("patch", "put", "delete", "insert", "update", "create", "remove", "destroy", "upsert",
                         "replace", "undelete", "untrash", "trash", "send", "cancel", "move", "stop", "start", "reset"))
_NAME_WORDS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")


# words that may come before a name's verb (``partialUpdateProjectRole``, ``batchCreateUsers``)
_VERB_MODIFIERS = frozenset(("partial", "batch", "bulk", "force", "soft", "hard", "full", "async"))


def writes_by_name(tool: str) -> bool:
    """Whether a tool's name says it writes: its first or last word is a write verb (``cancel_order``,
    ``DeleteBucket``, ``widgets_patch``, ``compute.instances.delete``), or its second after a modifier
    (``partialUpdateProjectRole``), or the first after a namespace (``enterprise-admin_delete-global-webhook``);
    a number that keeps two names apart (``notes_patch_2``) is no word of it."""
    words = [w.lower() for w in _NAME_WORDS.findall(tool)]
    while words and words[-1].isdigit():
        words.pop()
    if not words:
        return False
    heads = [words[0]]
    if words[0] in _VERB_MODIFIERS and len(words) > 1:
        heads.append(words[1])
    namespace, underscore, rest = tool.partition("_")
    after = _NAME_WORDS.findall(rest) if underscore and "-" in namespace + rest else []
    if after:
        heads.append(after[0].lower())
    return any(head in _WRITE_VERBS for head in heads) or words[-1] in _LAST_VERBS


def is_write(builder: str, tool: str) -> bool:
    """Whether a tool writes: what the installed builder says of it; for a tool it does not know (a
    distractor from another domain) or a builder that is not installed, what the tool's name says; an
    imported environment's tool also writes where its name says so (``DeleteFax``, ``users_patch``)."""
    known = _tool_writes(builder)
    if known is None or tool not in known:
        return writes_by_name(tool)
    return known[tool] or (builder.startswith("api.") and writes_by_name(tool))


def row_view(row: dict[str, Any]) -> RowView:
    """The audit's view of an SFT row (``messages`` and ``tools``)."""
    messages = row.get("messages") or []
    builder = str(row.get("builder", ""))
    user_texts = [str(m.get("content") or "")[:MAX_TEXT] for m in messages if m.get("role") == "user"]
    assistant_texts = [str(m.get("content") or "")[:MAX_TEXT] for m in messages
                       if m.get("role") == "assistant" and m.get("content")]
    final = messages[-1] if messages else {}
    answer = str(final.get("content") or "")[:MAX_TEXT] if final.get("role") == "assistant" else ""
    outputs = {m.get("tool_call_id"): str(m.get("content") or "") for m in messages if m.get("role") == "tool"}
    turns: list[list[CallView]] = []
    shown_as = _formats_of(row)
    j = -1
    for m in messages:
        if m.get("role") != "assistant" or not m.get("tool_calls"):
            continue
        turn = []
        for call in m["tool_calls"]:
            j += 1
            function = call.get("function") or {}
            name = str(function.get("name", ""))
            arguments = function.get("arguments")
            if not isinstance(arguments, dict):
                arguments = {}
            output = parse_output(outputs.get(call.get("id"), ""), shown_as[j] if j < len(shown_as) else None)
            turn.append(CallView(name, arguments, output, is_write(builder, name), scalars_of(output)))
        turns.append(turn)
    tools = {}
    for tool in row.get("tools") or []:
        function = tool.get("function") or {} if isinstance(tool, dict) else {}
        if "name" in function:
            tools[str(function["name"])] = function
    truth = row.get("ground_truth") or {}
    if not isinstance(truth, dict):
        truth = {}
    system = next((str(m.get("content") or "") for m in messages if m.get("role") == "system"), "")
    extras = {"reasoning": [str(m.get("reasoning_content") or "")[:MAX_TEXT] for m in messages
                            if m.get("role") == "assistant" and m.get("tool_calls") and m.get("reasoning_content")],
              "exchanges": _exchanges(messages, len(turns)),
              "timeline": _timeline(messages),
              "failure": truth.get("failure") if isinstance(truth.get("failure"), dict) else None,
              "selections": [str(s.get("value")) for s in truth.get("selections") or []
                             if isinstance(s, dict) and s.get("value") is not None]}
    return RowView(
        task_id=str(row.get("task_id", "?")), builder=builder, category=str(row.get("category", "")),
        system=system[:MAX_TEXT], user_texts=user_texts, assistant_texts=assistant_texts, answer=answer,
        turns=turns, tools=tools, behaviour=str(truth.get("behaviour", "tool_use")),
        user_norm=normalize_text(" ".join(user_texts)),
        extras={**extras, "initial_state": row.get("initial_state"), "outputs_raw": list(outputs.values())},
    )


def _timeline(messages: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """The conversation in order as ``(kind, text)``: ``"shown"`` for what a message says (user, tool and
    assistant content), ``"reasoning"`` for an assistant turn's reasoning, which comes before its content."""
    out = []
    for m in messages[:2000]:
        if m.get("role") == "system":
            continue
        if m.get("role") == "assistant" and m.get("reasoning_content"):
            out.append(("reasoning", str(m.get("reasoning_content"))[:MAX_TEXT]))
        if m.get("content"):
            out.append(("shown", str(m.get("content"))[:MAX_TEXT * 10]))
    return out


def _exchanges(messages: list[dict[str, Any]], turns: int) -> list[tuple[str, str, int]]:
    """Each assistant text that the user answers: ``(question, reply, index of the next tool-call turn)``
    (``turns`` when no call follows)."""
    out = []
    seen = 0
    for i, m in enumerate(messages):
        if m.get("role") != "assistant":
            continue
        if m.get("tool_calls"):
            seen += 1
            continue
        if i + 1 < len(messages) and messages[i + 1].get("role") == "user":
            out.append((str(m.get("content") or "")[:MAX_TEXT], str(messages[i + 1].get("content") or "")[:MAX_TEXT],
                        min(seen, turns)))
    return out
