"""``constraints/verl.txt``, the fast install path of ``covert[verl]``: one version of every package,
verl's within the extra's range, and (resolved by pip against the registry) a complete set: pip, given
the file, installs nothing it does not pin but torch and the packages torch brings."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import tomllib
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[1]
CONSTRAINTS = ROOT / "constraints" / "verl.txt"
LEFT_TO_THE_USER = re.compile(r"^(torch|triton|nvidia-.*|cuda-.*)$")


def pins() -> dict[str, Version]:
    out: dict[str, Version] = {}
    for line in CONSTRAINTS.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            name, _, version = line.partition("==")
            assert version and " " not in name, f"not name==version: {line!r}"
            key = canonicalize_name(name)
            assert key not in out, f"{name} pinned twice"
            out[key] = Version(version)
    return out


def test_every_package_is_pinned_once_and_verl_is_in_the_extras_range() -> None:
    pinned = pins()
    assert len(pinned) > 100
    extra = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]["verl"]
    (verl,) = (Requirement(r) for r in extra if Requirement(r).name == "verl")
    assert pinned["verl"] in verl.specifier
    core = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    for requirement in map(Requirement, core):
        assert pinned[canonicalize_name(requirement.name)] in requirement.specifier, requirement
    assert not [name for name in pinned if LEFT_TO_THE_USER.match(name)]


def test_pip_resolves_covert_verl_within_the_pins_alone(tmp_path: Path) -> None:
    report = tmp_path / "report.json"
    out = subprocess.run([sys.executable, "-m", "pip", "install", "--dry-run", "--ignore-installed", "--quiet",
                          "--report", str(report), "-c", str(CONSTRAINTS), f"{ROOT}[verl]"],
                         capture_output=True, text=True, timeout=900)
    unreachable = out.returncode != 0 and "Could not find a version" not in out.stderr and \
        "conflict" not in out.stderr.lower()
    if unreachable and not os.environ.get("CI"):
        pytest.skip(f"pip could not reach the registry: {out.stderr.strip().splitlines()[-1:]}")
    assert out.returncode == 0, out.stderr[-3000:]
    resolved = {canonicalize_name(item["metadata"]["name"]): Version(item["metadata"]["version"])
                for item in json.loads(report.read_text())["install"]}
    pinned = pins()
    unpinned = sorted(name for name in resolved if name not in pinned and name != "covert"
                      and not LEFT_TO_THE_USER.match(name))
    assert not unpinned, f"pip resolved packages constraints/verl.txt does not pin: {unpinned}"
    assert all(resolved[name] == version for name, version in pinned.items() if name in resolved)
