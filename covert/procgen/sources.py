"""The environment source of procedural environments' tool forms (``procgen.<env>``), registered with covert's
environment registry."""

from __future__ import annotations

from covert.env.builder import Builder
from covert.env.registry import UnknownBuilderError
from covert.env.source import Source
from covert.procgen.tool_form import PREFIX
from covert.procgen.tool_forms import tool_builder, tool_form_names


def _tool_builder(name: str) -> Builder:
    builder = tool_builder(name)
    if builder is None:
        raise UnknownBuilderError(f"unknown environment {name!r}; tool forms: "
                                  f"{', '.join(PREFIX + n for n in tool_form_names())}")
    return builder


TOOL_FORMS = Source(prefix=PREFIX, builder=_tool_builder)
