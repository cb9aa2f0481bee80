"""``covert report`` (registered by :mod:`covert.cli`)."""

from __future__ import annotations

import argparse


def _run(args: argparse.Namespace) -> int:
    from covert.report import write_report

    files = write_report(args.dir, out=args.out, card=not args.no_card)
    print(f"wrote {files.html} and {_figures(files)}"
          + ("; the dataset card embeds them" if files.card_updated else ""))
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``covert report DIR [--out DIR] [--no-card]``."""
    s = sub.add_parser("report", help="write PNG figures and a one-file HTML report of a dataset",
                       description="Figures of a dataset (mix, tool coverage, calls and turns, lengths, rejections, "
                                   "augmentation kinds, quality rates, pass rates) as DIR/report/*.png and one "
                                   "self-contained DIR/report/report.html; the dataset card embeds the figures.")
    s.add_argument("dir", help="a dataset directory")
    s.add_argument("--out", default=None, help="write the report here instead (the card is then left as it is)")
    s.add_argument("--no-card", action="store_true", help="do not embed the figures in the dataset card")
    s.set_defaults(func=_run)


def report_after(out: str) -> None:
    """Write the report of a dataset just written (``covert build --report``, ``covert augment --report``)."""
    from covert.report import write_report

    files = write_report(out)
    print(f"wrote {files.html} and {_figures(files)}")


def _figures(files: object) -> str:
    count = len(files.figures)  # type: ignore[attr-defined]
    return f"{count} figure" + ("" if count == 1 else "s")
