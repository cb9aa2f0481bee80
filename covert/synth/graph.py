"""The tool graph: an edge A -> B where a field of A's output can fill a parameter of B.

Fields and parameters match by entity (the ``x-entity`` tag or the name, ``item_ids`` carrying
``item_id``) and by JSON type. Only entities the builder's language can refer to link tools: a new
address the user types is a value, not a link, even if another tool outputs an address.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

from covert.env import Builder, ToolSpec
from covert.env.schema import ENTITY_KEY


@dataclass(frozen=True)
class OutputField:
    """A scalar field somewhere in a tool's output, such as ``orders[].order_id``."""

    path: str
    entity: str
    type: str
    in_list: bool


@dataclass(frozen=True)
class ListField:
    """A scalar field of the elements of a list in a tool's output (``orders[].total`` is
    ``ListField("orders", "total", ...)``): what a count, sum, max or min reasoning node aggregates."""

    list_path: str
    key: str
    type: str

    @property
    def numeric(self) -> bool:
        """Whether the field holds amounts worth summing or comparing (ids are not)."""
        return self.type in ("number", "integer") and not self.key.endswith("_id")


@dataclass(frozen=True)
class Edge:
    """Output field ``path`` of ``source`` can fill parameter ``param`` of ``target``."""

    source: str
    target: str
    path: str
    param: str
    entity: str


OUTPUT_DEPTH = 5  # nesting levels of an output a later call may take a value from (hand-written outputs use 3)


def output_fields(schema: dict[str, Any], prefix: str = "", in_list: bool = False, depth: int = 0) -> list[OutputField]:
    """Every scalar field of an output schema, with its path, entity and type, down to
    :data:`OUTPUT_DEPTH` levels (an imported API's outputs nest far deeper than anything links from)."""
    fields: list[OutputField] = []
    kind = schema.get("type")
    if depth >= OUTPUT_DEPTH:
        return fields
    if kind == "object":
        for name, sub in schema.get("properties", {}).items():
            path = f"{prefix}.{name}" if prefix else name
            sub_kind = sub.get("type")
            if sub_kind in ("object", "array"):
                fields.extend(output_fields(sub, path, in_list, depth + 1))
            elif sub_kind:
                fields.append(OutputField(path, sub.get(ENTITY_KEY, name), sub_kind, in_list))
    elif kind == "array":
        items = schema.get("items", {})
        if items.get("type") in ("object", "array"):
            fields.extend(output_fields(items, f"{prefix}[]", True, depth + 1))
        elif items.get("type"):
            name = prefix.rsplit(".", 1)[-1]
            entity = items.get(ENTITY_KEY) or (name[:-1] if name.endswith("_ids") else name)
            fields.append(OutputField(f"{prefix}[]", entity, items["type"], True))
    return fields


def param_type(spec: ToolSpec, param: str) -> str:
    """The JSON type of a parameter, or of its items for a list parameter."""
    schema = spec.parameters["properties"][param]
    if schema.get("type") == "array":
        return schema.get("items", {}).get("type", "")
    return schema.get("type", "")


class ToolGraph:
    """Producer/consumer edges between the tools of one builder."""

    def __init__(self, tools: dict[str, ToolSpec], link_entities: set[str] | None = None) -> None:
        self.tools = tools
        self.link_entities = link_entities
        self.outputs = {name: output_fields(spec.returns) for name, spec in tools.items()}
        self.by_entity: dict[str, dict[str, list[OutputField]]] = {name: {} for name in tools}
        self.list_fields: dict[str, list[ListField]] = {name: [] for name in tools}
        for name, fields in self.outputs.items():
            for out in fields:
                self.by_entity[name].setdefault(out.entity, []).append(out)
                list_path, _, key = out.path.partition("[]")
                key = key.lstrip(".")
                if out.in_list and out.path.count("[]") == 1 and key and "." not in key:
                    self.list_fields[name].append(ListField(list_path, key, out.type))
        outputs_of: dict[Any, list[tuple[str, OutputField]]] = {}  # entity -> (tool, field), in tool order
        for source, fields in self.outputs.items():
            for out in fields:
                outputs_of.setdefault(out.entity, []).append((source, out))
        self.edges: list[Edge] = []
        for target, spec in tools.items():
            for param in spec.parameters["properties"]:
                entity, kind = spec.param_entity(param), param_type(spec, param)
                if link_entities is not None and entity not in link_entities:
                    continue
                for source, out in outputs_of.get(entity, ()):
                    if out.type == kind:
                        self.edges.append(Edge(source, target, out.path, param, entity))
        self._producers: dict[str, list[str]] = {}
        seen: set[tuple[str, str]] = set()
        for edge in self.edges:
            producers = self._producers.setdefault(edge.entity, [])
            if (edge.entity, edge.source) not in seen:
                seen.add((edge.entity, edge.source))
                producers.append(edge.source)
        self._found: dict[tuple[str, bool], list[str]] = {}
        self._successors: dict[tuple[str, bool], list[str]] = {}
        self._produced: dict[str, frozenset[str]] = {}

    def producers(self, entity: str, exclude_consumers: bool = True) -> list[str]:
        """Read tools that output ``entity``; by default not those that also need it as input."""
        found = self._found.get((entity, exclude_consumers))
        if found is None:
            found = self._found[(entity, exclude_consumers)] = self._producers_of(entity, exclude_consumers)
        return list(found)

    def _producers_of(self, entity: str, exclude_consumers: bool) -> list[str]:
        out = []
        for name in self._producers.get(entity, []):
            spec = self.tools[name]
            if spec.writes:
                continue
            if exclude_consumers and any(spec.param_entity(p) == entity for p in spec.parameters["properties"]):
                continue
            out.append(name)
        return out

    def successors(self, source: str, fresh: bool = False) -> list[str]:
        """Tools that can consume something ``source`` outputs (not itself); with ``fresh``, only by an
        edge that is no echo (see :meth:`echoes`)."""
        found = self._successors.get((source, fresh))
        if found is None:
            found = []
            for edge in self.edges:
                if edge.source == source and edge.target != source and edge.target not in found \
                        and not (fresh and self.echoes(edge)):
                    found.append(edge.target)
            self._successors[(source, fresh)] = found
        return list(found)

    def echoes(self, edge: Edge) -> bool:
        """Whether ``edge`` passes on only what its source was given: a field outside any list whose entity
        is one of the source's own parameters (``get_order_details(order_id)`` returns that ``order_id``),
        so whatever gave the source its value could give the target the same."""
        if "[]" in edge.path:
            return False
        spec = self.tools[edge.source]
        return any(spec.param_entity(p) == edge.entity for p in spec.parameters["properties"])

    def produced_entities(self, tool: str) -> frozenset[str]:
        """Entities in a tool's output."""
        found = self._produced.get(tool)
        if found is None:
            found = self._produced[tool] = frozenset(f.entity for f in self.outputs[tool])
        return found

    def to_dict(self) -> dict[str, Any]:
        """Nodes and edges as plain data (for ``covert graph --json``)."""
        return {
            "nodes": [
                {"tool": name, "writes": spec.writes, "params": list(spec.parameters["properties"]),
                 "outputs": [f.path for f in self.outputs[name]]}
                for name, spec in self.tools.items()
            ],
            "edges": [
                {"source": e.source, "target": e.target, "path": e.path, "param": e.param, "entity": e.entity}
                for e in self.edges if e.source != e.target
            ],
        }

    def to_dot(self, name: str = "tools") -> str:
        """Graphviz DOT text of the graph."""
        lines = [f'digraph "{name}" {{', "  rankdir=LR;"]
        for tool, spec in self.tools.items():
            shape = "box" if spec.writes else "ellipse"
            lines.append(f'  "{tool}" [shape={shape}];')
        for edge in self.edges:
            if edge.source != edge.target:
                lines.append(f'  "{edge.source}" -> "{edge.target}" [label="{edge.path} -> {edge.param}"];')
        lines.append("}")
        return "\n".join(lines)


@cache
def tool_graph(builder: Builder) -> ToolGraph:
    """The (cached) tool graph of a builder, linking only the entities its language can refer to."""
    return ToolGraph(builder.tools, set(builder.language.references))
