"""BFCL's ground-truth format, scored with covert's matcher.

BFCL (the Berkeley Function-Calling Leaderboard, ``bfcl-eval``) gives, per expected call,
``{function_name: {param: [acceptable values]}}`` where ``""`` among the values marks the parameter
optional; a prediction is ``[{function_name: {param: value}}]``. Its rules, which covert follows: the
function name must match; required parameters (per the function's spec) must be present; a parameter
absent from the spec or from the expected call is unexpected; types follow the spec (``float``
accepts an ``int``; a string is never a number; a bool is not an int); strings compare after BFCL's
standardisation (:data:`covert.rewards.compare.BFCL`); lists compare in order; the number of calls
must equal the number expected. For parallel categories BFCL pairs calls greedily; covert pairs
them with an optimal assignment, so it accepts a correct answer that BFCL's greedy pass rejects
(when one expected call accepts values meant for another). Type checks reach inside lists one level
(BFCL) or all the way down (covert), and covert accepts an ``int`` in a list of floats.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from covert.rewards.assignment import assign
from covert.rewards.bfcl_direct import (
    DirectMatcher,
    alternatives,
    direct_matchers,
    json_schema,
    score_directly,
)
from covert.rewards.bfcl_turn import check_turn
from covert.rewards.compare import BFCL, OPTIONAL, StringNorm, compile_value
from covert.rewards.matching import CallMatcher, CallsResult, Param, any_value, match_turns
from covert.rewards.parsing import ToolCall
from covert.rewards.result import Score

AST_CATEGORIES = ("simple", "multiple", "parallel", "parallel_multiple", "live_simple", "live_multiple",
                  "live_parallel", "live_parallel_multiple", "simple_python")


class BfclReference:
    """One BFCL test entry compiled for scoring: expected calls and the category's rule."""

    def __init__(self, category: str, expected: Sequence[CallMatcher | DirectMatcher], mode: str = "exact") -> None:
        self.category = category
        self.expected = tuple(expected)
        self.mode = mode
        self._relevance = _is_relevance(category)
        if not self._relevance:
            # a closure with the same verdict as the method below, minus its overhead
            self.accepts = _single(self.expected[0]) if len(self.expected) == 1 else _parallel(self)  # type: ignore[method-assign]

    def accepts(self, calls: Any) -> bool:
        """BFCL's verdict on ``calls``, fast: the same as ``score(calls).value == 1`` in exact mode.

        For AST categories each instance replaces this method with a closure (:func:`_single`,
        :func:`_parallel`): calls are paired greedily in order first, and only when that leaves an
        expected call unpaired that some call fits is the optimal assignment computed (greedy pairing
        that succeeds is optimal; an expected call no call fits fails every pairing).
        """
        return self.check(calls).exact

    def _optimal(self, calls: list[Any]) -> bool:
        """Whether an optimal pairing (not just the greedy one) pairs every call."""
        weights = [[1.0 if _is_call(item, m) else 0.0 for m in self.expected] for item in calls]
        return len(assign(weights)) == len(self.expected)

    def check(self, calls: Any) -> CallsResult:
        """Match BFCL-format ``calls`` (``[{name: {arg: value}}]``) against the expected calls."""
        if not self._relevance:
            if self.accepts(calls):
                n = len(self.expected)
                return CallsResult(n, n, n)
            turn = check_turn(self.expected, calls)  # plain calls (the common case): no alignment to search
            if turn is not None:
                return turn
        predicted, invalid, reasons = read_calls(calls)
        if self._relevance:
            n = len(predicted) + invalid
            wants_calls = "irrelevance" not in self.category
            ok = n > 0 if wants_calls else n == 0
            why = () if ok else (f"calls:{'missing_call' if wants_calls else 'extra_call'}: {n} calls",)
            return CallsResult(1 if ok else 0, 1, 1, why)
        # the calls were not accepted, so no in-order pairing pairs them all: straight to the alignment
        result = match_turns([predicted], [list(self.expected)], invalid, paired=False)
        count = len(predicted) + invalid
        if count != len(self.expected):
            reasons.insert(0, f"calls:wrong_count: {count} calls, expected {len(self.expected)}")
        return CallsResult(result.matched, result.predicted, result.expected, (*reasons, *result.reasons))

    def score(self, calls: Any) -> Score:
        """The :class:`Score` of ``calls``: 1 when BFCL's rules accept them (exact mode), else 0;
        in partial mode, F1 over calls."""
        return _score(self.check(calls), self.mode)


def compile_bfcl(functions: Sequence[Mapping[str, Any]], possible_answer: Any, category: str,
                 mode: str = "exact", norm: StringNorm = BFCL) -> BfclReference:
    """Compile a BFCL entry: its ``function`` list and its possible answer (the entry's
    ``ground_truth`` list, or the whole possible-answer record holding it)."""
    _check_mode_and_category(mode, category)
    if isinstance(possible_answer, Mapping):
        possible_answer = possible_answer.get("ground_truth", [])
    specs = {f.get("name"): f for f in functions if isinstance(f, Mapping)}
    entries = [next(iter(entry.items())) for entry in possible_answer or []]
    # parameters whose acceptable values differ between expected calls of one function tell those calls
    # apart: checking them first makes a mismatch cheap when parallel calls are paired
    telling: dict[str, set[str]] = {}
    for name, answers in entries:
        for other, other_answers in entries:
            if other == name and other_answers is not answers:
                telling.setdefault(name, set()).update(
                    p for p in answers if answers.get(p) != other_answers.get(p))
    expected = [_expected_call(name, answers, specs.get(name), norm, telling.get(name, set()))
                for name, answers in entries]
    return BfclReference(category, tuple(expected), mode)


def match_bfcl(functions: Sequence[Mapping[str, Any]], calls: Any, possible_answer: Any, category: str,
               mode: str = "exact", norm: StringNorm = BFCL) -> Score:
    """Score BFCL-format ``calls`` against a BFCL possible answer (see the module docstring).

    The same score as ``compile_bfcl(functions, possible_answer, category, mode, norm).score(calls)``,
    reasons included, for one-off calls, with nothing compiled: calls BFCL's rules accept, and a
    single call rejected for a single expected one, are scored straight from the entry
    (:func:`covert.rewards.bfcl_direct.score_directly`); other calls are paired and explained as the
    compiled reference does, with matchers that read the entry as it is
    (:class:`covert.rewards.bfcl_direct.DirectMatcher`). Entries too irregular for those (specs and
    answers that are not plain dicts and lists) and relevance categories are compiled. Nothing is
    kept between calls. To score many completions of one entry, :func:`compile_bfcl` it once and call
    the reference's ``score`` (or ``accepts``).

    Args:
        functions: The entry's function specs (BFCL's ``function`` list).
        calls: The prediction, ``[{function_name: {param: value}}]``; malformed input scores 0.
        possible_answer: The entry's ``ground_truth`` list (or the record holding it).
        category: The BFCL category (``simple_python``, ``multiple``, ``parallel``, ...).
        mode: ``"exact"`` (0/1, BFCL's verdict) or ``"partial"`` (F1 over calls).
        norm: String normalisation; BFCL's by default.
    """
    _check_mode_and_category(mode, category)
    if not _is_relevance(category):
        if type(calls) is list and len(calls) == 1:
            direct = score_directly(functions, calls, possible_answer, norm)
            if direct is not None:
                return direct
        # several calls: paired and explained as the reference does (:func:`check_turn`), with matchers read
        # off the entry
        matchers = direct_matchers(functions, possible_answer, norm)
        if matchers is not None:
            turn = check_turn(matchers, calls)
            if turn is not None:
                return _score(turn, mode)
            return BfclReference(category, matchers, mode).score(calls)
        direct = score_directly(functions, calls, possible_answer, norm)
        if direct is not None:
            return direct
    return compile_bfcl(functions, possible_answer, category, mode, norm).score(calls)


def _score(result: CallsResult, mode: str) -> Score:
    """The score of a result: 1 or 0 in exact mode, F1 over calls in partial mode."""
    value = float(result.exact) if mode == "exact" else result.f1
    return Score(value, {"calls": value}, list(result.reasons))


_AST_CATEGORIES: set[str] = set()  # categories already checked (every call of a one-off scorer asks again)


def _check_mode_and_category(mode: str, category: str) -> None:
    if mode not in ("exact", "partial"):
        raise ValueError(f"mode is exact or partial, not {mode!r}")
    if category in _AST_CATEGORIES:
        return
    if "java" in category or "multi_turn" in category:  # "java" covers javascript
        raise ValueError(f"BFCL category {category!r} is not an AST category covert scores")
    if len(_AST_CATEGORIES) < 256:
        _AST_CATEGORIES.add(category)


def reference_calls(possible_answer: Any, functions: Sequence[Mapping[str, Any]] | None = None
                    ) -> list[dict[str, dict[str, Any]]]:
    """The reference answer of a possible answer: each parameter's first acceptable value, with
    optional parameters (first value ``""``) left out. Given the ``functions``, a required parameter
    takes its first non-empty value and parameters the spec lacks are left out.

    Raises ValueError when a parameter that must be given has no acceptable value at all (a few BFCL
    entries list ``[]``; no answer can pass them, under BFCL's rules or covert's).
    """
    if isinstance(possible_answer, Mapping):
        possible_answer = possible_answer.get("ground_truth", [])
    specs = {f.get("name"): f.get("parameters") or {} for f in functions or [] if isinstance(f, Mapping)}
    out = []
    for entry in possible_answer:
        ((name, answers),) = entry.items()
        spec = specs.get(name)
        call = {}
        for param, values in answers.items():
            if spec is not None and param not in (spec.get("properties") or {}):
                continue
            required = spec is not None and param in (spec.get("required") or [])
            given = [v for v in values if not (isinstance(v, str) and v == "")]
            if not given:
                if required or "" not in values:
                    raise ValueError(f"{name}.{param} has no acceptable value")
                continue
            if required or values[0] != "":
                call[param] = _plain(given[0])
        out.append({name: call})
    return out


def _plain(value: Any) -> Any:
    """An acceptable value as a plain value: inside objects, each key's first acceptable value."""
    if isinstance(value, dict):
        return {k: _plain(v[0]) for k, v in value.items() if isinstance(v, list) and v and v[0] != ""}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def read_calls(calls: Any) -> tuple[list[ToolCall], int, list[str]]:
    """BFCL-format calls as :class:`ToolCall` objects, with the number that could not be read."""
    if not isinstance(calls, (list, tuple)):
        return [], 1, [f"parse:bad_completion: BFCL calls are a list, not {type(calls).__name__}"]
    out: list[ToolCall] = []
    reasons: list[str] = []
    invalid = 0
    for item in calls:
        if isinstance(item, Mapping) and len(item) == 1:
            ((name, arguments),) = item.items()
            if isinstance(name, str) and isinstance(arguments, Mapping) and _str_keys(arguments):
                out.append(ToolCall(name, arguments if type(arguments) is dict else dict(arguments)))
                continue
        invalid += 1
        reasons.append("parse:bad_call: a BFCL call is {function_name: {param: value}}")
    return out, invalid, reasons


def _str_keys(arguments: Mapping[Any, Any]) -> bool:
    """Whether every key is a string."""
    for key in arguments:  # noqa: SIM110 - a plain loop: cheaper than all() over a generator
        if type(key) is not str and not isinstance(key, str):
            return False
    return True


def _single(matcher: CallMatcher) -> Callable[[Any], bool]:
    name, matches = matcher.name, matcher.matches

    def accepts(calls: Any) -> bool:
        if type(calls) is not list or len(calls) != 1:
            return False
        item = calls[0]
        if type(item) is not dict or len(item) != 1:
            return False
        arguments = item.get(name)
        return type(arguments) is dict and matches(arguments)

    return accepts


def _parallel(reference: BfclReference) -> Callable[[Any], bool]:
    expected = [(m.name, m.matches) for m in reference.expected]
    count = len(expected)

    def accepts(calls: Any) -> bool:
        if type(calls) is not list or len(calls) != count:
            return False
        paired = 0
        for (name, matches), item in zip(expected, calls):  # in order first: the common case
            if type(item) is not dict or len(item) != 1:
                return False
            arguments = item.get(name)
            if arguments is None or type(arguments) is not dict or not matches(arguments):
                break
            paired += 1
        else:
            return True
        pending = calls[paired:]  # then greedily, from where the order broke
        for item in pending:
            if type(item) is not dict or len(item) != 1:
                return False
        skip = 1  # the in-order loop already found that expected[paired] does not match calls[paired]
        for name, matches in expected[paired:]:
            for k in range(skip, len(pending)):
                arguments = pending[k].get(name)
                if arguments is not None and type(arguments) is dict and matches(arguments):
                    del pending[k]
                    break
            else:
                return unpaired(name, matches, calls)
            skip = 0
        return True

    def unpaired(name: str, matches: Callable[[dict[str, Any]], bool], calls: list[Any]) -> bool:
        """Greedy pairing left an expected call without a partner: the verdict of an optimal pairing,
        which can only differ when some call (one greedily given to another) fits it."""
        for item in calls:
            arguments = item.get(name)
            if arguments is not None and type(arguments) is dict and matches(arguments):
                return reference._optimal(calls)
        return False

    return accepts


def _is_call(item: Any, matcher: CallMatcher) -> bool:
    if type(item) is not dict or len(item) != 1:
        return False
    arguments = item.get(matcher.name)
    return type(arguments) is dict and matcher.matches(arguments)


def _is_relevance(category: str) -> bool:
    return "relevance" in category


def _expected_call(name: str, answers: Mapping[str, Any], spec: Mapping[str, Any] | None,
                   norm: StringNorm, first: set[str]) -> CallMatcher:
    parameters = (spec or {}).get("parameters") or {}
    properties = parameters.get("properties") or {}
    params = {}
    for param, values in answers.items():
        schema = json_schema(properties.get(param))
        if param not in properties:
            params[param] = Param(any_value, optional="" in values, acceptable=False)
            continue
        alts = alternatives(values, schema)
        optional = any(a is OPTIONAL for a in alts)
        params[param] = Param(compile_value(alts, schema, norm), optional=optional)
    return CallMatcher(name, params, list(parameters.get("required") or []), first=first)
