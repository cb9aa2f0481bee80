"""A ``rollout_func`` for TRL's ``GRPOTrainer`` that plays each prompt as an episode on a covert
OpenEnv server.

``GRPOTrainer(rollout_func=rollout_func(server.url, rows), reward_funcs=env_reward, ...)``: TRL calls
``rollout_func(prompts, trainer)`` with the batch's prompts (each row's ``prompt`` column); each
prompt is matched to its row (by its messages), the row is reset on the server, and the model and
the environment take turns: the model's text (tool calls in the chat template's own format, e.g.
hermes ``<tool_call>`` blocks) is sent as one assistant message, the tool results or the user's reply
are rendered with the tokenizer's chat template and appended as environment tokens (``env_mask`` 0,
so the loss skips them), until the episode ends or the completion budget
(``max_completion_length``) is spent. The episode's reward comes back as the ``env_reward`` column,
which :func:`env_reward` hands to the trainer (an episode cut by the budget scores 0).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

import orjson

from covert.integrations.openenv.client import CovertEnv
from covert.integrations.openenv.environment import MAX_TURNS
from covert.integrations.openenv.models import CovertAction

Generate = Callable[[Any, list[int]], tuple[list[int], list[float]]]
"""``generate(trainer, context_ids) -> (new_ids, logprobs)``: one model turn."""


def prompt_key(prompt: Any) -> bytes:
    """What identifies a row's prompt (its messages' roles and contents)."""
    return orjson.dumps([[m.get("role"), m.get("content")] for m in prompt], option=orjson.OPT_SORT_KEYS)


def model_generate(trainer: Any, context_ids: list[int]) -> tuple[list[int], list[float]]:
    """One turn sampled from ``trainer.model`` with transformers' ``generate`` (temperature, top-p and
    the completion budget from ``trainer.args``), with the sampled tokens' log-probabilities."""
    import torch

    model, tokenizer, args = trainer.model, trainer.processing_class, trainer.args
    device = next(model.parameters()).device
    inputs = torch.tensor([context_ids], device=device)
    with torch.no_grad():
        out = model.generate(inputs, attention_mask=torch.ones_like(inputs), do_sample=True,
                             temperature=args.temperature, top_p=args.top_p,
                             max_new_tokens=args.max_completion_length, output_scores=True,
                             return_dict_in_generate=True, pad_token_id=tokenizer.pad_token_id,
                             eos_token_id=tokenizer.eos_token_id)
    new = out.sequences[0, inputs.shape[1]:]
    logprobs = [torch.log_softmax(score[0].float() / max(args.temperature, 1e-6), dim=-1)[token].item()
                for score, token in zip(out.scores, new)]
    ids = new.tolist()
    if tokenizer.pad_token_id is not None and tokenizer.pad_token_id != tokenizer.eos_token_id:
        while ids and ids[-1] == tokenizer.pad_token_id:
            ids.pop()
            logprobs.pop()
    return ids, logprobs


def rollout_func(base_url: str, rows: Iterable[Mapping[str, Any]], generate: Generate = model_generate,
                 max_turns: int = MAX_TURNS) -> Callable[[list[Any], Any], dict[str, list[Any]]]:
    """A ``rollout_func(prompts, trainer)`` for ``GRPOTrainer`` on the covert server at ``base_url``.

    ``rows`` are the training rows (the dataset passed as ``train_dataset``): a prompt is matched to
    the first row with the same messages. ``generate`` makes one model turn (default: the trainer's
    model, :func:`model_generate`; pass a vLLM-backed one for speed).
    """
    by_prompt: dict[bytes, dict[str, Any]] = {}
    for row in rows:
        by_prompt.setdefault(prompt_key(row["prompt"]), dict(row))

    def rollout(prompts: list[Any], trainer: Any) -> dict[str, list[Any]]:
        out: dict[str, list[Any]] = {"prompt_ids": [], "completion_ids": [], "logprobs": [], "env_mask": [],
                                     "env_reward": []}
        for prompt in prompts:
            row = by_prompt.get(prompt_key(prompt))
            if row is None:
                raise ValueError("a prompt matches none of the rows given to rollout_func: pass the train_dataset's rows")
            episode = play(base_url, row, trainer, generate, max_turns)
            for key, value in episode.items():
                out[key].append(value)
        return out

    return rollout


def play(base_url: str, row: Mapping[str, Any], trainer: Any, generate: Generate = model_generate,
         max_turns: int = MAX_TURNS) -> dict[str, Any]:
    """One episode of ``row``: prompt ids, completion ids (model and environment tokens), the model
    tokens' log-probabilities (0 on environment tokens), ``env_mask`` and ``env_reward``."""
    tokenizer = trainer.processing_class
    budget = trainer.args.max_completion_length
    with CovertEnv(base_url=base_url).sync() as env:
        result = env.reset(row=dict(row))
        messages = list(result.observation.messages)
        tools = result.observation.tools or None
        prompt_ids = _render(tokenizer, messages, tools)
        context = list(prompt_ids)
        completion: list[int] = []
        mask: list[int] = []
        logprobs: list[float] = []
        reward = 0.0
        for _ in range(max_turns):
            ids, lps = generate(trainer, context)
            ids, lps = ids[: budget - len(completion)], lps[: budget - len(completion)]
            completion += ids
            mask += [1] * len(ids)
            logprobs += lps
            context += ids
            text = tokenizer.decode(ids, skip_special_tokens=True)
            result = env.step(CovertAction(content=text))
            if result.done:
                reward = float(result.reward or 0.0)
                break
            if len(completion) >= budget:
                break
            messages += [{"role": "assistant", "content": text}, *result.observation.messages]
            shown = _env_tokens(context, _render(tokenizer, messages, tools))[: budget - len(completion)]
            completion += shown
            mask += [0] * len(shown)
            logprobs += [0.0] * len(shown)
            context += shown  # the model goes on from what it is trained on: prompt and completion
            if len(completion) >= budget:
                break
    return {"prompt_ids": prompt_ids, "completion_ids": completion, "logprobs": logprobs, "env_mask": mask,
            "env_reward": reward}


def _render(tokenizer: Any, messages: list[dict[str, Any]], tools: Any) -> list[int]:
    text = tokenizer.apply_chat_template(messages, tools=tools, add_generation_prompt=True, tokenize=False)
    return list(tokenizer(text, add_special_tokens=False)["input_ids"])


def _env_tokens(context: list[int], full: list[int]) -> list[int]:
    """The tokens the environment adds: ``full`` (the conversation re-rendered with the new messages)
    past its common prefix with what the model has seen."""
    common = 0
    for a, b in zip(context, full):
        if a != b:
            break
        common += 1
    return full[common:]


def env_reward(completions: list[Any], env_reward: list[float] | None = None, **_: Any) -> list[float]:
    """The reward function to pair with :func:`rollout_func`: each episode's reward from the server."""
    if env_reward is None:
        raise ValueError("env_reward is missing: use covert's rollout_func, which returns it")
    return [float(r) for r in env_reward]
