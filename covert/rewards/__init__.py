"""Rewards: score a completion against a covert row (or BFCL data), and plug the scores into TRL and verl.

The one entry point is :func:`score` (``score(row, completion) -> Score``). The pieces it is made of
are public too: completion parsing, reference matching (:func:`match_turns`, :func:`match_bfcl`),
state matching, answer facts, judges (:class:`RuleJudge`, the :class:`LLMJudge` interface) and RL
utilities. Trainer adapters live in :mod:`covert.rewards.trl` and :mod:`covert.rewards.verl`; their
rewards, dataset helpers and environment/tool factories are exported here (importing them imports
neither TRL nor verl).

Rewards need only the row and the environment runtime: nothing here imports synthesis or
augmentation, and nothing imports a trainer.
"""

from __future__ import annotations

from covert.rewards.advantages import environment_advantages, user_error_mask
from covert.rewards.assignment import assign
from covert.rewards.bfcl import BfclReference, compile_bfcl, match_bfcl, reference_calls
from covert.rewards.compare import BFCL, EXACT, LENIENT, OPTIONAL, DictPattern, StringNorm, compile_value
from covert.rewards.composite import RewardConfig, Scorer, default_scorer, oracle_completion, score
from covert.rewards.facts import facts_score
from covert.rewards.judge import BEHAVIOURS, Judgement, LLMJudge, Rubric, RuleJudge
from covert.rewards.matching import CallMatcher, CallsResult, Mismatch, expect_call, match_turns
from covert.rewards.parsing import (
    AssistantTurn,
    ToolCall,
    ToolMessage,
    Transcript,
    UserMessage,
    parse_completion,
    parse_hermes,
    parse_messages,
    parse_python_calls,
    parse_text,
)
from covert.rewards.prepared import PreparedRow
from covert.rewards.result import Score
from covert.rewards.rowview import BadRow, BadRowWarning
from covert.rewards.session import Failure, Session
from covert.rewards.state_match import state_score
from covert.rewards.trl import environment_factory, make_trl_reward, trl_dataset, trl_reward
from covert.rewards.verl import compute_score, verl_multi_turn_limits, verl_tool_config, verl_tools_kwargs

__all__ = [
    "BEHAVIOURS",
    "BFCL",
    "EXACT",
    "LENIENT",
    "OPTIONAL",
    "AssistantTurn",
    "BadRow",
    "BadRowWarning",
    "BfclReference",
    "CallMatcher",
    "CallsResult",
    "DictPattern",
    "Failure",
    "Judgement",
    "LLMJudge",
    "Mismatch",
    "PreparedRow",
    "RewardConfig",
    "Rubric",
    "RuleJudge",
    "Score",
    "Scorer",
    "Session",
    "StringNorm",
    "ToolCall",
    "ToolMessage",
    "Transcript",
    "UserMessage",
    "assign",
    "compile_bfcl",
    "compile_value",
    "compute_score",
    "default_scorer",
    "environment_advantages",
    "environment_factory",
    "expect_call",
    "facts_score",
    "make_trl_reward",
    "match_bfcl",
    "match_turns",
    "oracle_completion",
    "parse_completion",
    "parse_hermes",
    "parse_messages",
    "parse_python_calls",
    "parse_text",
    "reference_calls",
    "score",
    "state_score",
    "trl_dataset",
    "trl_reward",
    "user_error_mask",
    "verl_multi_turn_limits",
    "verl_tool_config",
    "verl_tools_kwargs",
]
