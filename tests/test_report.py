"""``covert report``: figures and the one-file HTML page of real builds, as a person and a parser see them."""

from __future__ import annotations

import base64
import io
import json
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

pytest.importorskip("matplotlib")
from PIL import Image  # noqa: E402

from covert.cli import main  # noqa: E402
from covert.io.card import check_card, embed_figures, figures_section  # noqa: E402
from covert.publish.push import LAST, local_files, plan_upload  # noqa: E402
from covert.report import write_report  # noqa: E402
from covert.report.figures import FIGURES  # noqa: E402
from covert.validation.dataset import validate_dataset  # noqa: E402

ALL = {name for name, *_ in FIGURES}
OPTIONAL = {"augmentation.png", "pass_rate.png"}


@pytest.fixture(scope="module")
def datasets(tmp_path_factory) -> dict[str, Path]:
    """A multi-turn build written with --report, its calibrated copy, and the augmented calibrated copy."""
    from covert.rollouts.calibrate import calibrate

    root = tmp_path_factory.mktemp("report")
    base = root / "base"
    assert main(["build", "--builders", "all", "--num-tasks", "64", "--seed", "4", "--multi-turn", "--quiet",
                 "--out", str(base), "--report"]) == 0
    calibrated = root / "calibrated"
    calibrate(base, policy="scripted:0.4", k=4, seed=1, out=calibrated)
    augmented = root / "augmented"
    assert main(["augment", str(calibrated), "--out", str(augmented), "--kinds", "distractors,noisy,indirect",
                 "--quiet", "--report"]) == 0
    return {"base": base, "calibrated": calibrated, "augmented": augmented}


def _distinct_colours(png: bytes) -> int:
    image = Image.open(io.BytesIO(png))
    image.load()
    colours = image.convert("RGB").getcolors(maxcolors=1 << 20)
    return len(colours) if colours is not None else 1 << 20


def _check_page(report: Path, expected: set[str]) -> str:
    text = (report / "report.html").read_text()
    inlined = dict(re.findall(r'<figure id="([\w-]+)">.*?src="data:image/png;base64,([A-Za-z0-9+/=]+)"', text))
    assert {f"{name}.png" for name in inlined} == expected
    for name, encoded in inlined.items():
        png = base64.b64decode(encoded)
        assert png == (report / f"{name}.png").read_bytes()  # the page holds the same figures as the files
        assert Image.open(io.BytesIO(png)).size[0] > 300
        assert _distinct_colours(png) > 8, f"{name}.png is blank"
    # self-contained: no file or network resource is referenced
    assert not re.search(r'(src|href)="(?!data:)', text)
    assert "<link" not in text and "<script" not in text
    return text


def test_every_figure_present_and_not_blank(datasets: dict[str, Path]) -> None:
    report = datasets["augmented"] / "report"
    assert {p.name for p in report.glob("*.png")} == ALL
    text = _check_page(report, ALL)
    assert "user turns per conversation" not in text  # the words are in the figure, not the page
    assert "Not augmented" not in text and "Not calibrated" not in text


def test_plain_build_leaves_out_what_it_lacks(datasets: dict[str, Path]) -> None:
    report = datasets["base"] / "report"
    assert {p.name for p in report.glob("*.png")} == ALL - OPTIONAL
    text = _check_page(report, ALL - OPTIONAL)
    assert "Not augmented" in text and "Not calibrated" in text


def test_numbers_come_from_the_dataset(datasets: dict[str, Path]) -> None:
    from covert.report.data import collect

    data = collect(datasets["augmented"])
    manifest = json.loads((datasets["augmented"] / "manifest.json").read_text())
    assert sum(data.per_builder.values()) == manifest["summary"]["accepted"] == len(data.calls_per_task)
    assert set(data.augmentation) == {"distractors", "noisy", "indirect"}
    assert all(v["rows"] + v["not_applicable"] + v["rejected"] == 64 for v in data.augmentation.values())
    assert len(data.pass_rates) == 64 and all(r in (0, 0.25, 0.5, 0.75, 1) for r in data.pass_rates)
    assert len(data.user_turns) == 64 and min(data.user_turns) >= 1
    for rate in data.quality.values():
        assert 0 <= rate <= 1
    used = {t for tools in data.tool_calls.values() for t, n in tools.items() if n}
    coverage = manifest["summary"]["tool_coverage"]
    assert len(used) == sum(c["covered"] for c in coverage.values())


def test_card_embeds_the_figures_by_relative_path(datasets: dict[str, Path]) -> None:
    root = datasets["augmented"]
    card = (root / "README.md").read_text()
    links = re.findall(r"!\[[^\]]+\]\((report/[\w.]+\.png)\)", card)
    assert sorted(links) == sorted(f"report/{name}" for name in ALL)
    assert all((root / link).is_file() for link in links)
    assert check_card(card, root) == []
    assert card.count("## Figures") == 1 and card.index("## Figures") < card.index("## Configs and splits")


def test_card_unchanged_without_report(datasets: dict[str, Path], tmp_path: Path) -> None:
    from covert.io.card import render_card
    from covert.io.reader import iter_rows, load_manifest

    plain = tmp_path / "plain"
    assert main(["build", "--builders", "all", "--num-tasks", "64", "--seed", "4", "--multi-turn", "--quiet",
                 "--out", str(plain)]) == 0
    card = (plain / "README.md").read_text()
    assert "## Figures" not in card and not (plain / "report").exists()
    with_report = (datasets["base"] / "README.md").read_text()
    assert embed_figures(with_report, []) == card.replace(str(plain), str(datasets["base"]))
    figures = [("report/mix.png", "Category and builder mix")]
    assert embed_figures(embed_figures(card, figures), figures) == embed_figures(card, figures)
    manifest = load_manifest(plain)
    examples = {c: next(iter_rows(plain, c)) for c in ("sft", "rl")}
    assert render_card(manifest, examples, figures=figures) == embed_figures(render_card(manifest, examples), figures)
    assert render_card(manifest, examples, figures=[]) == render_card(manifest, examples)
    assert figures_section([]) == ""


def test_report_files_are_not_shards(datasets: dict[str, Path], tmp_path: Path) -> None:
    from covert.publish.regenerate import regenerate

    root = datasets["base"]
    manifest = json.loads((root / "manifest.json").read_text())
    assert not any(rel.startswith("report/") for rel in manifest["files"])
    report = validate_dataset(root)
    assert report.ok, report.failures[:3]
    assert regenerate(str(root), tmp_path / "again").ok
    # covert push uploads them, before the manifest and the card that shows them
    plan = plan_upload(local_files(root), {})
    uploaded = [f.path for c in plan.commits for f in c.add]
    assert {f"report/{n}" for n in ALL - OPTIONAL} | {"report/report.html"} <= set(uploaded)
    assert [f.path for f in plan.commits[-1].add] == list(LAST)


def test_same_dataset_same_bytes_and_stale_figures_go(datasets: dict[str, Path], tmp_path: Path) -> None:
    copy = tmp_path / "augmented"  # the page is titled by the folder's name
    shutil.copytree(datasets["augmented"], copy)
    (copy / "report" / "old.png").write_bytes((copy / "report" / "mix.png").read_bytes())
    files = write_report(copy)
    assert not (copy / "report" / "old.png").exists()
    for path in [*files.figures, files.html]:
        assert path.read_bytes() == (datasets["augmented"] / "report" / path.name).read_bytes()
    assert (copy / "README.md").read_bytes() == (datasets["augmented"] / "README.md").read_bytes()


def test_out_elsewhere_leaves_the_card(datasets: dict[str, Path], tmp_path: Path, capsys) -> None:
    before = (datasets["calibrated"] / "README.md").read_bytes()
    assert main(["report", str(datasets["calibrated"]), "--out", str(tmp_path / "r")]) == 0
    assert "pass_rate.png" in {p.name for p in (tmp_path / "r").glob("*.png")}
    assert (datasets["calibrated"] / "README.md").read_bytes() == before
    assert main(["report", str(tmp_path / "nothing")]) == 2
    assert "not a covert dataset" in capsys.readouterr().err


@pytest.mark.skipif(shutil.which("chromium") is None, reason="headless Chromium (Debian's chromium) is not installed")
def test_page_renders_in_headless_chromium(datasets: dict[str, Path], tmp_path: Path) -> None:
    shot = tmp_path / "shot.png"
    page = (datasets["augmented"] / "report" / "report.html").resolve()
    subprocess.run(["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                    "--disable-component-update", "--disable-sync", "--no-first-run",
                    f"--user-data-dir={tempfile.mkdtemp(dir=tmp_path)}", f"--screenshot={shot}",
                    "--window-size=1400,3000", page.as_uri()], check=True, capture_output=True, timeout=120)
    image = Image.open(shot).convert("RGB")
    assert image.size == (1400, 3000)
    # the figures drawn: the bar colour of the figures shows in the top of the page and further down
    for top in (0, 1500):
        part = image.crop((0, top, 1400, top + 1500))
        assert (59, 110, 168) in {c for _, c in part.getcolors(maxcolors=1 << 22)}
        assert _distinct_colours(_png(part)) > 50


def _png(image: Image.Image) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()
