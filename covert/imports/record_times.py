"""When a written record says it was made and last changed: now, not a day drawn from the past.

A seeded record's times are drawn from 2022-2025. A record a create makes in the task was made *now* (and a
release made now was released now, a message published now), an update changes it now, and a record made
now runs out after now (``expireTime`` 30 days on, never a backup made today that expired in 2022), and the
making of a record made now ended just after now (a glossary submitted now has its ``endTime`` two minutes on).
``CreateQueue`` answered ``"CreatedAt": "2022-08-16T21:11:06Z", "LastUpdated": "2023-03-01T09:28:48Z"``
for the queue it had just made. :func:`stamp_written` sets a written record's creation and last-change
times to :data:`NOW` (after every seeded time), each in the form its field already has (an RFC 3339 time
with or without fractions or offset, a date, an RFC 2822 time, Unix seconds or milliseconds); a field of
another form (an enum ``UpdateSchedule``, ``LastUpdatedBy``) is left alone.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone
from typing import Any

from covert.imports.resources import words

NOW = datetime(2026, 1, 15, 9, 30, tzinfo=timezone.utc)  # when a task's writes happen: after every seeded time
# the events of a record's making: its creation, and what making one is for a release, a message, a request
# (``releaseTime`` of a Firebase release, ``publishTime`` of a message, ``submittedAt`` of a request)
CREATED_EVENTS = frozenset(("created", "creation", "create", "release", "released", "publish", "published", "submit",
                      "submitted", "submission", "register", "registered", "registration", "insert", "inserted",
                      "added", "upload", "uploaded", "request", "requested", "enqueued", "posted", "sent"))
# when a record runs out: a record made now runs out later, never on a day already past (a backup made
# today that "expired" in 2022)
END_EVENTS = frozenset(("expire", "expires", "expiry", "expiration", "expiring"))
ENDS_AFTER = timedelta(days=30)
# when the making of a record finished: a glossary submitted now ends a moment later, never in 2022
FINISHED_EVENTS = frozenset(("end", "ended", "complete", "completed", "completion", "finish", "finished", "done"))
FINISHED_AFTER = timedelta(minutes=2)
CHANGED_EVENTS = frozenset(("updated", "update", "modified", "modification", "modify", "changed", "edited"))
_LEADS = frozenset(("last", "date", "time", "max"))  # LastUpdated, date_created, maxExpireTime
_MADE = CREATED_EVENTS | END_EVENTS | FINISHED_EVENTS  # stamped on a record a create makes
_EVENTS = CREATED_EVENTS | CHANGED_EVENTS | END_EVENTS | FINISHED_EVENTS
_AFTER_MAKING = CHANGED_EVENTS | END_EVENTS  # a field whose name says one anywhere is no earlier than the making
_TAILS = frozenset(("time", "date", "at", "on", "timestamp", "datetime", "ts", "ms", "millis", "utc", "by", "me"))  # modifiedByMeTime
_RFC3339 = re.compile(r"^\d{4}-\d\d-\d\d([T ])\d\d:\d\d:\d\d(\.\d{1,9})?(Z|[+-]\d\d:?\d\d)?$")
_DATE = re.compile(r"^\d{4}-\d\d-\d\d$")
_RFC2822 = re.compile(r"^[A-Z][a-z]{2}, \d\d [A-Z][a-z]{2} \d{4} \d\d:\d\d:\d\d ([+-]\d{4}|GMT)$")
_MAX_DEPTH = 2
_DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def stamp_written(record: dict[str, Any], created: bool, n: int = 0) -> None:
    """Set ``record``'s times of creation (when ``created``) and of last change to now, in place: the
    ``n``-th record a create tool makes on a state a few seconds after the one before it, so the records
    of one task keep the order they were made in."""
    _stamp(record, NOW + timedelta(seconds=13 * n), created, 0)


def _stamp(record: dict[str, Any], moment: datetime, created: bool, depth: int) -> None:
    for key, value in list(record.items()):
        if isinstance(value, dict):
            if depth < _MAX_DEPTH:
                _stamp(value, moment, created, depth + 1)
            continue
        said = words(key)
        event = _event(said)
        if event is not None and (event in CHANGED_EVENTS or (created and event in _MADE)):
            later = ENDS_AFTER if event in END_EVENTS else FINISHED_AFTER if event in FINISHED_EVENTS else timedelta(0)
            stamped = _in_form_of(value, moment + later)
            if stamped is not None:
                record[key] = stamped
        elif created and (_AFTER_MAKING.intersection(said) or said[:1] == ["last"]) \
                and _before(value, _in_form_of(value, moment)):
            # nothing of a record made now changed, ran out or last did anything before it was made (a repository
            # created now whose mirror_updated is in 2023, an object whose retentionExpirationTime is past, a vault
            # made now whose LastInventoryDate is in 2023); a later time stays
            later = ENDS_AFTER if END_EVENTS.intersection(said) else timedelta(0)
            record[key] = _in_form_of(value, moment + later)


def _before(value: Any, moment: Any) -> bool:
    """Whether ``value`` is an earlier time than ``moment`` written in the same form (epoch numbers, or
    RFC 3339 and dates compared to the second); other forms are never called earlier."""
    if isinstance(value, int) and isinstance(moment, int):
        return value < moment
    if isinstance(value, str) and isinstance(moment, str) and (_RFC3339.match(value) or _DATE.match(value)):
        return value[:19] < moment[:19]
    return False


def _event(parts: list[str]) -> str | None:
    """The word of a record's own event a field is the time of: ``created`` for ``CreatedAt``,
    ``date_created``, ``creationTimestamp``; ``modified`` for ``lastModifiedTime``, ``modifiedByMeTime``;
    ``None`` for a field about something else (``FunctionUpdateBlockDate``, ``softwareSetUpdateSchedule``)."""
    while parts and parts[0] in _LEADS and len(parts) > 1:
        parts = parts[1:]
    if not parts or parts[0] not in _EVENTS or not _TAILS.issuperset(parts[1:]):
        return None
    return parts[0]


def _in_form_of(value: Any, moment: datetime) -> Any:
    """``moment`` written as ``value`` is (``None`` when ``value`` is no time covert knows the form of)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        seconds = int(moment.timestamp())
        if 10**9 <= value < 10**10:
            return seconds
        if 10**12 <= value < 10**13:
            return seconds * 1000
        return None
    if not isinstance(value, str):
        return None
    found = _RFC3339.match(value)
    if found:
        separator, fraction, offset = found.group(1), found.group(2) or "", found.group(3) or ""
        text = moment.strftime(f"%Y-%m-%d{separator}%H:%M:%S")
        if fraction:
            text += "." + "0" * (len(fraction) - 1)
        if offset:
            text += "Z" if offset == "Z" else ("+00:00" if ":" in offset else "+0000")
        return text
    if _DATE.match(value):
        return moment.strftime("%Y-%m-%d")
    found = _RFC2822.match(value)
    if found:
        day, month = _DAYS[moment.weekday()], _MONTHS[moment.month - 1]  # English whatever the locale
        return f"{day}, {moment:%d} {month} {moment:%Y %H:%M:%S} " + ("GMT" if found.group(1) == "GMT" else "+0000")
    return None
