"""covert environments for verifiers (``pip install "covert[verifiers]"``): one module id,
``covert.integrations.verifiers``, for the verifiers that is installed.

- verifiers 0.4 (``verifiers.v1``): this module is a taskset package as verifiers 0.4 loads one. It
  exports :class:`~covert.integrations.verifiers.taskset.CovertTaskset` (each task a covert RL row,
  its reward ``covert.rewards.score``) and :class:`~covert.integrations.verifiers.taskset.CovertEnv`
  (plays each row's template user on rows with a user scenario). Each rollout gets its own tool
  server (:class:`~covert.integrations.verifiers.toolset.CovertToolset`, MCP) offering the row's own
  tools on a fresh session of the row's initial state, with the failures the row records.
- verifiers 0.3 (classic API): ``verifiers.load_environment("covert.integrations.verifiers",
  dataset=...)`` or :func:`~covert.integrations.verifiers.classic.load_environment`, a
  ``MultiTurnEnv`` whose rubric is ``covert.rewards.score``.

Any other verifiers version raises ``ImportError`` saying what to install.
"""

from __future__ import annotations

from covert.errors import missing_extra
from covert.integrations.verifiers.version import CLASSIC, verifiers_api

API = verifiers_api()
"""``"classic"`` (verifiers 0.3) or ``"v1"`` (verifiers 0.4)."""

try:
    if API == CLASSIC:
        from covert.integrations.verifiers.classic import (
            CovertMultiTurnEnv,
            covert_reward,
            load_environment,
            verifiers_dataset,
        )

        __all__ = ["CovertMultiTurnEnv", "covert_reward", "load_environment", "verifiers_dataset"]
    else:
        from covert.integrations.verifiers.taskset import (
            CovertData,
            CovertEnv,
            CovertEnvConfig,
            CovertTask,
            CovertTaskConfig,
            CovertTaskset,
            CovertTasksetConfig,
        )

        # verifiers 0.4 loads the one Taskset and the one Env this list exports
        __all__ = ["CovertData", "CovertEnv", "CovertEnvConfig", "CovertTask", "CovertTaskConfig", "CovertTaskset",
                   "CovertTasksetConfig"]
except ImportError as exc:  # verifiers present by its metadata, but a module it needs is not
    raise missing_extra(exc, "covert.integrations.verifiers", "verifiers") from None
