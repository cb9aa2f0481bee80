"""A small YAML writer for JSON-like data, so covert needs no YAML library to write YAML.

Block style; a string stays plain only when it cannot be read as anything else, otherwise it is
double-quoted as JSON writes it (which YAML reads back unchanged); floats always read back as
floats. Any YAML 1.1 reader parses the output to the same values. Used for verl tool configs
(:mod:`covert.rewards.verl`) and for the YAML view of tool outputs (:mod:`covert.augment.formats`).
"""

from __future__ import annotations

import json
import re
from typing import Any

IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
YAML_WORDS = frozenset({"null", "true", "false", "yes", "no", "on", "off", "y", "n", "nan", "inf", "none"})
_YAML_PLAIN = re.compile(r"[A-Za-z][A-Za-z0-9 _.,@()/&'+-]*")
_YAML_UNPRINTABLE = re.compile("[\x7f-\x9f\u2028\u2029\ud800-\udfff\ufffe\uffff]")


def float_text(value: float) -> str:
    """A float as text that every reader takes for a float (``1e+20`` becomes ``1.0e+20``)."""
    text = repr(value)
    if "e" in text and "." not in text:
        mantissa, exponent = text.split("e")
        text = f"{mantissa}.0e{exponent}"
    return text


def dump_yaml(value: Any) -> str:
    """``value`` (dicts, lists, strings, numbers, booleans, None) as YAML text."""
    return "\n".join(_yaml_lines(value, 0)) + "\n"


def _yaml_plain(text: str) -> bool:
    return bool(_YAML_PLAIN.fullmatch(text)) and text == text.rstrip() and text.lower() not in YAML_WORDS


def _yaml_string(text: str) -> str:
    return text if _yaml_plain(text) else yaml_quote(text)


def yaml_quote(text: str) -> str:
    """A double-quoted YAML string (JSON escapes, plus the characters YAML will not take raw)."""
    quoted = json.dumps(text, ensure_ascii=False)
    return _YAML_UNPRINTABLE.sub(lambda m: f"\\u{ord(m.group()):04x}", quoted)


def _yaml_scalar(value: Any) -> str:
    if isinstance(value, str):
        return _yaml_string(value)
    if isinstance(value, (dict, list)):
        return "{}" if isinstance(value, dict) else "[]"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return float_text(value)
    if isinstance(value, int):
        return str(value)
    raise TypeError(f"cannot write {type(value).__name__} as YAML")


def _yaml_lines(value: Any, indent: int) -> list[str]:
    pad = " " * indent
    lines: list[str] = []
    if isinstance(value, dict) and value:
        for key, item in value.items():
            name = yaml_quote(key) if not IDENT.fullmatch(key) or key.lower() in YAML_WORDS else key
            if isinstance(item, (dict, list)) and item:
                lines.append(f"{pad}{name}:")
                lines.extend(_yaml_lines(item, indent + 2))
            else:
                lines.append(f"{pad}{name}: {_yaml_scalar(item)}")
    elif isinstance(value, list) and value:
        for item in value:
            if isinstance(item, dict) and item:
                inner = _yaml_lines(item, indent + 2)
                lines.append(f"{pad}- {inner[0].lstrip()}")
                lines.extend(inner[1:])
            elif isinstance(item, list) and item:
                lines.append(f"{pad}-")
                lines.extend(_yaml_lines(item, indent + 2))
            else:
                lines.append(f"{pad}- {_yaml_scalar(item)}")
    else:
        lines.append(pad + _yaml_scalar(value))
    return lines
