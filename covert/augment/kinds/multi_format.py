"""Multi-format outputs: the same tool results shown as JSON, YAML, XML, a markdown or CSV table, or
``key: value`` text.

Each output gets one format (``record["formats"][j]``; ``"compact"`` is the stored compact JSON) that
can represent it. :func:`check_output`, run on every written row,
parses each shown output back and proves it equals the real one, types included.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from covert.augment import formats
from covert.augment.registry import Kind, NotApplicable, RowPair
from covert.augment.rows import flat_calls, recorded_outputs
from covert.errors import Invalid
from covert.views import tool_content

COMPACT = "compact"


@dataclass(frozen=True)
class Config:
    """``share``: the fraction of outputs shown in another format (at least one)."""

    share: float = 0.67
    choices: tuple[str, ...] = formats.FORMATS

    @classmethod
    def for_intensity(cls, level: str) -> Config:
        return cls(share={"low": 0.34, "medium": 0.67, "high": 1.0}[level])


def present(record: dict[str, Any], truth: dict[str, Any], j: int, output: Any) -> str:
    """The tool message content of oracle call ``j`` in its recorded format."""
    fmt = record["formats"][j]
    return tool_content(output) if fmt == COMPACT else formats.dump(output, fmt)


def apply(pair: RowPair, rng: random.Random, config: Config) -> RowPair:
    """Pick a format per output (at least one not compact JSON) and rewrite the SFT tool messages."""
    sft = pair.sft
    truth = sft["ground_truth"]
    if not truth["calls"] or truth["behaviour"] != "tool_use":
        raise NotApplicable("no tool output to reformat")
    outputs = recorded_outputs(sft)
    chosen = [COMPACT] * len(outputs)
    contents: dict[int, str] = {}
    order = list(range(len(outputs)))
    rng.shuffle(order)
    for j in order[:max(1, round(config.share * len(outputs)))]:
        options = list(config.choices)
        rng.shuffle(options)
        for fmt in options:
            try:
                contents[j] = formats.dump(outputs[j], fmt, from_json=True)
            except formats.FormatError:
                continue
            chosen[j] = fmt
            break
    if not contents:
        raise NotApplicable("no output can be shown in another format")
    messages, j = [], 0
    for m in sft["messages"]:
        if m["role"] == "tool":
            if j in contents:
                m = {**m, "content": contents[j]}
            j += 1
        messages.append(m)
    return RowPair({**sft, "messages": messages}, pair.rl, {"formats": chosen})


def check_output(ctx: Any, j: int, content: str) -> None:
    """The shown output parses, in its recorded format, to exactly the real output."""
    fmt = ctx.augmentation["formats"][j]
    if fmt == COMPACT:
        if content != tool_content(ctx.outputs[j]):
            raise Invalid("replay_outputs", f"call {j}: tool message differs from the replayed output")
        return
    try:
        shown = formats.load(content, fmt)
    except formats.FormatError as exc:
        raise Invalid("format_unparseable", f"call {j} as {fmt}: {exc}"[:120]) from None
    if not formats.same(shown, ctx.outputs[j]):
        raise Invalid("format_roundtrip", f"call {j} as {fmt} parses to other values")


def check(ctx: Any) -> None:
    """One known format per oracle call, at least one of them not compact JSON."""
    chosen = ctx.augmentation.get("formats")
    known = (COMPACT, *formats.FORMATS)
    if (not isinstance(chosen, list) or len(chosen) != len(flat_calls(ctx.truth))
            or any(f not in known for f in chosen) or all(f == COMPACT for f in chosen)):
        raise Invalid("format_record", str(chosen)[:80])


KIND = Kind(name="multi_format", position=50, config=Config, apply=apply, check=check, present=present,
            check_output=check_output, description="tool outputs as JSON, YAML, XML, markdown/CSV tables or key: value text")
