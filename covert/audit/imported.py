"""The audit's checks for rows built on imported APIs (builders named ``api.*``).

Each check applies only to imported rows. They read the row as a careful reader does, with rules of their
own (not the generator's): a value whose form contradicts its field (a currency code that is no code, an
amount that is no number, a word salad such as "design final 32"), a create called with nothing, a write
answer that names nothing of what was done, key twins (``sid``/``Sid``) with different values, lists of
empty objects, records that contradict the scope or parent they were asked for, a system
prompt with repeated or broken nouns, arguments of the wrong kind, a new record in a final state, parallel
writes that differ in one number only, a list named by another record's name field, an update answer
that names the record by the name it was just given, an ARN no AWS service writes, times of one record
out of the order their names say.
"""

from __future__ import annotations

import re
from typing import Any

from covert.audit.checks import OK, Verdict, _flag, check
from covert.audit.rows import CallView, RowView
from covert.audit.text import normalized, says_spoken
from covert.env import is_error
from covert.imports import rowforms
from covert.imports.record_keys import PROJECT_KEYS, fold_key, path_project
from covert.imports.rowforms import (
    MAX_PAIRS,
    first_filler,
    foreign_name,
    is_create,
    key_words,
    name_field,
    names_write,
    numbers_only_differ,
    pairs,
)
from covert.language.plurals import singular

IMPORTED = "api."


def imported(view: RowView) -> bool:
    """Whether the row was built on an imported API."""
    return view.builder.startswith(IMPORTED)


def source_of(builder: str) -> str:
    """The group a builder is reported in: ``api.botocore``, ``api.google``, ``api.openapi``, ``api.mcp``
    for imported ones, else the builder itself."""
    if builder.startswith(IMPORTED):
        return ".".join(builder.split(".")[:2])
    return builder


@check("filler_value", "imported rows whose tool outputs hold filler: word salad ('design final 32'), lorem ipsum, "
       "or a value whose form contradicts its field (a currency code that is no code, an amount that is no number)",
       0.02)
def filler_value(view: RowView) -> Verdict | None:
    """Imported rows with tool outputs. Flagged when any string value of any output is filler
    (:func:`covert.imports.rowforms.filler`)."""
    if not imported(view) or not view.turns:
        return None
    for call in view.calls:
        found = first_filler(call.output)
        if found is not None:
            why, key, value = found
            return _flag(why, f"{call.name}: {key}={value!r}")
    return OK


# -- calls ----------------------------------------------------------------------------------------

def _is_create(call: CallView) -> bool:
    return call.writes and is_create(call.name)


def _properties(view: RowView, call: CallView) -> dict[str, Any]:
    return ((view.tools.get(call.name) or {}).get("parameters") or {}).get("properties") or {}


@check("empty_create", "creates on imported APIs called with nothing but where the record goes, although the "
       "tool takes fields", 0.05)
def empty_create(view: RowView) -> Verdict | None:
    """Imported rows with a create call (a writing tool whose name says create/insert/add/put/register).
    Flagged when a create's arguments name only where the record goes (its parent, project, region) while
    the tool offers other fields."""
    if not imported(view):
        return None
    creates = [c for c in view.calls if _is_create(c) and not is_error(c.output)]
    if not creates:
        return None
    for call in creates:
        if rowforms.empty_create(_properties(view, call), call.arguments):
            return _flag("nothing_given", f"{call.name} {sorted(call.arguments)}")
    return OK


@check("write_answer_unnamed", "imported write rows whose answer names nothing of what was done (no name, id or "
       "new value of the record a write acted on)", 0.05)
def write_answer_unnamed(view: RowView) -> Verdict | None:
    """Imported rows that end in an answer after successful writes. Flagged when, for some write, the
    answer says none of its argument values (other than where the record goes) nor any distinctive value
    of its output, raw or spoken."""
    if not imported(view) or view.behaviour != "tool_use" or not view.answer:
        return None
    writes = [c for c in view.calls if c.writes and not is_error(c.output)]
    if not writes:
        return None
    answer = normalized(view.answer)
    for call in writes:
        if not names_write(answer, _properties(view, call), call.arguments, call.output):
            return _flag("write_not_named", f"{call.name}: {view.answer[:120]}")
    return OK


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|(?<=[.!?][\"'\u201d])\s+")  # a quoted sentence ends one too


@check("renamed_by_new_name", "imported update answers that name the record by the value it was just given as if "
       "that were all it changed ('The proposal Blue Sandbox now has the display name Blue Sandbox')", 0.0)
def renamed_by_new_name(view: RowView) -> Verdict | None:
    """Imported rows that end in an answer after a successful update (a write that creates nothing).
    Flagged when one sentence of the answer says a value the update set (three characters or more) twice:
    the record named by its new name and that name given as its new value, which says nothing of what
    was done."""
    if not imported(view) or view.behaviour != "tool_use" or not view.answer:
        return None
    updates = [c for c in view.calls if c.writes and not _is_create(c) and not is_error(c.output)]
    values = {v for c in updates for _key, v in pairs(c.arguments) if isinstance(v, str) and len(v) >= 3}
    if not values:
        return None
    for sentence in _SENTENCE_END.split(view.answer):
        for value in values:
            if len(re.findall(rf"(?<![\w-]){re.escape(value)}(?![\w-])", sentence)) >= 2:
                return _flag("renamed_by_new_name", sentence[:160])
    return OK


@check("case_twin_keys", "imported outputs holding keys that differ only in case or separators (sid/Sid, id/Id) "
       "with different values", 0.0)
def case_twin_keys(view: RowView) -> Verdict | None:
    """Imported rows with outputs. Flagged when one object of an output has two keys equal but for case
    and ``_``/``-`` whose values differ."""
    if not imported(view) or not view.turns:
        return None
    for call in view.calls:
        stack = [call.output]
        looked = 0
        while stack and looked < MAX_PAIRS:
            item = stack.pop()
            looked += 1
            if isinstance(item, dict):
                folded: dict[str, tuple[str, Any]] = {}
                for k, v in item.items():
                    key = fold_key(str(k))
                    if key in folded and folded[key][1] != v:
                        return _flag("twins_differ", f"{call.name}: {folded[key][0]}={folded[key][1]!r} {k}={v!r}")
                    folded.setdefault(key, (str(k), v))
                stack.extend(item.values())
            elif isinstance(item, list):
                stack.extend(item)
    return OK


# times of one record that say in which order things happened: a record is made before it is changed,
# deleted or expires, and something starts before it ends (the audit's own words, not the generator's)
_MADE_WORDS = frozenset(("create", "created", "creation", "registered", "registration", "submitted", "issued"))
_CHANGED_WORDS = frozenset(("update", "updated", "modified", "modification", "changed", "edited", "deleted",
                            "deletion", "expire", "expires", "expired", "expiration", "expiry"))
_START_WORDS = frozenset(("start", "started", "begin", "began", "beginning"))
_END_WORDS = frozenset(("end", "ended", "finish", "finished", "complete", "completed", "completion", "stop",
                        "stopped"))
_ORDERS = ((_MADE_WORDS, _CHANGED_WORDS), (_START_WORDS, _END_WORDS))
_ISO_TIME = re.compile(r"\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2})?)?")


def _times_out_of_order(record: dict[str, Any]) -> str | None:
    """``"earlier=... later=..."`` for the first pair of ``record``'s own time fields whose order its words
    say (made before changed or before anything it did last, started before ended) and whose values say the
    opposite, else ``None``. Times are compared as ISO-8601 text in UTC (``Z``), the form covert writes (a
    date beside a time by the day); other forms are not compared."""
    times = {k: v[:19] for k, v in record.items() if isinstance(v, str) and _ISO_TIME.match(v)
             and (len(v) == 10 or v.endswith("Z"))}
    if len(times) < 2:
        return None
    said = {k: key_words(str(k)) for k in times}
    for first, then in _ORDERS:
        earlier = [k for k in times if first.intersection(said[k]) and not then.intersection(said[k])]
        later = [k for k in times if (then.intersection(said[k]) or (then is _CHANGED_WORDS and said[k][:1] == ["last"]))
                 and not first.intersection(said[k])]
        for a in earlier:
            for b in later:
                shared = min(len(times[a]), len(times[b]))  # a date beside a time: compared by the day
                if times[a][:shared] > times[b][:shared]:
                    return f"{a}={record[a]!r} {b}={record[b]!r}"
    return None


@check("times_out_of_order", "imported outputs holding a record changed, deleted or expired before it was made, or "
       "ended before it started (createTime after updateTime, endDate before startDate)", 0.0)
def times_out_of_order(view: RowView) -> Verdict | None:
    """Imported rows with outputs. Flagged when one object of an output has a made-like time (create,
    registered, submitted, issued) later than a changed-like one (update, modified, deleted, expire) or one of
    what the record did last (``LastInventoryDate``), or a start-like time later than an end-like one, both
    ISO-8601 in UTC."""
    if not imported(view) or not view.turns:
        return None
    for call in view.calls:
        for record in _objects(call.output):
            found = _times_out_of_order(record)
            if found is not None:
                return _flag("out_of_order", f"{call.name}: {found}")
    return OK


# the key of a part that is another record than the one holding it (its parent, what it was copied from): that
# part's id field names the other record (the audit's own words)
_ANOTHER_RECORD = frozenset(("parent", "parents", "source", "origin", "original", "previous", "next", "target",
                             "linked", "related", "base", "template", "upstream", "fork", "forks", "child",
                             "children", "destination", "peer", "peers", "replica", "replicas", "primary",
                             "secondary", "from", "to", "copy", "clone"))


_TOOL_VERBS = frozenset(("list", "get", "describe", "create", "update", "delete", "patch", "insert", "put", "post",
                         "add", "remove", "set", "batch", "search", "id", "ids", "by", "all"))


def _part_disagrees(record: dict[str, Any], nouns: set[str]) -> str | None:
    """``"path: key=value, record key=value"`` for the first part of ``record`` (down to three levels, not a
    part that is another record) that repeats one of the record's own id fields (an id field whose word
    before ``id`` is in ``nouns``: ``ApplicationId`` in an application) with another value, else ``None``."""
    own = {k: v for k, v in record.items() if isinstance(v, (str, int)) and not isinstance(v, bool)
           and len(said := key_words(str(k))) >= 2 and said[-1] == "id" and singular(said[-2]) in nouns}
    if not own:
        return None
    stack: list[tuple[str, Any, int]] = [(str(k), v, 1) for k, v in record.items()
                                         if _ANOTHER_RECORD.isdisjoint(key_words(str(k)))]
    while stack:
        path, part, depth = stack.pop()
        if isinstance(part, list):
            stack.extend((path, item, depth) for item in part[:50])
        elif isinstance(part, dict):
            for key, value in own.items():
                if key in part and part[key] != value:
                    return f"{path}.{key}={part[key]!r}, the record's {key}={value!r}"
            if depth < 3:
                stack.extend((f"{path}.{k}", v, depth + 1) for k, v in part.items()
                             if _ANOTHER_RECORD.isdisjoint(key_words(str(k))))
    return None


@check("part_names_another_record", "imported outputs where a part of a record repeats the record's own id "
       "field with another value (an application's Version.ApplicationId that is not the application's)", 0.0)
def part_names_another_record(view: RowView) -> Verdict | None:
    """Imported rows with outputs. Flagged when an object of an output has an id field naming the record the
    tool is about (``ApplicationId`` from ``GetApplication``: its word before ``id`` the tool name's last
    noun, singular) and a part of it (not one keyed as another record: ``parent``, ``source``) holds that
    field with another value."""
    if not imported(view) or not view.turns:
        return None
    for call in view.calls:
        said = [w for w in key_words(call.name) if w not in _TOOL_VERBS]
        nouns = {singular(said[-1])} if said else set()  # the record the tool is about: its last noun
        for record in _objects(call.output):
            found = _part_disagrees(record, nouns)
            if found is not None:
                return _flag("part_id_differs", f"{call.name}: {found}"[:200])
    return OK


# "2 applications", "5 VPC endpoints": a number on its own, then a plural noun ending the phrase
_COUNTED = re.compile(r"(?:^|\s)(\d+) (?:[A-Za-z-]+ ){0,3}?([A-Za-z-]+s)(?=[\s.,:;!?]|$)")


def _lists_of(output: Any, depth: int = 0) -> list[tuple[str, list[Any]]]:
    """The lists of an output with their keys: the output itself, or its lists down to three objects deep (an
    application's ``Version.ParameterDefinitions``), never inside a list."""
    if isinstance(output, list):
        return [("", output)] if depth == 0 else []
    if not isinstance(output, dict) or depth >= 3:
        return []
    found = [(str(k), v) for k, v in output.items() if isinstance(v, list)]
    for value in output.values():
        if isinstance(value, dict):
            found += _lists_of(value, depth + 1)
    return found


def _listed_lengths(output: Any) -> dict[int, str]:
    """The lengths of an output's lists (:func:`_lists_of`), each with the words that say what the list
    holds: its key's, and those of its records' own name fields (SCIM's ``userName``), singular and run
    together."""
    lists = _lists_of(output)
    out: dict[int, str] = {}
    for key, items in lists:
        names = [k for item in items[:1] if isinstance(item, dict) for k in item if key_words(str(k))[-1:] == ["name"]]
        said = [singular(w) for k in (key, *names) for w in key_words(str(k))]
        out[len(items)] = out.get(len(items), "") + " " + "".join(said)
    return out


@check("count_names_other_records", "imported answers that count a list by another record's noun ('that's 2 "
       "applications' after ListEnvironments returned 2 environments)", 0.0)
def count_names_other_records(view: RowView) -> Verdict | None:
    """Imported rows whose answer says "N <things>" where some call returned a list of N records. Flagged when
    no call that returned N records says the counted thing in its name, the list's key or its records' own
    name fields (a record's ``ApplicationId`` names another record)."""
    if not imported(view) or not view.answer or not view.calls:
        return None
    lengths = [("".join(singular(w) for w in key_words(c.name)), _listed_lengths(c.output)) for c in view.calls]
    checked = False
    for number, many in _COUNTED.findall(view.answer):
        count, noun = int(number), singular(many.lower())
        listing = [tool + said for tool, found in lengths for n, said in found.items() if n == count]
        if not listing:
            continue
        checked = True
        if not any(noun in said for said in listing):  # "shelf" is said in "bookshelf"
            return _flag("counted_as_other_records", f"{number} {many} ({', '.join(c.name for c in view.calls)})")
    return OK if checked else None


# an AWS ARN: arn:PARTITION:SERVICE:REGION:ACCOUNT:RESOURCE
_ARN = re.compile(r"\barn:([^:\s\"]*):([^:\s\"]*):([^:\s\"]*):([^:\s\"]*):")
_PARTITIONS = frozenset(("aws", "aws-cn", "aws-us-gov", "aws-iso", "aws-iso-b", "aws-iso-e", "aws-iso-f", "aws-eusc"))
_REGION = re.compile(r"(?:us|eu|ap|sa|ca|me|af|il|mx|cn|us-gov|us-iso|us-isob|eusc)-[a-z]+-\d")
_ACCOUNT = re.compile(r"\d{12}|aws")


def _strings(value: Any) -> Any:
    """Every string in nested data (bounded as :func:`_nested`)."""
    return (item for item in _nested(value) if isinstance(item, str))


def _malformed_arn(text: str) -> str | None:
    """The first ARN of ``text`` that no AWS service writes (a partition, region or account drawn letter by
    letter: ``arn:aws-k:lambda:nt-bz-4:...``, no service, a resource with a part left empty:
    ``arn:aws::us-east-1:...:project//feature/f-5``), or ``None``."""
    for found in _ARN.finditer(text):
        partition, service, region, account = found.groups()
        if partition not in _PARTITIONS or not service or (region and not _REGION.fullmatch(region)) \
                or (account and not _ACCOUNT.fullmatch(account)):
            return found.group(0)
        if "//" in text[found.end():found.end() + 200].split('"', 1)[0]:  # "project//feature/...": a part left empty
            return text[found.start():found.end() + 40]
    return None


@check("malformed_arn", "imported calls and outputs holding an ARN no AWS service writes: a partition, region or "
       "account drawn from a pattern's letters (arn:aws-k:lambda:nt-bz-4:..., arn:aws:outposts:0l:...)", 0.0)
def malformed_arn(view: RowView) -> Verdict | None:
    """Imported rows with calls. Flagged when an argument or an output holds an ARN whose partition is
    none of AWS's, whose region is no region's shape, or whose account is not 12 digits."""
    if not imported(view) or not view.calls:
        return None
    for call in view.calls:
        for value in (call.arguments, call.output):
            for text in _strings(value):
                if "arn:" in text:
                    bad = _malformed_arn(text)
                    if bad is not None:
                        return _flag("malformed_arn", f"{call.name}: {bad}")
    return OK


def _nested(value: Any) -> Any:
    """Every value in nested data, outermost first (bounded by :data:`MAX_PAIRS` values looked at)."""
    stack, looked = [value], 0
    while stack and looked < MAX_PAIRS:
        item = stack.pop()
        looked += 1
        yield item
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


def _objects(value: Any) -> Any:
    """Every dict of nested output data, outermost first (bounded as :func:`_nested`)."""
    return (item for item in _nested(value) if isinstance(item, dict))


@check("empty_objects", "imported outputs listing objects with nothing in them ('errors': [{}], "
       "'deploymentMappings': [{}, {}])", 0.02)
def empty_objects(view: RowView) -> Verdict | None:
    """Imported rows with outputs. Flagged when a list in an output holds an empty object: filler a
    reader sees, and a count of such items ("2 runtime configs") counts nothing."""
    if not imported(view) or not view.turns:
        return None
    for call in view.calls:
        for item in _objects(call.output):
            for key, value in item.items():
                if isinstance(value, list) and any(v == {} for v in value):
                    return _flag("empty_in_list", f"{call.name}: {key}={value!r}"[:160])
    return OK


def _records(output: Any, keys: set[str]) -> list[dict[str, Any]]:
    """The records an output is about: the output itself when it holds one of ``keys`` (a record, whose
    own lists are parts of it), else the objects of its top-level lists (a page of records)."""
    if not isinstance(output, dict):
        return []
    if {fold_key(k) for k in keys} & {fold_key(k) for k in output}:
        return [output]
    return [v for value in output.values() if isinstance(value, list) for v in value[:MAX_PAIRS] if isinstance(v, dict)]


@check("scope_disagrees", "imported outputs whose records contradict the call's own scope or parent, or their own "
       "path: a snapshot listed for project cache-apac-572 saying 'projectId': 'ads-0687bc'", 0.0)
def scope_disagrees(view: RowView) -> Verdict | None:
    """Imported rows with successful calls. Flagged when a record of a call's output (the output, or the
    objects of its top-level lists when it is a page of them) has a string field named as one of the
    call's string arguments (other than a bare ``id`` or ``name``), holding neither that value nor a path
    ending in it."""
    if not imported(view) or not view.turns:
        return None
    for call in view.calls:
        if is_error(call.output):
            continue
        # a reference to where the record lives or what it is called ("projectId", "instance",
        # "displayName"); a bare "id" or "name" may be another record's (a list filter's parent)
        for item in _records(call.output, {"name"}):
            found = _project_contradicted(item)
            if found is not None:
                return _flag("project_disagrees_with_path", f"{call.name}: {found}")
        named = {k: v for k, v in call.arguments.items() if isinstance(v, str) and v and k not in ("id", "name")}
        if not named:
            continue
        for item in _records(call.output, set(named)):
            by_letters = {fold_key(k): v for k, v in item.items()}  # vaultName given, VaultName held
            for key, value in named.items():
                held = item[key] if key in item else by_letters.get(fold_key(key))
                if isinstance(held, str) and held != value and not held.endswith("/" + value) and \
                        not value.endswith("/" + held):
                    return _flag("field_contradicts_argument", f"{call.name}: {key}={value!r}, output {held!r}")
    return OK


def _project_contradicted(item: dict[str, Any]) -> str | None:
    """``name=..., projectId=...`` when a record's path (its ``name``) is under one project and its
    ``projectId`` or ``project`` field names another, else ``None``."""
    project = path_project(item.get("name"))
    if project is None:
        return None
    for key, value in item.items():
        if fold_key(key) in PROJECT_KEYS and isinstance(value, str) and value \
                and value.removeprefix("projects/") != project:
            return f"name={str(item['name'])[:80]!r}, {key}={value[:60]!r}"
    return None


_BROKEN_PLURAL = re.compile(r"\b(\w+(?:sis|aws|info|data|metadata|status))es\b|\b(?:infos|datas|metadatas|"
                            r"statuss|awses|analysises|criterias|feedbacks|softwares|equipments|informations)\b",
                            re.IGNORECASE)


@check("broken_nouns", "imported system prompts with repeated or broken resource nouns ('actions, actions', "
       "'awses', 'analysises', 'billing infos')", 0.0)
def broken_nouns(view: RowView) -> Verdict | None:
    """Imported rows with a system prompt. Flagged when its list of what the assistant manages names a
    noun twice, or a plural no one writes."""
    if not imported(view) or not view.system:
        return None
    broken = _BROKEN_PLURAL.search(view.system)
    if broken and broken.group(0).lower() not in ("analyses", "statuses", "buses", "bonuses", "viruses", "boxes"):
        return _flag("broken_plural", broken.group(0))
    listed = re.search(r"manage (.+?) through", view.system)
    if listed:
        items = [i.strip() for i in re.split(r",| and ", listed.group(1)) if i.strip()]
        if len(items) != len(set(items)):
            return _flag("repeated_noun", listed.group(1)[:120])
    return OK


def _path_disagrees(value: str) -> bool:
    """A resource path whose segments repeat one value for two collections (``projects/x/locations/x``)."""
    parts = value.split("/")
    if len(parts) < 4 or len(parts) % 2:
        return False
    values = parts[1::2]
    return len(values) != len(set(values))


@check("wrong_kind_argument", "imported calls with a value of the wrong kind: an ARN where a name is asked, a "
       "resource path whose parts repeat one value, a child id that disagrees with its parent", 0.0)
def wrong_kind_argument(view: RowView) -> Verdict | None:
    """Imported rows with calls. Flagged when an argument whose name ends in Name holds an ARN, a path
    argument names one value for two collections (``projects/x/locations/x``), or a call's child path
    does not start with the parent path another argument of the same call gives."""
    if not imported(view) or not view.turns:
        return None
    for call in view.calls:
        args = {k: v for k, v in call.arguments.items() if isinstance(v, str)}
        for key, value in args.items():
            words = key_words(key)
            if words and words[-1] == "name" and value.startswith("arn:"):
                return _flag("arn_as_name", f"{call.name}: {key}={value[:80]}")
            if "/" in value and _path_disagrees(value):
                return _flag("path_repeats", f"{call.name}: {key}={value[:80]}")
        parent = args.get("parent")
        child = args.get("name")
        if parent and child and "/" in parent and "/" in child and not child.startswith(parent + "/"):
            return _flag("child_outside_parent", f"{call.name}: {parent} / {child}")
    return OK




_FINAL = frozenset(state.replace("_", "") for state in rowforms.FINAL_STATES)


_STATUS_TAILS = ("status", "state", "phase", "lifecycle")


def _puts_a_known_record(call: CallView, before: list[CallView]) -> bool:
    """Whether a ``put`` call changes a record the row has already seen (Traccar's ``put_users_id`` on the user
    a listing showed): it writes an existing record, makes none, and what that record already said is no
    news of a new one's."""
    if key_words(call.name)[:1] != ["put"]:
        return False
    ids = {str(v) for k, v in call.arguments.items()
           if key_words(str(k))[-1:] == ["id"] and isinstance(v, (str, int)) and not isinstance(v, bool)}
    return any(ids & c.scalars for c in before)


@check("create_terminal_status", "imported creates whose output gives the new record a final or failing status "
       "('canceled', 'deleted', 'DOMAIN_VERIFICATION_LOST', a part 'UNHEALTHY'), says why it failed "
       "('failureReason': 'TOPIC_NOT_FOUND') or that it ended ('archived': true, not asked for)", 0.0)
def create_terminal_status(view: RowView) -> Verdict | None:
    """Imported rows with a create. Flagged when a create's output has a status-like field of the record
    itself (``status``, ``state``, ``connectionState`` for CreateConnection; not ``portEncryptionStatus``)
    holding a final state, a status-like field anywhere in it holding a failing one (``CERT_ERROR``,
    ``FAILING``, ``UNHEALTHY``), a field saying why the record failed with something in it, or a yes/no of the
    record saying it ended (``archived``, ``isDeleted``: true) that the call did not ask for."""
    if not imported(view):
        return None
    creates = [c for i, c in enumerate(view.calls) if _is_create(c) and not is_error(c.output)
               and not _puts_a_known_record(c, view.calls[:i])]
    if not creates:
        return None
    for call in creates:
        named = set(key_words(call.name))
        for part in _objects(call.output):
            top = part is call.output
            for key, value in part.items():
                words = key_words(str(key))
                if rowforms.failure_field(str(key)) and rowforms.failure_said(value):
                    return _flag("failure_said", f"{call.name}: {key}={str(value)[:60]}")
                if top and value is True and rowforms.ended_flag(str(key)) and call.arguments.get(key) is not True:
                    return _flag("ended_flag", f"{call.name}: {key}=true")
                if not words or words[-1] not in _STATUS_TAILS:
                    continue
                own = top and (len(words) == 1 or set(words[:-1]) <= named)  # the record's, not a part's
                # a status object says its state in its own fields: "status": {"statusCode": "DELETING"}
                for said in ([value] if isinstance(value, str) else
                             [v for v in value.values() if isinstance(v, str)] if isinstance(value, dict) else []):
                    if own and (said.lower().replace("_", "") in _FINAL or rowforms.ending_state(said)):
                        return _flag("final_status", f"{call.name}: {key}={said}")
                    if rowforms.troubled_state(said):
                        return _flag("failing_status", f"{call.name}: {key}={said}")
    return OK


@check("new_record_holds_contents", "imported creates whose new record already counts what it holds "
       "(a vault just made with 'NumberOfArchives': 225, a repository with 249 open issues), not asked for", 0.0)
def new_record_holds_contents(view: RowView) -> Verdict | None:
    """Imported rows with a create. Flagged when the record a create made (its output, or the object in it
    named like the tool's record: ``Queue`` of CreateQueue) has a count or size of what it holds above 0
    (:func:`~covert.imports.rowforms.counts_contents`) that the call's arguments did not give."""
    if not imported(view):
        return None
    creates = [c for c in view.calls if _is_create(c) and isinstance(c.output, dict) and not is_error(c.output)]
    if not creates:
        return None
    for call in creates:
        named = {singular(w) for w in key_words(call.name)}  # a notes insert made a note
        made = [call.output, *(v for k, v in call.output.items()
                               if isinstance(v, dict) and named & {singular(w) for w in key_words(k)})]
        for record in made:
            for key, value in record.items():
                counted = value if isinstance(value, int) and not isinstance(value, bool) else \
                    int(value) if isinstance(value, str) and value.isdigit() else 0
                if counted > 0 and rowforms.counts_contents(str(key)) and key not in call.arguments:
                    return _flag("holds_contents", f"{call.name}: {key}={value}")
    return OK


@check("parallel_near_duplicate", "imported parallel writes of one tool whose arguments differ in one number only, "
       "or creates that give their records the same name", 0.0)
def parallel_near_duplicate(view: RowView) -> Verdict | None:
    """Imported rows with a turn of two writes of one tool. Flagged when two of them differ only in
    numbers ("national roaming data limit 141 and 58"), or two creates name their records alike (three
    plugins all "Data Plugin")."""
    if not imported(view):
        return None
    turns = [t for t in view.turns if sum(c.writes for c in t) >= 2]
    if not turns:
        return None
    for turn in turns:
        writes = [c for c in turn if c.writes]
        for i, a in enumerate(writes):
            for b in writes[i + 1:]:
                if a.name == b.name and numbers_only_differ(a.arguments, b.arguments):
                    return _flag("numbers_only", f"{a.name}: {a.arguments} / {b.arguments}")
                named = a.name == b.name and is_create(a.name) and rowforms.same_name(a.arguments, b.arguments)
                if named:
                    return _flag("same_name", f"{a.name}: {named}={a.arguments[named]!r} twice")
    return OK


def _singular(word: str) -> str:
    if word.endswith("ies"):
        return word[:-3] + "y"
    if word.endswith(("sses", "xes", "ches", "shes")):
        return word[:-2]
    return word[:-1] if word.endswith("s") and not word.endswith("ss") else word


@check("list_by_foreign_name", "imported rows that name records by another record's name field: a list answer "
       "(creatives listed by their advertiser's name) or a request (\"the release called edge-growth\", its "
       "ruleset's name; \"the gateway called fraud.example.org\", its host name)", 0.0)
def list_by_foreign_name(view: RowView) -> Verdict | None:
    """Imported rows that name records by a field holding another record's name
    (:func:`~covert.imports.rowforms.foreign_name`): a request that calls a looked-up record by it ("the
    release called edge-growth", its ``rulesetName``) or by a field that is no name at all ("the gateway
    called fraud.example.org", its ``defaultHostname``), or a last turn that returned a list of records
    under a key (``creatives``) whose answer quotes only such fields (``advertiserName``)."""
    if not imported(view) or view.behaviour != "tool_use" or not view.turns:
        return None
    for call in view.calls:
        for list_key, records in _record_lists(call):
            own = _own_nouns(list_key, call.name)
            for rec in records:
                names = {v for k, v in rec.items()
                         if isinstance(v, str) and name_field(str(k)) and not foreign_name(str(k), own)}
                for key, value in rec.items():
                    if not isinstance(value, str) or len(value) <= 2 or value in names or \
                            not _called(view.user_norm, value):
                        continue
                    kind = "called_by_foreign_name" if foreign_name(str(key), own) else "called_by_other_field"
                    return _flag(kind, f"{call.name}: called {value!r}, its {key}")
    if not view.answer:
        return OK
    answer = normalized(view.answer)
    for call in view.turns[-1]:
        for list_key, records in _record_lists(call):
            if not isinstance(call.output.get(list_key), list):
                continue
            said_by: set[str] = set()
            for rec in records:
                for key, value in rec.items():
                    if isinstance(value, str) and len(value) > 2 and says_spoken(answer, value):
                        said_by.add(str(key))
            own = _own_nouns(list_key, call.name)
            if said_by and said_by <= {k for k in said_by if foreign_name(k, own)}:
                return _flag("foreign_name", f"{call.name}: {list_key} named by {sorted(said_by)[0]}")
    return OK


def _record_lists(call: CallView) -> list[tuple[str, list[dict[str, Any]]]]:
    """``(key, records)`` for each list of records a call's output holds at its top level, and the output
    itself as a one-record list under the tool's name (a get's record)."""
    if not isinstance(call.output, dict):
        return []
    found = [(str(key), records) for key, records in call.output.items()
             if isinstance(records, list) and records and all(isinstance(r, dict) for r in records)]
    return found or [(call.name, [call.output])]


def _own_nouns(list_key: str, tool: str) -> set[str]:
    """A list's own nouns: its key's (``creatives``) and its tool's (``ListScans`` -> scan)."""
    return {_singular(w) for w in key_words(list_key) + key_words(tool)}


def _called(query_norm: str, value: str) -> bool:
    """Whether a (normalised) request calls something ``value`` ("named X", "called X"), the whole of its name."""
    said = normalized(value)
    # the whole name: "the file called internal-file-9" calls nothing "internal"
    return bool(said) and re.search(rf"\b(?:called|named) {re.escape(said)}(?![\w-]|\.\w)", query_norm) is not None
