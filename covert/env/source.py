"""A source of environments: a family of builders that a plugin resolves by name, on demand."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from covert.env.builder import Builder


def _lists_none() -> Iterable[str]:
    return ()


@dataclass(frozen=True)
class Source:
    """Environments resolved by name: what a plugin registers when it provides more than one fixed builder.

    Register one under the entry-point group ``covert.environments`` (``myfamily = "mypkg.envs:SOURCE"``),
    as covert registers its own (hand-written builders, admitted imported APIs, procedural tool forms,
    live MCP servers).

    Attributes:
        prefix: How every name the source resolves starts (``"api."``, ``"procgen."``), or ``""`` for plain
            names. Plainly named environments join the pool (``--builders all``, distractor tools, trainer
            tool lists) like a single registered :class:`Builder`; prefixed ones are used only when named.
        builder: ``name -> Builder``, or ``None`` when the source does not know ``name`` (it may instead raise
            :class:`covert.env.UnknownBuilderError` with a more helpful one-line message).
        names: The full names the source lists (``covert list``, ``<prefix>*`` in a builder list); for a
            plainly named source, the names of its pooled environments.
        hint: Appended to the error for a name the source does not know (e.g. where to see the known ones).
    """

    prefix: str
    builder: Callable[[str], Builder | None]
    names: Callable[[], Iterable[str]] = _lists_none
    hint: str = ""
