"""Noisy outputs: tool results as a busy production API would return them.

Irrelevant fields (request ids, cache status, deprecation notices, links) at the top level and on
list records, a verbose envelope (``{"status": "ok", "data": ..., "meta": ...}``), shuffled key order,
and filler records that bury the needed one in a long list. Nothing of the real output is removed or
changed: fillers are copies of records the task does not single out, with fresh ids, and a list is
padded only where that cannot change an answer (never a list the task counts or sums, or one whose
only record is the selected one; for a max/min choice only records that are not the extreme are
copied).

The presentation is a pure function of the row's record, the ground truth, the call index and the real
output, so an RL environment reproduces it from the row (:func:`present`). :func:`check_output` proves
every value later calls or the answer depend on is still recoverable from the noisy output: each later
argument the real output supplied, each answer fact, each selection (still singling out the same
record) and each reasoning input (the same list for counts and sums, the same unique extreme for
max/min).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, fields
from typing import Any
from zlib import crc32

import orjson

from covert.augment.registry import Kind, NotApplicable, RowPair
from covert.augment.rows import flat_calls, recorded_outputs
from covert.env.state import canonical_bytes
from covert.errors import Invalid
from covert.language.values import contains_value, get_path

_ID_SUFFIXES = ("_id", "_number", "_code", "_tag")
_NOTICES = ("Field names in this response change in API v3; see the migration guide.",
            "This endpoint is rate limited to 50 requests per second per client.",
            "Responses may be served from a cache up to 60 seconds old.")


def _hex(rng: random.Random, n: int) -> str:
    return f"{rng.getrandbits(4 * n):0{n}x}"


_TOP_FIELDS = (
    ("request_id", lambda r: "req_" + _hex(r, 16)),
    ("trace_id", lambda r: _hex(r, 32)),
    ("api_version", lambda r: r.choice(("2023-10-01", "2024-06-15", "2025-01-20"))),
    ("latency_ms", lambda r: 8 + r.getrandbits(9)),
    ("cache_status", lambda r: r.choice(("HIT", "MISS", "STALE"))),
    ("served_by", lambda r: f"api-{r.choice(('us-east-1', 'eu-west-2', 'ap-south-1'))}-{r.randint(1, 40)}"),
    ("rate_limit_remaining", lambda r: r.getrandbits(12)),
    ("deprecation_notice", lambda r: r.choice(_NOTICES)),
    ("links", lambda r: {"self": f"/v2/resources/{_hex(r, 8)}", "docs": "https://developer.example.com/reference"}),
    ("debug", lambda r: {"shard": r.randint(0, 63), "retries": 0, "replica": r.choice(("primary", "replica-2"))}),
    ("locale", lambda r: r.choice(("en-US", "en-GB", "en-IE"))),
)
_RECORD_FIELDS = (
    ("etag", lambda r: 'W/"' + _hex(r, 12) + '"'),
    ("revision", lambda r: 1 + r.getrandbits(5)),
    ("sync_state", lambda r: r.choice(("synced", "pending", "stale"))),
    ("updated_by", lambda r: r.choice(("system", "batch-job", "api", "support-console"))),
)


@dataclass(frozen=True)
class Config:
    """How much noise: top-level fields, fields per list record, an envelope, filler records per list."""

    extra_fields: int = 3
    record_fields: int = 1
    wrapper: bool = True
    pad: int = 4

    @classmethod
    def for_intensity(cls, level: str) -> Config:
        return {"low": cls(2, 0, False, 0), "medium": cls(3, 0, True, 4), "high": cls(5, 2, True, 12)}[level]


@dataclass
class _Guard:
    pad: bool = True
    keep_out: list[tuple[str, str, Any]] | None = None


def _guards(truth: dict[str, Any], j: int) -> dict[str, _Guard]:
    """Per list path of call ``j``'s output: whether fillers may be added, and which records not to copy."""
    guards: dict[str, _Guard] = {}
    for sel in truth["selections"]:
        if sel.get("source_call") != j:
            continue
        guard = guards.setdefault(sel["list_path"], _Guard(keep_out=[]))
        if sel["mode"] == "only":
            guard.pad = False
        elif sel["mode"] in ("max", "min"):
            guard.keep_out.append((sel["mode"], sel["by"], None))
        guard.keep_out.append(("key", sel["key"], sel["chosen"]))
    for fact in truth["answer_facts"]:  # a count the answer states ("3 rooms") must stay the count shown
        if fact.get("call") == j and str(fact.get("form") or "").startswith("n"):
            guards.setdefault(fact["path"], _Guard(keep_out=[])).pad = False
    for step in truth["reasoning"]:
        if step.get("call") != j:
            continue
        guard = guards.setdefault(step["list_path"], _Guard(keep_out=[]))
        op = step["op"].removeprefix("arg")
        if op in ("count", "sum"):
            guard.pad = False
        else:
            guard.keep_out.append((op, step["field"], None))
    return guards


def _copyable(elements: list[dict[str, Any]], guard: _Guard | None) -> list[dict[str, Any]]:
    pool = [e for e in elements if isinstance(e, dict)]
    for rule, field, value in (guard.keep_out or []) if guard else []:
        if rule == "key":
            pool = [e for e in pool if e.get(field) != value]
        else:
            numbers = [e.get(field) for e in pool if isinstance(e.get(field), (int, float))]
            if numbers:
                best = max(numbers) if rule == "max" else min(numbers)
                pool = [e for e in pool if e.get(field) != best]
    return pool


def _rotation(k: int) -> dict[int, int]:
    """A substitution that keeps each character's class (digit, hex digit, other letter, case) and changes
    every character of those classes."""
    table = {}
    for alphabet in ("0123456789", "abcdef", "ABCDEF", "ghijklmnopqrstuvwxyz", "GHIJKLMNOPQRSTUVWXYZ"):
        shift = 1 + k % (len(alphabet) - 1)
        table.update({ord(c): ord(alphabet[(i + shift) % len(alphabet)]) for i, c in enumerate(alphabet)})
    return table


_ROTATIONS = tuple(_rotation(k) for k in range(1, 181))


def _filler(element: dict[str, Any], rng: random.Random, taken: set[str]) -> dict[str, Any] | None:
    """A copy of a record with fresh ids of the same shape (``None`` if an id cannot be made new)."""
    table = _ROTATIONS[rng.randrange(len(_ROTATIONS))]
    clone = dict(element)
    changed = False
    for key, value in element.items():
        if isinstance(value, str) and (key == "id" or key.endswith(_ID_SUFFIXES)):
            new = value.translate(table)
            if new in taken:
                return None
            taken.add(new)
            clone[key] = new
            changed = True
    return clone if changed else None


def _add_fields(record: dict[str, Any], pool: tuple, count: int, rng: random.Random) -> dict[str, Any]:
    free = [(k, make) for k, make in pool if k not in record]
    out = dict(record)
    for key, make in rng.sample(free, min(count, len(free))):
        out[key] = make(rng)
    return out


def _noisy_records(records: list[dict[str, Any]], guard: _Guard | None, config: Config, rng: random.Random) -> list[dict[str, Any]]:
    """The list with filler records buried in it, and the same extra fields and key order on every record."""
    pool = _copyable(records, guard) if config.pad and (guard is None or guard.pad) else []
    out = list(records)
    if pool:
        taken = {v for e in records for k, v in e.items() if isinstance(v, str) and (k == "id" or k.endswith(_ID_SUFFIXES))}
        for _ in range(config.pad):
            clone = _filler(rng.choice(pool), rng, taken)
            if clone is not None:
                out.insert(rng.randrange(len(out) + 1), clone)
    if not config.record_fields:
        return out
    keys = list(dict.fromkeys(k for e in out for k in e))
    extra = [(k, make) for k, make in _RECORD_FIELDS if k not in keys]
    extra = rng.sample(extra, min(config.record_fields, len(extra)))
    keys += [k for k, _ in extra]
    salt = rng.getrandbits(32)
    keys.sort(key=lambda k: crc32(k.encode()) ^ salt)
    shaped = []
    for element in out:
        full = {**element, **{k: make(rng) for k, make in extra}}
        shaped.append({k: full[k] for k in keys if k in full})
    return shaped


def _pad_lists(value: dict[str, Any], path: str, guards: dict[str, _Guard], config: Config,
               rng: random.Random) -> dict[str, Any]:
    out = {}
    for key, item in value.items():
        here = f"{path}.{key}" if path else key
        if isinstance(item, dict):
            item = _pad_lists(item, here, guards, config, rng)
        elif isinstance(item, list) and item and all(isinstance(e, dict) for e in item):
            item = _noisy_records(item, guards.get(here), config, rng)
        out[key] = item
    return out


def _reordered(value: dict[str, Any], salt: int) -> dict[str, Any]:
    """The same dict with its keys in an order drawn from ``salt`` (a deterministic permutation)."""
    return {k: value[k] for k in sorted(value, key=lambda k: crc32(k.encode()) ^ salt)}


def _shuffled(value: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """The keys of a dict and of the dicts it holds directly, in a new order (records keep theirs)."""
    salt = rng.getrandbits(32)
    return {k: _reordered(v, salt) if isinstance(v, dict) else v for k, v in _reordered(value, salt).items()}


_FIELDS = tuple(f.name for f in fields(Config))


def noisy_output(record: dict[str, Any], truth: dict[str, Any], j: int, output: Any) -> Any:
    """The noisy version of the real output of oracle call ``j`` (deterministic)."""
    config = Config(**{k: record[k] for k in _FIELDS})
    rng = random.Random(record["noise_seed"] * 4099 + j)
    noisy = output
    if isinstance(noisy, dict):
        noisy = _shuffled(_add_fields(_pad_lists(noisy, "", _guards(truth, j), config, rng), _TOP_FIELDS,
                                      config.extra_fields, rng), rng)
    if config.wrapper:
        body = rng.choice(("data", "result", "payload"))
        noisy = _shuffled({"status": rng.choice(("ok", "success")), body: noisy,
                           "meta": _add_fields({}, _TOP_FIELDS, max(1, config.extra_fields - 1), rng)}, rng)
    return noisy


def present(record: dict[str, Any], truth: dict[str, Any], j: int, output: Any) -> str:
    """The tool message content showing oracle call ``j``'s output with noise."""
    return orjson.dumps(noisy_output(record, truth, j, output)).decode()


def apply(pair: RowPair, rng: random.Random, config: Config) -> RowPair:
    """Replace every tool message of the SFT row by its noisy version; the RL row records the noise."""
    sft = pair.sft
    truth = sft["ground_truth"]
    if not truth["calls"] or truth["behaviour"] not in ("tool_use", "clarify"):  # clarify: a stacked ambiguous row
        raise NotApplicable("no tool output to add noise to")
    record = {**{f: getattr(config, f) for f in _FIELDS}, "noise_seed": rng.getrandbits(32)}
    outputs = iter(enumerate(recorded_outputs(sft)))
    messages = []
    for m in sft["messages"]:
        if m["role"] == "tool":
            j, output = next(outputs)
            m = {**m, "content": present(record, truth, j, output)}
        messages.append(m)
    return RowPair({**sft, "messages": messages}, pair.rl, record)


def _record_lists(value: Any, out: list[list[Any]]) -> list[list[Any]]:
    if isinstance(value, dict):
        for v in value.values():
            _record_lists(v, out)
    elif isinstance(value, list):
        if value and all(isinstance(e, dict) for e in value):
            out.append(value)
        for v in value:
            _record_lists(v, out)
    return out


def _resolves(sel: dict[str, Any], elements: list[dict[str, Any]]) -> bool:
    if sel["mode"] == "field":
        matches = [e for e in elements if e.get(sel["by"]) == sel["value"]]
        return len(matches) == 1 and matches[0].get(sel["key"]) == sel["chosen"]
    if sel["mode"] in ("max", "min"):
        values = [e.get(sel["by"]) for e in elements]
        if not all(isinstance(v, (int, float)) for v in values):
            return False
        best = max(values) if sel["mode"] == "max" else min(values)
        return values.count(best) == 1 and elements[values.index(best)].get(sel["key"]) == sel["chosen"]
    return len(elements) == 1 and elements[0].get(sel["key"]) == sel["chosen"]


def _within(record: dict[str, Any], shown: dict[str, Any]) -> bool:
    """Every field of ``record`` is in ``shown`` with the same value (noise may add fields)."""
    return all(k in shown and canonical_bytes(shown[k]) == canonical_bytes(v) for k, v in record.items())


def _all_shown(shown: Any, value: Any) -> bool:
    """Every scalar of ``value`` (a scalar, or a list or object a fact names as a whole) occurs in ``shown``."""
    if isinstance(value, dict):
        return all(_all_shown(shown, v) for v in value.values())
    if isinstance(value, list):
        return all(_all_shown(shown, v) for v in value)
    return contains_value(shown, value)


def recoverable(truth: dict[str, Any], j: int, real: Any, shown: Any) -> None:
    """Raise :class:`Invalid` unless everything the task takes from call ``j``'s output is in ``shown``."""
    calls = flat_calls(truth)
    for later in calls[j + 1:]:
        for value in later["arguments"].values():
            for item in value if isinstance(value, list) else [value]:
                if isinstance(item, (dict, list, bool)) or not contains_value(real, item):
                    continue
                if not contains_value(shown, item):
                    raise Invalid("noise_lost_value", f"{later['name']} needs {str(item)[:40]}")
    lists = _record_lists(shown, [])
    for fact in truth["answer_facts"]:
        if fact.get("call") != j:
            continue
        source = get_path(real, fact["path"])
        if str(fact.get("form") or "").startswith("n") and isinstance(source, list):
            # a stated count: the same records, in order, fields added at most (no filler records)
            ok = not source or any(len(lst) == len(source) and all(_within(a, b) for a, b in zip(source, lst))
                                   for lst in lists)
        else:
            ok = _all_shown(shown, source)
        if not ok:
            raise Invalid("noise_lost_fact", fact["value"][:40])
    for sel in truth["selections"]:
        if sel.get("source_call") == j and not any(_resolves(sel, lst) for lst in lists):
            raise Invalid("noise_breaks_selection", f"{sel['mode']} {sel.get('by')}")
    for step in truth["reasoning"]:
        if step.get("call") != j:
            continue
        source = get_path(real, step["list_path"]) if step["list_path"] else real
        if step["op"] in ("count", "sum"):
            ok = any(len(lst) == len(source) and all(_within(a, b) for a, b in zip(source, lst)) for lst in lists)
        else:
            op, field = step["op"].removeprefix("arg"), step["field"]
            best = (max if op == "max" else min)(e[field] for e in source)
            ok = any(
                all(isinstance(e.get(field), (int, float)) for e in lst)
                and (max if op == "max" else min)(e[field] for e in lst) == best
                and [e[field] for e in lst].count(best) == 1
                for lst in lists
            )
        if not ok:
            raise Invalid("noise_breaks_reasoning", f"{step['op']} over {step['list_path']}")


def check_output(ctx: Any, j: int, content: str) -> None:
    """The shown output is JSON, keeps every needed value, and is the row's reproducible noise."""
    try:
        shown = orjson.loads(content)
    except orjson.JSONDecodeError:
        raise Invalid("noisy_output_not_json", f"call {j}") from None
    recoverable(ctx.truth, j, ctx.outputs[j], shown)
    if content != present(ctx.augmentation, ctx.truth, j, ctx.outputs[j]):
        raise Invalid("noisy_output_not_reproducible", f"call {j}")


def _check(ctx: Any) -> None:
    record = ctx.augmentation
    if not isinstance(record.get("noise_seed"), int) or any(k not in record for k in _FIELDS):
        raise Invalid("noise_record", str(record)[:80])


KIND = Kind(name="noisy", position=40, config=Config, apply=apply, check=_check, present=present,
            check_output=check_output,
            description="irrelevant fields, envelopes, shuffled keys and filler records in tool outputs")
