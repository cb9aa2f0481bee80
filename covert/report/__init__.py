"""``covert report``: a dataset at a glance, as PNG figures and one self-contained HTML page.

:func:`write_report` reads a dataset directory (its ``manifest.json`` and a few columns of its rows),
draws the figures with matplotlib (the ``report`` extra) and writes ``report/*.png`` plus
``report/report.html`` (the same figures inlined, with the numbers). With the default location it
also embeds the figures in the dataset card with relative paths (``report/mix.png``), so they show
on the Hub once ``covert push`` uploads the folder. The report files are not shards: they are not in
the manifest's ``files`` and ``covert validate`` and ``covert regenerate`` ignore them.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from covert.errors import UsageError

REPORT_DIR = "report"
HTML_NAME = "report.html"

__all__ = ["HTML_NAME", "REPORT_DIR", "ReportFiles", "write_report"]


@dataclass(frozen=True)
class ReportFiles:
    """What :func:`write_report` wrote: the HTML page, the figures (paths) and whether the card changed."""

    html: Path
    figures: list[Path]
    card_updated: bool


def _require_matplotlib() -> None:
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise UsageError("covert report needs matplotlib: pip install 'covert[report]'") from None


def write_report(root: str | Path, out: str | Path | None = None, card: bool = True) -> ReportFiles:
    """Write the report of the dataset directory ``root`` into ``out`` (default ``root/report``).

    With ``card`` and the default ``out``, the dataset card (``README.md``) gets a Figures section
    that embeds the PNGs by relative path (rewritten in place each time, so running it again is safe).
    Files are written to temporary names and renamed, so an interrupted run leaves the old ones.
    """
    _require_matplotlib()
    from covert.io.card import embed_figures
    from covert.report.data import collect
    from covert.report.figures import draw
    from covert.report.html import page

    root = Path(root)
    target = Path(out) if out is not None else root / REPORT_DIR
    if target.exists() and not target.is_dir():
        raise UsageError(f"{target} is a file; --out takes a folder for the report (report.html and its PNG figures)")
    data = collect(root)
    figures = draw(data)
    earlier = (target / HTML_NAME).is_file()  # a report's folder: its figures that are no longer drawn go
    target.mkdir(parents=True, exist_ok=True)
    written = []
    for figure in figures:
        written.append(_write(target / figure.name, figure.png))
    for stale in target.glob("*.png") if earlier else ():
        if stale not in written:
            stale.unlink()
    html_path = _write(target / HTML_NAME, page(data, figures).encode())
    readme = root / "README.md"
    updated = False
    if card and out is None and readme.is_file():
        text = readme.read_text()
        new = embed_figures(text, [(f"{REPORT_DIR}/{f.name}", f.title) for f in figures])
        if new != text:
            _write(readme, new.encode())
            updated = True
    return ReportFiles(html_path, written, updated)


def _write(path: Path, content: bytes) -> Path:
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_bytes(content)
    tmp.replace(path)
    return path
