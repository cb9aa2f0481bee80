"""verl's ``RLHFDataset`` for covert's RL rows: each row as verl loads it gets what verl's
``ToolAgentLoop`` needs to run covert's tools, without a copy of the row's state.

Use it with ``data.custom_cls.path=pkg://covert.rewards.verl_dataset`` and
``data.custom_cls.name=CovertRLHFDataset``. For each row it adds

- ``tools_kwargs = {"covert": {"create_kwargs": {task_id, environment, initial_state, ground_truth}}}``
  (:func:`covert.rewards.verl.verl_tools_kwargs`): one entry every covert tool reads, referring to
  the row's own ``extra_info.initial_state`` and ground truth;
- ``extra_info.tool_selection``: the row's tools under the names the tool config gives them, so the
  model sees the row's tools and no others.

Importing this module imports verl (and torch).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from covert.errors import missing_extra
from covert.rewards.verl import verl_tool_names, verl_tool_selection, verl_tools_kwargs

try:
    from omegaconf import OmegaConf
    from verl.utils.dataset.rl_dataset import RLHFDataset
except ImportError as exc:
    raise missing_extra(exc, "covert.rewards.verl_dataset", "verl") from None


class CovertRLHFDataset(RLHFDataset):
    """``RLHFDataset`` whose rows carry covert's ``tools_kwargs`` and ``extra_info.tool_selection``."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.tool_names = _config_names(self.tool_config_path)

    def __getitem__(self, item: int) -> dict[str, Any]:
        row = super().__getitem__(item)
        row["tools_kwargs"] = verl_tools_kwargs(row)
        selection = verl_tool_selection(row, self.tool_names)
        if selection:
            row["extra_info"]["tool_selection"] = selection
        return row


def _config_names(path: Any) -> dict[tuple[str, str], str]:
    """``(builder, tool) -> name`` of a covert tool config (empty without one)."""
    if not path or not Path(str(path)).is_file():
        return {}
    config = OmegaConf.to_container(OmegaConf.load(str(path)), resolve=True)
    return verl_tool_names(config.get("tools") or []) if isinstance(config, dict) else {}
