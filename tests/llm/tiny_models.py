"""Tiny causal LMs built in the test (no download): one random, one trained to answer two prompts.

The trained one exists so that the backends' success paths are checked on real generations: it
learns to answer TOOL_PROMPT with a ``<tool_call>`` for ``get_order`` and JSON_PROMPT with JSON.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

TOOLS = [{"type": "function", "function": {
    "name": "get_order", "description": "Get an order.",
    "parameters": {"type": "object", "properties": {"order_id": {"type": "string", "description": "The order id."}},
                   "required": ["order_id"]}}}]
OTHER_TOOLS = [{"type": "function", "function": {
    "name": "cancel_booking", "description": "Cancel a booking.",
    "parameters": {"type": "object", "properties": {"booking_id": {"type": "string", "description": "The id."}},
                   "required": ["booking_id"]}}}]
TOOL_PROMPT = [{"role": "user", "content": "Where is my order #W123?"}]
JSON_PROMPT = [{"role": "user", "content": "Write the query as JSON."}]
QUERY_SCHEMA = {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"],
                "additionalProperties": False}
TOOL_ANSWER = '\n<tool_call>\n{"name": "get_order", "arguments": {"order_id": "#W123"}}\n</tool_call><|im_end|>'
JSON_ANSWER = '{"query": "where is my order"}<|im_end|>'

# How `transformers serve` splits tool calls off the generated text for this tokenizer's format.
RESPONSE_TEMPLATE = {
    "start_anchor": "<|im_start|>assistant",
    "fields": {
        "tool_calls": {"open_pattern": r"\s*<tool_call>", "close": "</tool_call>", "repeats": True,
                       "content": "json", "transform": {"type": "function", "function": "{content}"}},
        "content": {"close_pattern": r"\s*<\|im_end\|>", "content": "text"},
    },
}


def tiny_llama(tokenizer: Any, seed: int = 0) -> Any:
    """A randomly initialised 2-layer Llama sized for ``tokenizer``."""
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    config = LlamaConfig(vocab_size=len(tokenizer), hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                         num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=1024,
                         bos_token_id=tokenizer.bos_token_id, eos_token_id=tokenizer.eos_token_id,
                         pad_token_id=tokenizer.eos_token_id, tie_word_embeddings=True)
    torch.manual_seed(seed)
    model = LlamaForCausalLM(config)
    model.generation_config.eos_token_id = tokenizer.eos_token_id
    model.generation_config.pad_token_id = tokenizer.eos_token_id
    return model


def train_answers(model: Any, tokenizer: Any, steps: int = 150) -> float:
    """Fit ``model`` to answer TOOL_PROMPT and JSON_PROMPT as above (deterministic, ~2 s on CPU)."""
    import torch

    examples = [(TOOL_PROMPT, TOOLS, TOOL_ANSWER), (JSON_PROMPT, None, JSON_ANSWER)]
    batches = []
    for messages, tools, answer in examples:
        prompt = tokenizer.apply_chat_template(messages, tools=tools, add_generation_prompt=True, tokenize=False)
        p = tokenizer(prompt, add_special_tokens=False)["input_ids"]
        a = tokenizer(answer, add_special_tokens=False)["input_ids"]
        batches.append((torch.tensor([p + a]), torch.tensor([[-100] * len(p) + a])))
    torch.manual_seed(0)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2)
    model.train()
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # OpenMP threads spinning on a busy 2-core machine cost 10-20x here
    try:
        for _ in range(steps):
            loss = sum(model(input_ids=ids, labels=labels).loss for ids, labels in batches)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    finally:
        torch.set_num_threads(threads)
    model.eval()
    return float(loss.detach())


def save(model: Any, tokenizer: Any, path: Path) -> Path:
    """Write model and tokenizer (with the response template) to ``path``."""
    tokenizer.response_template = RESPONSE_TEMPLATE
    model.save_pretrained(path)
    tokenizer.save_pretrained(path)
    return path
