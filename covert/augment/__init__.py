"""Stage 2: oracle-preserving augmentations of covert tasks, and the augmented dataset configs.

Kinds (one module each in :mod:`covert.augment.kinds`): ``distractors``, ``indirect``, ``ambiguous``,
``noisy``, ``multi_format``, ``erroneous``. :func:`augment_pair` applies one to a base row pair;
:func:`validate_augmented_row` is the preservation proof (the oracle re-executed on the augmented task);
:func:`augment_dataset` (``covert augment``) writes ``sft-augmented`` and ``rl-augmented`` next to a
dataset's base configs. Importing this package is light: the dataset writer loads Arrow only when used.
"""

from __future__ import annotations

from typing import Any

from covert.augment.present import output_presenter
from covert.augment.registry import INTENSITIES, Kind, NotApplicable, RowPair, get_kind, kind_names
from covert.augment.rows import augment_pair, augmented_task_id
from covert.augment.simulator import clarify_scenario, clarify_user
from covert.augment.verify import is_augmented, validate_augmented_pair, validate_augmented_row

__all__ = [
    "INTENSITIES",
    "AugmentConfig",
    "Kind",
    "NotApplicable",
    "RowPair",
    "augment_dataset",
    "augment_pair",
    "augmented_task_id",
    "clarify_scenario",
    "clarify_user",
    "get_kind",
    "is_augmented",
    "kind_names",
    "output_presenter",
    "validate_augmented_pair",
    "validate_augmented_row",
]


def __getattr__(name: str) -> Any:
    if name in ("AugmentConfig", "augment_dataset"):
        from covert.augment import dataset

        return getattr(dataset, name)
    raise AttributeError(f"module 'covert.augment' has no attribute {name!r}")
