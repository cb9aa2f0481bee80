"""The values a field's description says it takes where its schema declares no enum.

Specs often state a field's choices in prose instead of an ``enum``: "Valid values are `0`, `1`, and `3`",
"Valid values include <code>aac</code>, <code>flac</code> and <code>vorbis</code>", "Possible values are:
- "default" - ... - "confirmed" - ...", "one of the following values: <ul><li><p>Pending: ...". A value drawn
for such a field from its name alone ("SampleRate": "0.80" where the description allows 8000, 16000, 22050
and 24000) tells a reader the API accepts what it does not. :func:`stated_values` reads those lists, and
only those that read as a plain list: every item a code or a quoted value, the list ending where the
sentence does. A range ("1 through 65535", "0 - 15"), a list that goes on into prose ("00:00-24:00, where
24:00 ...") or items that are sentences give nothing, and the field is drawn as before.
"""

from __future__ import annotations

import re
from functools import lru_cache

__all__ = ["stated_values"]

_CUE = re.compile(
    r"\b(?:(?:valid|allowed|possible|accepted|supported|permitted|acceptable)\s+(?:values|options)"
    r"(?:\s+(?:are|is|include|includes))?(?:\s+as\s+follows)?(?:\s+one\s+of)?(?:\s+the\s+following)?(?:\s+values)?"
    r"|(?:must|can|should)\s+be\s+one\s+of(?:\s+the\s+following)?(?:\s+values)?"
    r"|(?P<limited>(?:limited|restricted)\s+to)"
    r"|one\s+of\s+the\s+following\s+values)\s*:?\s*", re.IGNORECASE)
# "Supported: High | Medium | Low | Empty": a bare "supported" cue counts only before codes set apart by bars
_PIPED = re.compile(r"\bsupported\s*:\s*([A-Za-z0-9][\w.+-]{0,39}(?:\s*\|\s*[A-Za-z0-9][\w.+-]{0,39})+)\s*(?:[.;)]|$)",
                    re.IGNORECASE)
_FILTER = re.compile(r"\bfilter", re.IGNORECASE)  # a filter's "supported fields" are no values of the filter
_CODE_TAG = re.compile(r"<code>\s*([^<]{1,60}?)\s*</code>", re.IGNORECASE)
_TAG = re.compile(r"<[^>]{0,80}>")
_QUOTED_ITEM = re.compile(r"[`\"']([^`\"'\s][^`\"']{0,58})[`\"']")
_BARE_ITEM = re.compile(r"[A-Za-z0-9][\w.+:/-]{0,39}")
_SEPARATOR = re.compile(r"\s*(?:,\s*(?:(?:and|or)\s+)?|\s+(?:and|or)\s+|\s*[|/]\s*)", re.IGNORECASE)
_END = re.compile(r"\s*(?:[.;)]|\s*$|\s*\n|\s+\()")
_BULLET_QUOTED = re.compile(r"(?:^|\s)[-*]\s+[`\"']([^`\"'\s][^`\"']{0,40})[`\"']")
_BULLET = re.compile(r"(?:^|\s)[-*]\s")
_LIST_ITEM = re.compile(r"<li>\s*(?:<p>\s*)?(?:<code>\s*)?([A-Za-z0-9][\w.+:-]{0,39})(?:\s*</code>)?"
                        r"\s*(?:[-\u2013\u2014:(]|</p>|</li>)", re.IGNORECASE)
_MAX_ITEMS = 64
_WORDS_NO_CODE = frozenset(("and", "or", "the", "a", "an", "of", "to", "for", "is", "are", "be", "where", "which",
                            "that", "if", "when", "see", "more", "default", "through", "between", "from", "any"))


@lru_cache(maxsize=16384)
def stated_values(description: str) -> tuple[str, ...]:
    """The values ``description`` lists as the only ones its field takes (two or more, in the order given),
    or ``()`` when it states no such list (see the module)."""
    if not description or len(description) > 20_000:
        return ()
    piped = _PIPED.search(description)
    if piped is not None:
        return _distinct(piped.group(1).split("|"))
    for cue in _CUE.finditer(description):
        if _FILTER.search(description, max(0, cue.start() - 300), cue.start()):
            continue
        tail = description[cue.end():cue.end() + 2000]
        found = _html_items(tail) or _bullet_items(tail) or _dashed_items(tail) or _inline_items(tail)
        if cue.group("limited") and not (tail[:1] in "`\"'" or all(v.isupper() for v in found)):
            continue  # "limited to letters and digits" lists no values; "limited to "IOS" and "ANDROID"" does
        if len(found) >= 2:
            return found
    return ()


def _html_items(tail: str) -> tuple[str, ...]:
    """An HTML list right after the cue: ``</p> <ul> <li> <p>Pending: ...</li> <li> <p>InProgress: ...``, every
    item of it opening with a code."""
    lowered = tail.lower()
    first = lowered.find("<li>")
    if first < 0 or _TAG.sub(" ", tail[:first]).strip():  # no list, or words before it
        return ()
    end = lowered.find("</ul>")
    block = tail if end < 0 else tail[:end]
    opened = lowered.count("<li>", 0, len(block))
    items = [m.group(1) for m in _LIST_ITEM.finditer(block)]
    if opened < 2 or len(items) != opened or any(i.lower() in _WORDS_NO_CODE for i in items):
        return ()
    return _distinct(items)


def _bullet_items(tail: str) -> tuple[str, ...]:
    """A text list right after the cue: ``- "default" - A regular event ... - "focusTime" - ...``."""
    if not _BULLET.match(tail) and not tail.startswith(("-", "*")):
        return ()
    bullets = len(_BULLET.findall(" " + tail))
    items = [m.group(1) for m in _BULLET_QUOTED.finditer(" " + tail)]
    return _distinct(items) if len(items) >= 2 and len(items) * 2 >= bullets else ()


_DASHED_ITEM = re.compile(r"[`\"']([A-Za-z0-9][\w.+-]{0,40})[`\"']\s+-\s")


def _dashed_items(tail: str) -> tuple[str, ...]:
    """Codes each followed by a dash and what it means, right after the cue (Google's enums in prose):
    ``"APP_OPEN" - App Open ad format. "BANNER" - Banner ad format. ...``; a quoted word inside an item's
    meaning ("Supported ad types are "VIDEO"") is none of them."""
    first = _DASHED_ITEM.match(tail)
    if first is None:
        return ()
    items = [m.group(1) for m in _DASHED_ITEM.finditer(tail)]
    return _distinct(items) if len(items) >= 2 else ()


def _inline_items(tail: str) -> tuple[str, ...]:
    """A list in the sentence: ``'Channel', 'Display' or 'None'.``, ``<code>aac</code>, ... and
    <code>vorbis</code>``, ``UTC, UTC+01, UTC+02.``: items and separators up to the sentence's end."""
    text = _TAG.sub(" ", _CODE_TAG.sub(r"`\1`", tail)).replace("\u00a0", " ")
    items: list[str] = []
    at = 0
    while len(items) < _MAX_ITEMS:
        quoted = _QUOTED_ITEM.match(text, at)
        bare = None if quoted else _BARE_ITEM.match(text, at)
        item = quoted or bare
        if item is None:
            return ()
        value = item.group(1) if quoted else item.group(0).rstrip(".:")
        if bare and (value.lower() in _WORDS_NO_CODE or not _code_like(value)):
            return ()
        items.append(value)
        at = item.end() if quoted else item.start() + len(value)
        separator = _SEPARATOR.match(text, at)
        if separator is None or separator.end() == at:
            return _distinct(items) if _END.match(text, at) else ()
        at = separator.end()
    return ()


def _code_like(value: str) -> bool:
    """A bare list item that reads as a code, a number or one capitalised word (``UTC+01``, ``F4_1G``, ``8000``,
    ``json``, ``High``), not a word of a sentence that only looks like one item of a list."""
    return any(c.isdigit() for c in value) or value.isupper() or "_" in value or (value.islower() and len(value) <= 12) \
        or (value.isalpha() and value.istitle())


def _distinct(items: list[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(i.strip() for i in items if i.strip()))
