"""Tool outputs as text: JSON, YAML, XML, a markdown or CSV table, ``key: value`` lines; and back.

Every format has a writer and a reader for JSON-like data (dicts, lists, strings, numbers, booleans,
null). :func:`roundtrips` is the proof the multi-format augmentation relies on: ``load(dump(v)) == v``
with types compared strictly (``1``, ``1.0`` and ``True`` differ). A format that cannot represent a
value (a table for a bare list of strings, XML for control characters) says so in :func:`can_dump`.
The YAML writer emits a block-style subset that any YAML 1.1 reader parses to the same values; the
reader here reads that subset only.
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
import xml.etree.ElementTree as ET
from collections.abc import Callable
from typing import Any
from xml.sax.saxutils import escape, quoteattr

import orjson

from covert.io.yamltext import IDENT as _IDENT
from covert.io.yamltext import dump_yaml
from covert.io.yamltext import float_text as _float_text

FORMATS = ("json", "yaml", "xml", "markdown", "csv", "kv")

_NUMBER = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?")
_XML_TAG = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]*")
_XML_BAD = re.compile("[\x00-\x08\x0b-\x1f\r\ud800-\udfff\ufffe\uffff]")
_CONTROL = re.compile("[\x00-\x1f\x7f\x85\u2028\u2029]")
_MARKER = re.compile(r"\[table: ([A-Za-z_][A-Za-z0-9_]*)\]")


class FormatError(ValueError):
    """Text that does not parse in the format it claims."""


def same(a: Any, b: Any) -> bool:
    """Strict equality of JSON-like values: types must match (``1 != 1.0 != True``); key order is free."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return a == b


# -- scalars in text ----------------------------------------------------------------------------
def _plain_ok(text: str) -> bool:
    """Whether a string can stand unquoted in a table cell or a ``key: value`` line."""
    return (
        bool(text) and text == text.strip() and not _CONTROL.search(text) and "|" not in text and "\\" not in text
        and text[0] not in "\"[{" and text not in ("null", "true", "false") and not _NUMBER.fullmatch(text)
    )


def _scalar_text(value: Any, plain: Callable[[str], bool] = _plain_ok) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return _float_text(value)
    if isinstance(value, str):
        return value if plain(value) else json.dumps(value, ensure_ascii=False)
    return orjson.dumps(value).decode()


def _parse_scalar(text: str) -> Any:
    if text in ("null", "true", "false"):
        return {"null": None, "true": True, "false": False}[text]
    if text[:1] in "\"[{":
        try:
            return json.loads(text)
        except ValueError:
            raise FormatError(f"bad JSON value {text[:40]!r}") from None
    if _NUMBER.fullmatch(text):
        return float(text) if any(c in text for c in ".eE") else int(text)
    return text


def _scalars_ok(value: Any) -> bool:
    """JSON-representable: finite floats, 64-bit integers, string keys."""
    if isinstance(value, dict):
        return all(isinstance(k, str) for k in value) and all(_scalars_ok(v) for v in value.values())
    if isinstance(value, list):
        return all(_scalars_ok(v) for v in value)
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, int) and not isinstance(value, bool):
        return -(2**63) <= value < 2**64
    return value is None or isinstance(value, (str, bool))


def _keys_ok(value: Any, pattern: re.Pattern[str]) -> bool:
    if isinstance(value, dict):
        return all(pattern.fullmatch(k) for k in value) and all(_keys_ok(v, pattern) for v in value.values())
    if isinstance(value, list):
        return all(_keys_ok(v, pattern) for v in value)
    return True


# -- JSON ----------------------------------------------------------------------------------------
def _dump_json(value: Any) -> str:
    return orjson.dumps(value, option=orjson.OPT_INDENT_2).decode()


def _load_json(text: str) -> Any:
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError as exc:
        raise FormatError(f"bad JSON: {exc}") from None


# -- YAML ----------------------------------------------------------------------------------------
_dump_yaml = dump_yaml


def _yaml_value(text: str) -> Any:
    if text == "{}":
        return {}
    if text == "[]":
        return []
    return _parse_scalar(text)


def _yaml_entry(text: str) -> tuple[str, str] | None:
    """``(key, rest)`` if ``text`` is a mapping entry, else ``None``."""
    if text.startswith('"'):
        try:
            key, end = json.JSONDecoder().raw_decode(text)
        except ValueError:
            raise FormatError(f"bad quoted key {text[:40]!r}") from None
        if text[end:end + 1] != ":":
            return None
        return key, text[end + 1:].strip()
    match = _IDENT.match(text)
    if match and text[match.end():match.end() + 1] == ":" and text[match.end() + 1:match.end() + 2] in ("", " "):
        return match.group(), text[match.end() + 1:].strip()
    return None


class _YamlReader:
    def __init__(self, text: str) -> None:
        self.lines = [line for line in text.split("\n") if line.strip()]

    @staticmethod
    def indent(line: str) -> int:
        return len(line) - len(line.lstrip(" "))

    def block(self, pos: int, indent: int) -> tuple[Any, int]:
        body = self.lines[pos][indent:]
        if body == "-" or body.startswith("- "):
            return self.sequence(pos, indent)
        if _yaml_entry(body) is not None:
            return self.mapping(pos, indent)
        if pos + 1 < len(self.lines):
            raise FormatError(f"unexpected line {self.lines[pos + 1][:40]!r}")
        return _yaml_value(body.strip()), pos + 1

    def nested(self, pos: int, parent: int) -> tuple[Any, int]:
        if pos >= len(self.lines) or self.indent(self.lines[pos]) <= parent:
            raise FormatError("a key or dash without a value")
        return self.block(pos, self.indent(self.lines[pos]))

    def mapping(self, pos: int, indent: int) -> tuple[dict[str, Any], int]:
        out: dict[str, Any] = {}
        while pos < len(self.lines) and self.indent(self.lines[pos]) == indent:
            entry = _yaml_entry(self.lines[pos][indent:])
            if entry is None:
                raise FormatError(f"expected 'key: value', got {self.lines[pos][:40]!r}")
            key, rest = entry
            if rest:
                out[key], pos = _yaml_value(rest), pos + 1
            else:
                out[key], pos = self.nested(pos + 1, indent)
        return out, pos

    def sequence(self, pos: int, indent: int) -> tuple[list[Any], int]:
        out: list[Any] = []
        while pos < len(self.lines) and self.indent(self.lines[pos]) == indent:
            body = self.lines[pos][indent:]
            if body == "-":
                item, pos = self.nested(pos + 1, indent)
            elif body.startswith("- "):
                rest = body[2:]
                if _yaml_entry(rest) is not None:
                    self.lines[pos] = " " * (indent + 2) + rest
                    item, pos = self.mapping(pos, indent + 2)
                else:
                    item, pos = _yaml_value(rest.strip()), pos + 1
            else:
                break
            out.append(item)
        return out, pos


def _load_yaml(text: str) -> Any:
    reader = _YamlReader(text)
    if not reader.lines:
        raise FormatError("empty YAML document")
    value, pos = reader.block(0, 0)
    if pos != len(reader.lines):
        raise FormatError(f"unexpected line {reader.lines[pos][:40]!r}")
    return value


# -- XML -----------------------------------------------------------------------------------------
def _xml_lines(tag: str, attrs: str, value: Any, indent: str, out: list[str]) -> None:
    if isinstance(value, dict):
        if not value:
            out.append(f'{indent}<{tag}{attrs} type="object" />')
            return
        out.append(f"{indent}<{tag}{attrs}>")
        for key, item in value.items():
            if _XML_TAG.fullmatch(key) and not key.lower().startswith("xml"):
                _xml_lines(key, "", item, indent + "  ", out)
            else:
                _xml_lines("field", f" name={quoteattr(key)}", item, indent + "  ", out)
        out.append(f"{indent}</{tag}>")
    elif isinstance(value, list):
        if not value:
            out.append(f'{indent}<{tag}{attrs} type="array" />')
            return
        out.append(f'{indent}<{tag}{attrs} type="array">')
        for item in value:
            _xml_lines("item", "", item, indent + "  ", out)
        out.append(f"{indent}</{tag}>")
    elif isinstance(value, str):
        out.append(f"{indent}<{tag}{attrs}>{escape(value)}</{tag}>" if value else f"{indent}<{tag}{attrs} />")
    elif value is None:
        out.append(f'{indent}<{tag}{attrs} type="null" />')
    else:
        kind = "boolean" if isinstance(value, bool) else "integer" if isinstance(value, int) else "number"
        out.append(f'{indent}<{tag}{attrs} type="{kind}">{_scalar_text(value)}</{tag}>')


def _dump_xml(value: Any) -> str:
    out: list[str] = []
    _xml_lines("response", "", value, "", out)
    return "\n".join(out) + "\n"


def _xml_read(element: ET.Element) -> Any:
    kind = element.get("type")
    text = element.text or ""
    if kind == "array":
        return [_xml_read(child) for child in element]
    if kind == "object":
        return {}
    if kind == "null":
        return None
    if kind == "boolean":
        if text not in ("true", "false"):
            raise FormatError(f"bad boolean {text!r}")
        return text == "true"
    if kind in ("integer", "number"):
        if not _NUMBER.fullmatch(text):
            raise FormatError(f"bad number {text!r}")
        return int(text) if kind == "integer" else float(text)
    if kind is not None:
        raise FormatError(f"unknown type {kind!r}")
    if len(element):
        return {(child.get("name") if child.tag == "field" and "name" in child.attrib else child.tag): _xml_read(child)
                for child in element}
    return text


def _load_xml(text: str) -> Any:
    try:
        root = ET.fromstring(text)
    except ET.ParseError as exc:
        raise FormatError(f"bad XML: {exc}") from None
    return _xml_read(root)


def _xml_ok(value: Any) -> bool:
    if isinstance(value, dict):
        return all(not _XML_BAD.search(k) for k in value) and all(_xml_ok(v) for v in value.values())
    if isinstance(value, list):
        return all(_xml_ok(v) for v in value)
    return not (isinstance(value, str) and _XML_BAD.search(value))


# -- tables (markdown, CSV) ------------------------------------------------------------------------
def _is_records(value: Any) -> bool:
    return (isinstance(value, list) and bool(value) and all(isinstance(e, dict) for e in value)
            and any(e for e in value))


def _columns(records: list[dict[str, Any]]) -> list[str]:
    return list(dict.fromkeys(k for e in records for k in e))


def _cell(value: Any) -> str:
    return _scalar_text(value)


def _sections(value: Any) -> tuple[list[list[str]] | None, list[tuple[str, list[dict[str, Any]]]]]:
    """Field rows of a dict (``None`` for a top-level list of records) and its record tables."""
    if isinstance(value, list):
        return None, [("rows", value)]
    fields, tables = [], []
    for key, item in value.items():
        if _is_records(item):
            fields.append([key, f"[table: {key}]"])
            tables.append((key, item))
        else:
            fields.append([key, _cell(item)])
    return fields, tables


def _table_ok(value: Any) -> bool:
    if isinstance(value, dict):
        return all(_IDENT.fullmatch(k) for k in value) and all(
            all(_IDENT.fullmatch(c) for c in _columns(v)) for v in value.values() if _is_records(v))
    return _is_records(value) and all(_IDENT.fullmatch(c) for c in _columns(value))


def _assemble(fields: list[tuple[str, str]] | None, tables: dict[str, list[dict[str, Any]]]) -> Any:
    if fields is None:
        if list(tables) != ["rows"]:
            raise FormatError("a table document without fields must hold one 'rows' table")
        return tables["rows"]
    out: dict[str, Any] = {}
    for key, text in fields:
        marker = _MARKER.fullmatch(text)
        if marker:
            if marker.group(1) not in tables:
                raise FormatError(f"no table for {key!r}")
            out[key] = tables[marker.group(1)]
        else:
            out[key] = _parse_scalar(text)
    return out


def _record(columns: list[str], cells: list[str]) -> dict[str, Any]:
    if len(cells) != len(columns):
        raise FormatError(f"a row has {len(cells)} cells for {len(columns)} columns")
    return {c: _parse_scalar(t) for c, t in zip(columns, cells) if t != ""}


def _md_row(cells: list[str]) -> str:
    return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"


def _md_cells(line: str) -> list[str]:
    if not (line.startswith("|") and line.endswith("|")):
        raise FormatError(f"not a table row: {line[:40]!r}")
    return [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", line[1:-1])]


def _dump_markdown(value: Any) -> str:
    fields, tables = _sections(value)
    blocks = []
    if fields is not None:
        blocks.append("\n".join([_md_row(["field", "value"]), "|---|---|", *(_md_row(r) for r in fields)]))
    for name, records in tables:
        columns = _columns(records)
        rows = [_md_row([_cell(e[c]) if c in e else "" for c in columns]) for e in records]
        noun = "row" if len(records) == 1 else "rows"
        blocks.append(f"**{name}** ({len(records)} {noun})\n\n" + "\n".join(
            [_md_row(columns), "|" + "---|" * len(columns), *rows]))
    return "\n\n".join(blocks) + "\n"


def _load_markdown(text: str) -> Any:
    blocks = [b for b in text.strip("\n").split("\n\n") if b]
    fields: list[tuple[str, str]] | None = None
    tables: dict[str, list[dict[str, Any]]] = {}
    title = None
    for block in blocks:
        lines = block.split("\n")
        if lines[0].startswith("**"):
            match = re.fullmatch(r"\*\*([A-Za-z_][A-Za-z0-9_]*)\*\* \(\d+ rows?\)", lines[0])
            if not match or len(lines) != 1:
                raise FormatError(f"bad table title {lines[0][:40]!r}")
            title = match.group(1)
            continue
        header = _md_cells(lines[0])
        if len(lines) < 2 or not re.fullmatch(r"\|(?:---\|)+", lines[1]):
            raise FormatError("a table needs a header and a separator line")
        rows = [_md_cells(line) for line in lines[2:]]
        if title is None:
            if header != ["field", "value"] or fields is not None:
                raise FormatError("the first table must be the field/value table")
            fields = [(r[0], r[1]) for r in rows if len(r) == 2] if all(len(r) == 2 for r in rows) else None
            if fields is None:
                raise FormatError("field rows need two cells")
        else:
            tables[title] = [_record(header, r) for r in rows]
            title = None
    if fields is None and not tables:
        raise FormatError("no table found")
    return _assemble(fields, tables)


def _csv_text(rows: list[list[str]]) -> str:
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerows(rows)
    return buffer.getvalue().rstrip("\n")


def _dump_csv(value: Any) -> str:
    fields, tables = _sections(value)
    blocks = []
    if fields is not None:
        blocks.append("# fields\n" + _csv_text([["field", "value"], *fields]))
    for name, records in tables:
        columns = _columns(records)
        rows = [[_cell(e[c]) if c in e else "" for c in columns] for e in records]
        blocks.append(f"# table: {name}\n" + _csv_text([columns, *rows]))
    return "\n\n".join(blocks) + "\n"


def _load_csv(text: str) -> Any:
    fields: list[tuple[str, str]] | None = None
    tables: dict[str, list[dict[str, Any]]] = {}
    for block in (b for b in text.strip("\n").split("\n\n") if b):
        title, _, body = block.partition("\n")
        try:
            rows = list(csv.reader(io.StringIO(body), strict=True))
        except csv.Error as exc:
            raise FormatError(f"bad CSV: {exc}") from None
        if not rows:
            raise FormatError(f"section {title[:40]!r} has no header")
        if title == "# fields" and rows[0] == ["field", "value"] and fields is None:
            if any(len(r) != 2 for r in rows[1:]):
                raise FormatError("field rows need two cells")
            fields = [(r[0], r[1]) for r in rows[1:]]
        elif title.startswith("# table: "):
            tables[title[len("# table: "):]] = [_record(rows[0], r) for r in rows[1:]]
        else:
            raise FormatError(f"unknown section {title[:40]!r}")
    if fields is None and not tables:
        raise FormatError("no section found")
    return _assemble(fields, tables)


# -- key: value lines ------------------------------------------------------------------------------
def _kv_lines(value: Any, path: str, out: list[str]) -> None:
    if isinstance(value, dict) and value:
        for key, item in value.items():
            _kv_lines(item, f"{path}.{key}" if path else key, out)
    elif isinstance(value, list) and value:
        for i, item in enumerate(value):
            _kv_lines(item, f"{path}[{i}]", out)
    else:
        out.append(f"{path}: {_scalar_text(value)}")


def _dump_kv(value: Any) -> str:
    lines: list[str] = []
    if value:
        _kv_lines(value, "", lines)
    return "\n".join(lines) + "\n"


_PATH_TOKEN = re.compile(r"\.?([A-Za-z_][A-Za-z0-9_]*)|\[(\d+)\]")


def _kv_set(root: dict[str, Any], path: str, value: Any) -> None:
    tokens, pos = [], 0
    while pos < len(path):
        match = _PATH_TOKEN.match(path, pos)
        if not match or (pos == 0 and path.startswith((".", "["))):
            raise FormatError(f"bad path {path[:40]!r}")
        tokens.append(match.group(1) if match.group(1) is not None else int(match.group(2)))
        pos = match.end()
    if not tokens or not isinstance(tokens[0], str):
        raise FormatError(f"bad path {path[:40]!r}")
    container: Any = root
    for token, following in zip(tokens, [*tokens[1:], None]):
        fresh = value if following is None else ({} if isinstance(following, str) else [])
        if isinstance(token, str):
            if not isinstance(container, dict):
                raise FormatError(f"{path[:40]!r}: a key inside a list")
            if following is None and token in container:
                raise FormatError(f"{path[:40]!r} given twice")
            container = container.setdefault(token, fresh)
        else:
            if not isinstance(container, list) or token > len(container):
                raise FormatError(f"{path[:40]!r}: list index out of order")
            if token == len(container):
                container.append(fresh)
            container = container[token]


def _load_kv(text: str) -> Any:
    root: dict[str, Any] = {}
    for line in text.split("\n"):
        if not line:
            continue
        path, sep, rest = line.partition(": ")
        if not sep:
            raise FormatError(f"expected 'key: value', got {line[:40]!r}")
        _kv_set(root, path, _yaml_value(rest) if rest in ("{}", "[]") else _parse_scalar(rest))
    return root


# -- the registry --------------------------------------------------------------------------------
_DUMP: dict[str, Callable[[Any], str]] = {
    "json": _dump_json, "yaml": _dump_yaml, "xml": _dump_xml, "markdown": _dump_markdown, "csv": _dump_csv,
    "kv": _dump_kv,
}
_LOAD: dict[str, Callable[[str], Any]] = {
    "json": _load_json, "yaml": _load_yaml, "xml": _load_xml, "markdown": _load_markdown, "csv": _load_csv,
    "kv": _load_kv,
}


def _shape_ok(value: Any, fmt: str) -> bool:
    if fmt == "xml":
        return _xml_ok(value)
    if fmt in ("markdown", "csv"):
        return _table_ok(value)
    if fmt == "kv":
        return isinstance(value, dict) and _keys_ok(value, _IDENT)
    return fmt in _DUMP


def can_dump(value: Any, fmt: str) -> bool:
    """Whether ``fmt`` can represent ``value`` (structure and characters)."""
    return fmt in _DUMP and _scalars_ok(value) and _shape_ok(value, fmt)


def dump(value: Any, fmt: str, from_json: bool = False) -> str:
    """``value`` written in ``fmt``; raises :class:`FormatError` if the format cannot represent it.

    ``from_json``: the value was parsed from JSON, so only its shape needs checking (not its scalars).
    """
    if not (_shape_ok(value, fmt) if from_json else can_dump(value, fmt)):
        raise FormatError(f"{fmt} cannot represent this value")
    return _DUMP[fmt](value)


def load(text: str, fmt: str) -> Any:
    """Parse text written in ``fmt``; raises :class:`FormatError` on text that does not parse."""
    if fmt not in _LOAD:
        raise FormatError(f"unknown format {fmt!r}; known: {', '.join(FORMATS)}")
    if not isinstance(text, str):
        raise FormatError("tool content must be a string")
    return _LOAD[fmt](text)


def checked_dump(value: Any, fmt: str) -> str | None:
    """``value`` written in ``fmt`` if that text parses back to exactly ``value``, else ``None``."""
    if not _shape_ok(value, fmt):
        return None
    try:
        text = _DUMP[fmt](value)
        return text if same(_LOAD[fmt](text), value) else None
    except (FormatError, ValueError, TypeError, orjson.JSONEncodeError):
        return None


def roundtrips(value: Any, fmt: str) -> bool:
    """Whether ``load(dump(value, fmt), fmt)`` gives back exactly ``value``."""
    return checked_dump(value, fmt) is not None
