"""covert environments on OpenEnv (``pip install "covert[openenv]"``): a server per the OpenEnv spec
(:mod:`~covert.integrations.openenv.server`), its client (:class:`CovertEnv`), and a ``rollout_func``
for TRL's ``GRPOTrainer`` built on them (:func:`rollout_func`)."""

from __future__ import annotations

from covert.errors import missing_extra

try:
    from covert.integrations.openenv.client import CovertEnv
    from covert.integrations.openenv.environment import CovertOpenEnv, dataset_row
    from covert.integrations.openenv.models import CovertAction, CovertObservation, CovertState
    from covert.integrations.openenv.server import make_app, serve
except ImportError as exc:
    raise missing_extra(exc, "covert.integrations.openenv", "openenv") from None

__all__ = ["CovertAction", "CovertEnv", "CovertObservation", "CovertOpenEnv", "CovertState", "dataset_row",
           "make_app", "serve"]
