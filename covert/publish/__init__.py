"""Publishing: Hub pushes, byte-identical regeneration and exports to other trainers' formats.

The public functions are re-exported lazily, so importing :mod:`covert.publish` (as the CLI does to
register its subcommands) pulls in neither pyarrow nor huggingface_hub.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

# the formats of ``covert export`` (here, so the CLI can offer them without importing the writers)
FORMATS = ("openai-jsonl", "sharegpt", "xlam", "verl-sft")

_EXPORTS = {
    "push_dataset": "covert.publish.push", "plan_upload": "covert.publish.push", "PushError": "covert.publish.push",
    "regenerate": "covert.publish.regenerate", "RegenerateError": "covert.publish.regenerate",
    "export": "covert.publish.export", "ExportError": "covert.publish.export",
}

__all__ = sorted([*_EXPORTS, "FORMATS"])


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'covert.publish' has no attribute {name!r}")
