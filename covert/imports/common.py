"""What every importer shares: tool and parameter names, flattened parameters, pagination, licenses, results."""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from covert.imports.model import ApiSpec, SpecRejected

MAX_SPEC_BYTES = 64 * 1024 * 1024
MAX_OPERATIONS = 5_000
MAX_PARAMETERS = 200
_NAME_BAD = re.compile(r"[^A-Za-z0-9_-]+")
_PROP_BAD = re.compile(r"[^A-Za-z0-9_.-]+")

_SPDX = {
    "apache 2.0": "Apache-2.0", "apache-2.0": "Apache-2.0", "apache 2.0 license": "Apache-2.0",
    "apache license 2.0": "Apache-2.0", "apache license, version 2.0": "Apache-2.0",
    "apache license version 2.0": "Apache-2.0", "apache 2": "Apache-2.0", "apache2": "Apache-2.0",
    "mit": "MIT", "mit license": "MIT", "the mit license (mit)": "MIT", "the mit license": "MIT",
    "bsd-3-clause": "BSD-3-Clause", "bsd 3-clause": "BSD-3-Clause", "bsd": "BSD-3-Clause",
    "creative commons attribution 3.0": "CC-BY-3.0", "cc-by-3.0": "CC-BY-3.0", "cc by 3.0": "CC-BY-3.0",
    "cc-by": "CC-BY-4.0", "cc-by-4.0": "CC-BY-4.0", "cc by 4.0": "CC-BY-4.0",
    "creative commons attribution 4.0 international": "CC-BY-4.0",
    "gpl-3.0": "GPL-3.0", "mpl-2.0": "MPL-2.0", "cc0-1.0": "CC0-1.0", "cc0": "CC0-1.0",
    "u.s. public domain license": "Public-Domain", "public domain": "Public-Domain",
}


def spdx(name: str | None) -> str | None:
    """The SPDX id for a license name when one is known, else the name as given (trimmed); None stays None."""
    if not isinstance(name, str) or not name.strip():
        return None
    text = " ".join(name.split())
    return _SPDX.get(text.lower(), text[:200])


def sha256(data: bytes) -> str:
    """Hex SHA-256 of ``data`` (provenance)."""
    return hashlib.sha256(data).hexdigest()


def tool_name(raw: str, taken: set[str]) -> str:
    """A tool name matching ``^[A-Za-z0-9_-]{1,64}$`` built from ``raw``, unique within ``taken`` (then added).

    A name too long keeps its first and last parts (the service and the verb) and drops parts from the
    middle, the outermost first: ``analyticsadmin_properties_dataStreams_measurementProtocolSecrets_create``
    becomes ``analyticsadmin_dataStreams_measurementProtocolSecrets_create``, not a name cut off before
    its verb (which then tells a create from a delete only by a number)."""
    base = _NAME_BAD.sub("_", raw).strip("_") or "operation"
    name, n = shortened(base, 64), 2
    while name in taken:
        suffix = f"_{n}"
        name = shortened(base, 64 - len(suffix)) + suffix
        n += 1
    taken.add(name)
    return name


def shortened(name: str, limit: int) -> str:
    """``name`` in at most ``limit`` characters: whole when it fits, else without middle parts (split at
    ``_``, outermost first), else cut."""
    if len(name) <= limit:
        return name
    parts = name.split("_")
    if len(parts) >= 3 and parts[0] and parts[-1]:
        middle = parts[1:-1]
        while middle:
            middle = middle[1:]
            candidate = "_".join([parts[0], *middle, parts[-1]])
            if len(candidate) <= limit:
                return candidate
    return name[:limit]


def prop_name(raw: str, taken: set[str]) -> str:
    """A parameter name matching ``^[A-Za-z0-9_.-]{1,64}$`` from ``raw``, unique within ``taken`` (then added)."""
    base = _PROP_BAD.sub("_", raw).strip("_") or "param"
    base = base[:64]
    name, n = base, 2
    while name in taken:
        suffix = f"_{n}"
        name = base[: 64 - len(suffix)] + suffix
        n += 1
    taken.add(name)
    return name


def clean_text(text: Any, limit: int = 2000) -> str:
    """A description as plain trimmed text (whitespace collapsed, bounded)."""
    if not isinstance(text, str):
        return ""
    return " ".join(text.split())[:limit]


class ParameterSet:
    """Builds one OpenAI-format parameters object from parameters that travel in different places.

    Names clash deterministically: the first added keeps its (sanitised) name; a later one with the
    same name gets its location as a prefix (``body_id``), then a numeric suffix. A renamed parameter
    keeps its wire name in ``x-name``.
    """

    def __init__(self) -> None:
        self.properties: dict[str, dict[str, Any]] = {}
        self.required: list[str] = []
        self._taken: set[str] = set()

    def add(self, raw: str, schema: dict[str, Any], where: str, required: bool = False) -> str:
        """Add parameter ``raw`` (wire name) travelling in ``where``; returns the name it got."""
        if len(self.properties) >= MAX_PARAMETERS:
            raise SpecRejected("too_many_parameters", f"more than {MAX_PARAMETERS} parameters")
        candidate = _PROP_BAD.sub("_", raw).strip("_") or "param"
        if candidate[:64] in self._taken:
            candidate = f"{where}_{candidate}"
        name = prop_name(candidate, self._taken)
        prop = {**schema, "x-in": where}
        if name != raw:
            prop["x-name"] = raw
        self.properties[name] = prop
        if required:
            self.required.append(name)
        return name

    def schema(self) -> dict[str, Any]:
        """The parameters object (``type``, ``properties``, ``required`` when any)."""
        out: dict[str, Any] = {"type": "object", "properties": self.properties}
        if self.required:
            out["required"] = list(self.required)
        return out


_TOKEN_PARAMS = ("page_token", "pagetoken", "next_token", "nexttoken", "cursor", "starting_after",
                 "continuation_token", "continuationtoken", "marker", "after", "page_cursor", "pagecursor")
_LIMIT_PARAMS = ("limit", "page_size", "pagesize", "per_page", "perpage", "max_results", "maxresults",
                 "maxitems", "max_items", "count", "size", "top", "$top", "pagelimit", "page_limit")
_OFFSET_PARAMS = ("offset", "skip", "$skip", "start", "start_index", "startindex")
_PAGE_PARAMS = ("page", "page_number", "pagenumber", "pageno", "page_no")
_NEXT_FIELDS = ("next_page_token", "nextpagetoken", "next_token", "nexttoken", "next_cursor", "nextcursor",
                "cursor", "next", "nextmarker", "next_marker", "continuation_token", "continuationtoken",
                "odata.nextlink", "@odata.nextlink", "has_more", "nextlink", "next_link")
_ITEMS_FIELDS = ("items", "data", "results", "value", "records", "entries", "elements")


def _key(name: str) -> str:
    return name.lower().replace("-", "_")


def pagination(param_names: list[str], response: dict[str, Any] | None) -> dict[str, str] | None:
    """How an operation pages, from its parameter names and response schema, or None when it does not."""
    found: dict[str, str] = {}
    keys = {_key(p): p for p in param_names}
    for field_name, names in (("token_param", _TOKEN_PARAMS), ("limit_param", _LIMIT_PARAMS),
                              ("offset_param", _OFFSET_PARAMS), ("page_param", _PAGE_PARAMS)):
        for candidate in names:
            if candidate in keys:
                found[field_name] = keys[candidate]
                break
    props = response.get("properties", {}) if isinstance(response, dict) else {}
    rkeys = {_key(p): p for p in props}
    for candidate in _NEXT_FIELDS:
        if candidate in rkeys:
            found["next_token_field"] = rkeys[candidate]
            break
    arrays = [p for p, s in props.items() if isinstance(s, dict) and s.get("type") == "array"]
    for candidate in _ITEMS_FIELDS:
        if candidate in rkeys and rkeys[candidate] in arrays:
            found["items_field"] = rkeys[candidate]
            break
    else:
        if len(arrays) == 1:
            found["items_field"] = arrays[0]
    if not ({"token_param", "offset_param", "page_param", "next_token_field"} & found.keys()):
        return None
    return found


@dataclass
class ImportReport:
    """What an import saw: specs imported, specs rejected by reason, operations by effect and skip reason.

    With ``sink`` each imported spec is handed to it as it comes (the CLI writes it to the store); with
    ``keep=False`` specs are counted but not held, so a whole corpus streams through in bounded memory.
    """

    specs: list[ApiSpec] = field(default_factory=list)
    rejected: list[tuple[str, str, str]] = field(default_factory=list)  # (where, reason, detail)
    seen: int = 0
    keep: bool = True
    sink: Callable[[ApiSpec], object] | None = None
    imported: int = 0
    effects: Counter[str] = field(default_factory=Counter)
    skipped: Counter[str] = field(default_factory=Counter)

    def add(self, spec: ApiSpec) -> None:
        """Count one imported spec (and hand it to the sink)."""
        self.seen += 1
        self.imported += 1
        self.effects.update(op.effect for op in spec.operations)
        self.skipped.update(reason for _, reason in spec.skipped)
        if self.sink is not None:
            self.sink(spec)
        if self.keep:
            self.specs.append(spec)

    def reject(self, where: str, exc: SpecRejected) -> None:
        """Count one rejected spec."""
        self.seen += 1
        self.rejected.append((where, exc.reason, exc.detail[:300]))

    def counts(self) -> dict[str, Any]:
        """Figures for printing: specs seen/imported/rejected by reason, operations by effect, skips by reason."""
        return {
            "seen": self.seen, "imported": self.imported, "rejected": len(self.rejected),
            "rejected_by_reason": dict(sorted(Counter(r for _, r, _ in self.rejected).items())),
            "operations": sum(self.effects.values()), "operations_by_effect": dict(sorted(self.effects.items())),
            "operations_skipped_by_reason": dict(sorted(self.skipped.items())),
        }
