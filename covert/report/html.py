"""The report page: one self-contained HTML file (figures inlined as base64 PNG, no external resource)."""

from __future__ import annotations

import base64
import html
from typing import Any

from covert.report.data import ReportData
from covert.report.figures import Figure

_STYLE = """
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:2rem auto;max-width:1250px;color:#1d2733;padding:0 1rem}
h1{margin-bottom:.2rem}.sub{color:#5b6775;margin-top:0}
.cards{display:flex;flex-wrap:wrap;gap:.8rem;margin:1.2rem 0}
.card{background:#f2f5f8;border-radius:8px;padding:.7rem 1rem;min-width:9rem}
.card b{display:block;font-size:1.4rem}.card span{color:#5b6775;font-size:.85rem}
figure{margin:1.8rem 0}figure img{max-width:100%;border:1px solid #e1e6eb;border-radius:6px}
figcaption{color:#5b6775;font-size:.9rem;margin-top:.3rem}
table{border-collapse:collapse;font-size:.9rem}td,th{border-bottom:1px solid #e1e6eb;padding:.25rem .8rem;text-align:left}
.note{color:#5b6775;font-style:italic}
"""


def _cards(data: ReportData) -> list[tuple[str, str]]:
    summary = data.manifest.get("summary", {})
    rows = data.manifest.get("rows", {})
    tools = sum(len(t) for t in data.tool_calls.values())
    used = sum(1 for t in data.tool_calls.values() for v in t.values() if v)
    cards = [("tasks", f"{summary.get('accepted', len(data.calls_per_task))}"),
             ("candidates", f"{summary.get('candidates', '?')}"),
             ("acceptance", f"{summary.get('acceptance_rate', 0):.1%}"),
             ("builders", f"{len(data.per_builder)}"), ("tools used", f"{used}/{tools}"),
             ("configs", ", ".join(sorted({k.split('/')[0] for k, v in rows.items() if v})))]
    if data.calibrated:
        cards.append(("mean pass rate", f"{sum(data.pass_rates) / len(data.pass_rates):.2f}"))
    return cards


def _absent(data: ReportData, names: set[str]) -> list[str]:
    notes = []
    if "augmentation.png" not in names:
        notes.append("Not augmented: `covert augment` adds oracle-preserving variants (and this figure).")
    if "pass_rate.png" not in names:
        notes.append("Not calibrated: `covert calibrate` records each task's pass rate (and this figure).")
    return notes


def _table(header: list[str], rows: list[list[Any]]) -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in row) + "</tr>" for row in rows)
    return f"<table><tr>{head}</tr>{body}</table>"


def page(data: ReportData, figures: list[Figure]) -> str:
    """The HTML text of the report."""
    command = data.manifest.get("command") or ""
    parts = [
        "<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
        f"<title>covert report: {html.escape(data.name)}</title><style>{_STYLE}</style></head><body>",
        f"<h1>covert dataset report: {html.escape(data.name)}</h1>",
        f'<p class="sub">covert {html.escape(str(data.manifest.get("covert_version", "?")))}'
        + (f" · <code>{html.escape(command.splitlines()[0])}</code>" if command else "") + "</p>",
        '<div class="cards">' + "".join(f"<div class=\"card\"><b>{html.escape(v)}</b><span>{html.escape(k)}</span></div>"
                                        for k, v in _cards(data)) + "</div>",
    ]
    for figure in figures:
        encoded = base64.b64encode(figure.png).decode()
        parts.append(f'<figure id="{figure.name[:-4]}"><h2>{html.escape(figure.title)}</h2>'
                     f'<img alt="{html.escape(figure.title)}" src="data:image/png;base64,{encoded}">'
                     f"<figcaption>{html.escape(figure.caption)}</figcaption></figure>")
    if data.quality:
        parts.append("<h2>Quality rates (values)</h2>" + _table(["rate", "value"], [[k, v] for k, v in data.quality.items()]))
    for note in _absent(data, {f.name for f in figures}):
        parts.append(f'<p class="note">{html.escape(note)}</p>')
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"
