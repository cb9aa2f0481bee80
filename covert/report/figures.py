"""The report's figures, drawn with matplotlib's Agg backend (no display, no browser) into PNG bytes.

Each figure function takes :class:`~covert.report.data.ReportData` and returns a matplotlib figure, or
``None`` when the dataset has nothing to show for it (no augmentation, not calibrated): a figure is
never drawn empty. PNGs are written without a ``Software`` tag so the same data gives the same bytes.
"""

from __future__ import annotations

import io
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from covert.report.data import ReportData

COLOR = "#3b6ea8"
ACCENT = "#d9822b"
MUTED = "#b8c4d0"


@dataclass(frozen=True)
class Figure:
    """One drawn figure: its file name (``mix.png``), title, one-line caption and PNG bytes."""

    name: str
    title: str
    caption: str
    png: bytes


def _plt() -> Any:
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    plt.rcParams.update({"font.size": 10, "axes.spines.top": False, "axes.spines.right": False,
                         "axes.titleweight": "bold", "svg.hashsalt": "covert"})
    return plt


def _barh(ax: Any, counts: dict[str, int | float], title: str, color: str = COLOR, fmt: str = "{:g}") -> None:
    names = list(counts)[::-1]
    values = [counts[n] for n in names]
    bars = ax.barh(names, values, color=color)
    ax.bar_label(bars, labels=[fmt.format(v) for v in values], padding=3, fontsize=8)
    ax.set_title(title)
    ax.margins(x=0.15)


def _hist(ax: Any, values: list[int], title: str, xlabel: str, color: str = COLOR) -> None:
    counts = Counter(values)
    if max(counts) - min(counts) <= 40:  # small integers: one bar per value
        xs = list(range(min(counts), max(counts) + 1))
        ax.bar(xs, [counts.get(x, 0) for x in xs], color=color, width=0.8)
        if len(xs) <= 20:
            ax.set_xticks(xs)
    else:  # integer-aligned bins, at most about 40 of them
        step = -(-(max(counts) - min(counts) + 1) // 40)
        ax.hist(values, bins=range(min(counts), max(counts) + step + 1, step), color=color, rwidth=0.9)
    mean = sum(values) / len(values)
    ax.axvline(mean, color=ACCENT, linestyle="--", linewidth=1.2, label=f"mean {mean:.1f}")
    ax.legend(frameon=False)
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("rows")


def mix(data: ReportData) -> Any:
    """Tasks per category and per builder."""
    if not data.per_category and not data.per_builder:
        return None
    fig, (left, right) = _plt().subplots(1, 2, figsize=(11, 3.8))
    _barh(left, data.per_category, "tasks per category")
    _barh(right, data.per_builder, "tasks per builder")
    return fig


def tool_coverage(data: ReportData) -> Any:
    """Oracle calls per tool, one panel per builder; tools never called are marked."""
    builders = [b for b, tools in data.tool_calls.items() if tools]
    if not builders:
        return None
    cols = min(4, len(builders))
    rows = -(-len(builders) // cols)
    longest = max(len(t) for b in builders for t in data.tool_calls[b])
    fig, axes = _plt().subplots(rows, cols, figsize=(3.2 * cols + 0.07 * longest * cols, 0.28 * rows * max(
        len(data.tool_calls[b]) for b in builders) + 1.2 * rows), squeeze=False)
    for ax in axes.flat[len(builders):]:
        ax.set_visible(False)
    for ax, builder in zip(axes.flat, builders):
        calls = data.tool_calls[builder]
        covered = sum(1 for v in calls.values() if v)
        names = list(calls)[::-1]
        values = [calls[n] for n in names]
        colors = [COLOR if v else ACCENT for v in values]
        bars = ax.barh(names, [v if v else 0.5 for v in values], color=colors)
        ax.bar_label(bars, labels=["" if v else "never called" for v in values], padding=2, fontsize=7,
                     color=ACCENT)
        ax.set_title(f"{builder}: {covered}/{len(calls)} tools used", fontsize=10)
        ax.tick_params(axis="y", labelsize=7)
        ax.set_xlabel("oracle calls", fontsize=8)
    fig.tight_layout()
    return fig


def calls_and_turns(data: ReportData) -> Any:
    """Oracle calls per task and turns per conversation (assistant turns; user turns when multi-turn)."""
    if not data.calls_per_task:
        return None
    panels = 3 if data.user_turns else 2
    fig, axes = _plt().subplots(1, panels, figsize=(5 * panels, 3.6))
    _hist(axes[0], data.calls_per_task, "tool calls per task", "oracle tool calls")
    _hist(axes[1], data.assistant_turns, "assistant turns per conversation (sft)", "assistant messages")
    if data.user_turns:
        _hist(axes[2], data.user_turns, "user turns per conversation (sft-multiturn)", "user messages", ACCENT)
    return fig


def lengths(data: ReportData) -> Any:
    """Words in the user query and in the final answer."""
    if not data.query_words:
        return None
    fig, (left, right) = _plt().subplots(1, 2, figsize=(11, 3.6))
    _hist(left, data.query_words, "query length", "words in the user query")
    _hist(right, data.answer_words, "answer length", "words in the final assistant answer")
    return fig


def rejections(data: ReportData) -> Any:
    """Candidates rejected by validation, by reason (and by the LLM stage, when it ran)."""
    if not data.rejected_by_reason and not data.llm_rejected_by_reason:
        return None
    panels = [(data.rejected_by_reason, "candidates rejected, by reason")]
    if data.llm_rejected_by_reason:
        panels.append((data.llm_rejected_by_reason, "LLM queries rejected, by reason"))
    panels = [(c, t) for c, t in panels if c]
    height = 0.3 * max(len(c) for c, _ in panels) + 1.2
    fig, axes = _plt().subplots(1, len(panels), figsize=(6 * len(panels) + 2, height), squeeze=False)
    for ax, (counts, title) in zip(axes.flat, panels):
        _barh(ax, dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))), title, ACCENT)
    fig.tight_layout()
    return fig


def augmentation(data: ReportData) -> Any:
    """Augmented rows per kind, with base rows a kind does not apply to and rejected variants."""
    if not data.augmentation:
        return None
    plt = _plt()
    kinds = list(data.augmentation)[::-1]
    fig, ax = plt.subplots(figsize=(9, 0.45 * len(kinds) + 1.4))
    left = [0] * len(kinds)
    for key, color, label in (("rows", COLOR, "rows written"), ("rejected", ACCENT, "rejected"),
                              ("not_applicable", MUTED, "not applicable")):
        values = [data.augmentation[k][key] for k in kinds]
        ax.barh(kinds, values, left=left, color=color, label=label)
        left = [a + b for a, b in zip(left, values)]
    ax.set_title("augmentation kinds (per base row)")
    ax.set_xlabel("base rows")
    ax.legend(frameon=False, loc="upper left", bbox_to_anchor=(1.01, 1), fontsize=8)
    fig.tight_layout()
    return fig


def quality(data: ReportData) -> Any:
    """The quality rates covert measures (see :func:`covert.report.data.quality_rates`)."""
    if not data.quality:
        return None
    fig, ax = _plt().subplots(figsize=(9, 0.4 * len(data.quality) + 1.2))
    _barh(ax, data.quality, "quality rates", fmt="{:.3f}")
    ax.set_xlim(0, 1.12)
    fig.tight_layout()
    return fig


def pass_rates(data: ReportData) -> Any:
    """Calibrated pass rates: their histogram, and their mean per category."""
    if not data.calibrated:
        return None
    fig, (left, right) = _plt().subplots(1, 2, figsize=(11, 3.8))
    k = (data.manifest.get("calibration") or {}).get("k") or 8
    left.hist(data.pass_rates, bins=[i / k - 0.5 / k for i in range(k + 2)], color=COLOR, rwidth=0.85)
    left.set_xticks([i / k for i in range(k + 1)])
    left.set_title(f"pass rate per task (k={k})")
    left.set_xlabel("pass rate")
    left.set_ylabel("tasks")
    means = {c: sum(v) / len(v) for c, v in data.pass_rate_by_category.items() if v}
    _barh(right, means, "mean pass rate per category", fmt="{:.2f}")
    right.set_xlim(0, 1.15)
    fig.tight_layout()
    return fig


# (file name, title, caption, drawing function), in the order the report shows them
FIGURES: list[tuple[str, str, str, Callable[[ReportData], Any]]] = [
    ("mix.png", "Category and builder mix", "Accepted tasks per category and per builder.", mix),
    ("tool_coverage.png", "Tool coverage per builder",
     "Oracle calls of each tool in the sft trajectories; orange: a tool no trajectory calls.", tool_coverage),
    ("calls_turns.png", "Calls per task and turns per conversation",
     "Oracle tool calls per task, assistant messages per trajectory, user turns of multi-turn conversations.",
     calls_and_turns),
    ("lengths.png", "Query and answer length", "Words in the user query and in the final assistant answer.", lengths),
    ("rejections.png", "Rejection reasons", "Candidates the build's validation rejected, by reason.", rejections),
    ("augmentation.png", "Augmentation kinds",
     "Per kind: base rows augmented, variants rejected by the preservation proof, rows it does not apply to.",
     augmentation),
    ("quality.png", "Quality rates", "Acceptance and diversity rates the build measured (and audits recorded).",
     quality),
    ("pass_rate.png", "Pass rates", "Calibrated pass rates (covert calibrate) per task and per category.", pass_rates),
]


def png_bytes(fig: Any) -> bytes:
    """The figure as PNG bytes (no Software tag: same data, same bytes); closes the figure."""
    plt = _plt()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=100, bbox_inches="tight", metadata={"Software": None})
    plt.close(fig)
    return buffer.getvalue()


def draw(data: ReportData) -> list[Figure]:
    """Every figure the dataset has data for, in report order."""
    out = []
    for name, title, caption, function in FIGURES:
        fig = function(data)
        if fig is not None:
            out.append(Figure(name, title, caption, png_bytes(fig)))
    return out
