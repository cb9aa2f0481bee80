"""vLLM offline inference (the ``covert[vllm]`` extra), one batched ``LLM.generate`` call per batch.

Each request is rendered with its own tools through the tokenizer's chat template (``LLM.chat`` takes
one tools list for the whole batch) and passed as token ids. JSON-schema requests are constrained with
``SamplingParams(structured_outputs=StructuredOutputsParams(json=schema))`` and still validated after.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence
from typing import Any

from covert.llm.base import Backend, BackendUnavailable, ChatRequest, Completion, OnComplete
from covert.llm.parse import finalize
from covert.llm.render import render_prompt_ids


def sampling_kwargs(request: ChatRequest) -> dict[str, Any]:
    """Keyword arguments of vLLM's ``SamplingParams`` for ``request`` (without structured outputs)."""
    s = request.sampling
    return {"temperature": s.temperature, "top_p": s.top_p, "max_tokens": s.max_tokens, "seed": s.seed,
            "stop": list(s.stop) or None}


def make_sampling_params(request: ChatRequest) -> Any:
    """vLLM ``SamplingParams`` for ``request``; a JSON schema becomes ``StructuredOutputsParams(json=...)``."""
    from vllm.sampling_params import SamplingParams, StructuredOutputsParams

    kwargs = sampling_kwargs(request)
    if request.json_schema is not None:
        kwargs["structured_outputs"] = StructuredOutputsParams(json=request.json_schema)
    return SamplingParams(**kwargs)


class VLLMBackend(Backend):
    """An offline ``vllm.LLM`` on ``model`` (a local path or a model id in the local cache).

    ``engine_kwargs`` go to ``vllm.LLM`` (for example ``max_model_len``, ``gpu_memory_utilization``);
    the engine starts on the first :meth:`generate`.
    """

    kind = "vllm"

    def __init__(self, model: str, **engine_kwargs: Any) -> None:
        super().__init__()
        self.model_id = model
        self.engine_kwargs = engine_kwargs
        self._llm: Any = None

    def check_reachable(self) -> None:
        """vLLM is installed."""
        if importlib.util.find_spec("vllm") is None:
            raise BackendUnavailable("the vllm backend needs vLLM: pip install 'covert[vllm]'")

    def _engine(self) -> Any:
        if self._llm is None:
            self.check_reachable()
            from vllm import LLM

            self._llm = LLM(model=self.model_id, **self.engine_kwargs)
        return self._llm

    def generate(self, requests: Sequence[ChatRequest], on_complete: OnComplete | None = None) -> list[Completion]:
        """Render every request, run one batched ``generate``, validate every output."""
        results: list[Completion | None] = [None] * len(requests)
        prompts: list[dict[str, list[int]]] = []
        params: list[Any] = []
        order: list[int] = []
        try:
            llm = self._engine()
            tokenizer = llm.get_tokenizer()
        except Exception as exc:
            llm = None
            failure = Completion.failure(f"backend_error: cannot start vLLM on {self.model_id}: {exc}")
            results = [failure] * len(requests)
        if llm is not None:
            for i, request in enumerate(requests):
                try:
                    prompts.append({"prompt_token_ids": render_prompt_ids(tokenizer, request)})
                    params.append(make_sampling_params(request))
                    order.append(i)
                except Exception as exc:  # a request that cannot be rendered fails alone
                    del prompts[len(order):]
                    results[i] = Completion.failure(f"render_error: {type(exc).__name__}: {exc}")
        if prompts:
            try:
                outputs = llm.generate(prompts, sampling_params=params, use_tqdm=False)
            except Exception as exc:
                outputs = None
                for i in order:
                    results[i] = Completion.failure(f"backend_error: {type(exc).__name__}: {exc}")
            for i, output in zip(order, outputs or ()):
                results[i] = self._completion(requests[i], output)
        final = [r if r is not None else Completion.failure("backend_error: no output") for r in results]
        self.stats["requests"] += len(final)
        for i, completion in enumerate(final):
            if on_complete is not None:
                on_complete(i, completion)
        return final

    @staticmethod
    def _completion(request: ChatRequest, output: Any) -> Completion:
        best = output.outputs[0]
        return finalize(request, best.text, finish_reason=str(best.finish_reason or ""),
                        prompt_tokens=len(output.prompt_token_ids or ()), completion_tokens=len(best.token_ids))

    def close(self) -> None:
        """Drop the engine."""
        self._llm = None
