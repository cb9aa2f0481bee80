"""The result every reward returns: a value in [0, 1], its components and the reasons behind it."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Score:
    """A reward.

    Attributes:
        value: The reward, in ``[0, 1]``; 1 means the completion is right in every respect checked.
        components: The value of each component that applied (``calls``, ``state``, ``facts``,
            ``behaviour``), each in ``[0, 1]``.
        reasons: Why the value is below 1, as ``"<component>:<code>: <detail>"`` strings with stable
            codes (``calls:wrong_value: cancel_pending_order.reason``); empty for a perfect score.
    """

    value: float
    components: dict[str, float] = field(default_factory=dict)
    reasons: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        if type(self.value) is float and 0.0 <= self.value <= 1.0:  # the common case (NaN fails the bounds)
            return
        if not isinstance(self.value, (int, float)) or math.isnan(self.value) or not 0.0 <= self.value <= 1.0:
            raise ValueError(f"a score lies in [0, 1], got {self.value!r}")

    def __float__(self) -> float:
        """The reward as a number (``float(score)`` is ``score.value``)."""
        return float(self.value)

    @classmethod
    def zero(cls, *reasons: str) -> Score:
        """A score of 0 with its reasons."""
        return cls(0.0, {}, list(reasons))

    def to_dict(self) -> dict[str, Any]:
        """Plain-data form (for JSON output)."""
        return {"value": self.value, "components": dict(self.components), "reasons": list(self.reasons)}
