"""The AST pre-filter refuses imports outside the allow-list and the usual escape hatches, with reasons."""

from __future__ import annotations

import pytest

from covert.sandbox import prefilter

GOOD = '''
from __future__ import annotations
import heapq
import math
from dataclasses import dataclass
from covert.procgen.contract import Instance, Knob, ProceduralEnv, Score


@dataclass
class Box:
    size: int

    def __post_init__(self) -> None:
        self._area = self.size * self.size


def shortest(graph: dict, start: str) -> dict:
    dist = {start: 0}
    heap = [(0, start)]
    while heap:
        d, node = heapq.heappop(heap)
        for nxt, w in graph.get(node, []):
            if d + w < dist.get(nxt, math.inf):
                dist[nxt] = d + w
                heapq.heappush(heap, (d + w, nxt))
    return {"text": "{} nodes".format(len(dist)), "dist": dist}
'''


def test_a_well_behaved_module_passes() -> None:
    assert prefilter(GOOD) == []


@pytest.mark.parametrize(("source", "code"), [
    ("import os", "forbidden_import"),
    ("import subprocess", "forbidden_import"),
    ("import socket", "forbidden_import"),
    ("import ctypes", "forbidden_import"),
    ("import importlib", "forbidden_import"),
    ("from os import path", "forbidden_import"),
    ("from . import sibling", "forbidden_import"),
    ("from random import _os", "forbidden_import"),
    ("import covert.cli", "forbidden_import"),
    ("x = __import__('o' + 's')", "forbidden_name"),
    ("x = eval('1+1')", "forbidden_name"),
    ("exec('x = 1')", "forbidden_name"),
    ("c = compile('1', 'f', 'eval')", "forbidden_name"),
    ("f = open('/etc/passwd')", "forbidden_name"),
    ("g = getattr(object, 'mro')", "forbidden_name"),
    ("b = __builtins__", "forbidden_name"),
    ("s = ().__class__.__base__.__subclasses__()", "dunder_access"),
    ("import random\nos = random._os", "private_attribute"),
    ("def f():\n    yield 1\ng = f().gi_frame", "forbidden_attribute"),
    ("t = ('{0.' + 'x}').format(1)", "format_string"),
    ("t = '{0.real}'.format(1)", "format_string"),
    ("s = 'a__b'", "dunder_string"),
    ("def broken(:\n    pass", "syntax_error"),
    ("class M(type):\n    pass\nclass A(metaclass=M):\n    pass", "forbidden_name"),
])
def test_escape_hatches_are_refused_with_a_reason(source: str, code: str) -> None:
    reasons = prefilter(source)
    assert reasons, f"accepted: {source!r}"
    assert any(r.startswith(code + ":") for r in reasons), reasons
    assert all("line" in r for r in reasons if not r.startswith("syntax_error"))


def test_too_large_sources_are_refused_unparsed() -> None:
    assert prefilter("x = 1\n" * 100, max_bytes=100) == ["too_large: the source is over 100 bytes"]


def test_an_extra_allowed_module_can_be_granted() -> None:
    assert prefilter("import numpy") != []
    assert prefilter("import numpy", allowed_modules={"numpy"}) == []


@pytest.mark.parametrize(("source", "code"), [
    ("import dataclasses\nos = dataclasses.sys.modules['os']\n", "module_attribute"),
    ("import json\nopener = json.codecs.open\n", "module_attribute"),
    ("import json as j\nscanner = j.decoder.scanner\n", "module_attribute"),
    ("from dataclasses import sys\n", "module_attribute"),
    ("import operator\nget = operator.attrgetter('_' * 2 + 'import' + '_' * 2)\n", "forbidden_attribute"),
    ("from operator import attrgetter as get\n", "forbidden_import"),
    ("import operator\ncall = operator.methodcaller('system', 'id')\n", "forbidden_attribute"),
])
def test_the_issue_32_bypasses_are_refused(source: str, code: str) -> None:
    """Issue 32: these passed the filter (the OS barrier held); the filter is defence in depth."""
    reasons = prefilter(source)
    assert reasons and reasons[0].startswith(f"{code}: "), reasons


def test_allowed_submodules_and_module_functions_still_pass() -> None:
    source = ("import collections.abc\nimport collections\nimport json\nimport re\nimport functools\n"
              "a = collections.abc.Mapping\nb = collections.Counter\nc = json.loads('1')\nd = re.compile('a')\n"
              "e = functools.reduce\n")
    assert prefilter(source) == []
