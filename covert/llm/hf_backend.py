"""A local transformers model (``AutoModelForCausalLM``), CPU-capable, for small runs.

Requests run one at a time, so a result never depends on what else is in the batch (and a cached
result equals a fresh one). Greedy when ``temperature == 0``, else sampled under ``seed`` in a forked
RNG. JSON-schema requests are not constrained here: the text is generated, then parsed and validated
(a bad one comes back with ``error`` set). Tool calls are read from Hermes-style ``<tool_call>`` blocks.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from covert.llm.base import Backend, BackendUnavailable, ChatRequest, Completion, OnComplete
from covert.llm.parse import finalize
from covert.llm.render import render_prompt_ids


class TransformersBackend(Backend):
    """A causal LM loaded from the local directory ``path`` (config, weights, tokenizer with a chat template)."""

    kind = "hf"

    def __init__(self, path: str, *, device: str = "cpu", dtype: str | None = None) -> None:
        super().__init__()
        self.path = path
        self.model_id = os.path.abspath(path) if os.path.isdir(path) else path
        self.device = device
        self.dtype = dtype
        self._model: Any = None
        self._tokenizer: Any = None

    def check_reachable(self) -> None:
        """The model directory exists and torch/transformers are installed."""
        if not os.path.isfile(os.path.join(self.path, "config.json")):
            raise BackendUnavailable(f"no transformers model at {self.path} (expected a directory with config.json)")
        try:
            import torch  # noqa: F401
            import transformers  # noqa: F401
        except ImportError as exc:
            raise BackendUnavailable(f"the hf backend needs torch and transformers: {exc}") from None

    def _load(self) -> tuple[Any, Any]:
        if self._model is None:
            from transformers import AutoModelForCausalLM, AutoTokenizer

            self._tokenizer = AutoTokenizer.from_pretrained(self.path)
            kwargs = {"dtype": self.dtype} if self.dtype else {}
            self._model = AutoModelForCausalLM.from_pretrained(self.path, **kwargs).to(self.device).eval()
        return self._model, self._tokenizer

    def generate(self, requests: Sequence[ChatRequest], on_complete: OnComplete | None = None) -> list[Completion]:
        """Complete the requests one by one."""
        try:
            model, tokenizer = self._load()
        except Exception as exc:  # a model that cannot load fails every request, with the reason
            failed = [Completion.failure(f"backend_error: cannot load {self.path}: {exc}") for _ in requests]
            for i, completion in enumerate(failed):
                if on_complete is not None:
                    on_complete(i, completion)
            return failed
        results = []
        for i, request in enumerate(requests):
            try:
                completion = self._one(model, tokenizer, request)
            except Exception as exc:  # never raise for one request
                completion = Completion.failure(f"backend_error: {type(exc).__name__}: {exc}")
            self.stats["requests"] += 1
            results.append(completion)
            if on_complete is not None:
                on_complete(i, completion)
        return results

    def _one(self, model: Any, tokenizer: Any, request: ChatRequest) -> Completion:
        import torch

        s = request.sampling
        prompt = render_prompt_ids(tokenizer, request)
        eos = model.generation_config.eos_token_id
        if eos is None:
            eos = tokenizer.eos_token_id
        pad = model.generation_config.pad_token_id
        if pad is None:
            pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else eos
        kwargs: dict[str, Any] = {"max_new_tokens": s.max_tokens, "eos_token_id": eos, "pad_token_id": pad}
        if s.temperature > 0:
            kwargs.update(do_sample=True, temperature=s.temperature, top_p=s.top_p)
        else:
            kwargs.update(do_sample=False, temperature=None, top_p=None, top_k=None)
        if s.stop:
            kwargs.update(stop_strings=list(s.stop), tokenizer=tokenizer)
        input_ids = torch.tensor([prompt], device=model.device)
        with torch.random.fork_rng(devices=[]), torch.inference_mode():
            torch.manual_seed(s.seed if s.seed is not None else 0)
            output = model.generate(input_ids, attention_mask=torch.ones_like(input_ids), **kwargs)
        new = output[0, len(prompt):].tolist()
        eos_ids = set(eos if isinstance(eos, list) else [eos])
        ended = bool(new) and new[-1] in eos_ids
        text = tokenizer.decode(new, skip_special_tokens=True)
        stopped = False
        for stop in s.stop:
            cut = text.find(stop)
            if cut != -1:
                text, stopped = text[:cut], True
        finish = "stop" if ended or stopped or len(new) < s.max_tokens else "length"
        return finalize(request, text, finish_reason=finish, prompt_tokens=len(prompt), completion_tokens=len(new))

    def close(self) -> None:
        """Drop the model."""
        self._model = self._tokenizer = None
