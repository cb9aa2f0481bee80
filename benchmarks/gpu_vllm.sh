#!/usr/bin/env bash
# Throughput of the vLLM offline backend on real covert prompts (needs a GPU machine with vLLM).
#
#   benchmarks/gpu_vllm.sh [MODEL_DIR]
#
# MODEL_DIR is a local model directory (config.json, weights, tokenizer with a chat template). Without
# it, the smallest such model found under the usual cache directories ($HF_HOME/hub,
# ~/.cache/huggingface/hub, /models, /opt/models, /data/models, /workspace/models) is used; with none
# found the script says so and exits 0. It builds a small covert dataset (NUM_TASKS tasks), sends one
# request per RL row -- that row's own prompt and tools, plus a JSON schema for the first turn of tool
# calls -- as one batched vLLM call, and prints tokens/s and accepted tasks/s (accepted = the output
# parses and validates against the schema).
#
# Environment: NUM_TASKS (200), MAX_TOKENS (256), MAX_MODEL_LEN (8192), GPU_MEMORY_UTILIZATION (0.85),
# COVERT_BENCH_SPEC (a whole --llm spec instead of vllm:MODEL_DIR, e.g. hf:DIR for a CPU dry run).
set -euo pipefail
cd "$(dirname "$0")/.."

NUM_TASKS="${NUM_TASKS:-200}"
SPEC="${COVERT_BENCH_SPEC:-}"

if [[ -z "$SPEC" ]]; then
  if ! python -c "import vllm" 2>/dev/null; then
    echo "gpu_vllm: vLLM is not installed here (pip install 'covert[vllm]' on a GPU machine); nothing to run"
    exit 0
  fi
  MODEL="${1:-}"
  if [[ -z "$MODEL" ]]; then
    MODEL="$(python - <<'EOF'
import os
from pathlib import Path

roots = [os.environ.get("HF_HOME", "") and Path(os.environ["HF_HOME"]) / "hub",
         Path.home() / ".cache" / "huggingface" / "hub", Path("/models"), Path("/opt/models"),
         Path("/data/models"), Path("/workspace/models")]
found = []
for root in roots:
    if not root or not Path(root).is_dir():
        continue
    for config in Path(root).glob("**/config.json"):
        if len(config.relative_to(root).parts) > 5:
            continue
        model = config.parent
        weights = [p for p in model.iterdir() if p.suffix in (".safetensors", ".bin")]
        has_template = (model / "chat_template.jinja").exists() or "chat_template" in (
            (model / "tokenizer_config.json").read_text() if (model / "tokenizer_config.json").exists() else "")
        size = sum(p.stat().st_size for p in weights)
        if weights and has_template and size < 8 * 2**30:
            found.append((size, str(model)))
print(min(found)[1] if found else "")
EOF
)"
  fi
  if [[ -z "$MODEL" || ! -f "$MODEL/config.json" ]]; then
    echo "gpu_vllm: no small local model with a chat template found; run: benchmarks/gpu_vllm.sh /path/to/model"
    exit 0
  fi
  SPEC="vllm:$MODEL"
fi

WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
echo "gpu_vllm: building $NUM_TASKS covert tasks"
covert build --builders all --num-tasks "$NUM_TASKS" --seed 0 --out "$WORK/ds" --quiet > "$WORK/build.log"

SPEC="$SPEC" DS="$WORK/ds" python - <<'EOF'
import os
import time

from covert.io.reader import iter_rows
from covert.llm import ChatRequest, SamplingParams, backend_from_spec, count_errors

spec = os.environ["SPEC"]
options = {}
if spec.startswith("vllm:"):
    options = {"max_model_len": int(os.environ.get("MAX_MODEL_LEN", "8192")),
               "gpu_memory_utilization": float(os.environ.get("GPU_MEMORY_UTILIZATION", "0.85"))}
INSTRUCTION = ('Reply with JSON only: {"calls": [{"name": ..., "arguments": {...}}]}, the tool calls you make '
               'first (an empty list if no tool is needed).')


def first_turn_schema(tools):
    names = sorted(t["function"]["name"] for t in tools)
    call = {"type": "object", "properties": {"name": {"enum": names}, "arguments": {"type": "object"}},
            "required": ["name", "arguments"], "additionalProperties": False}
    return {"type": "object", "properties": {"calls": {"type": "array", "items": call}}, "required": ["calls"],
            "additionalProperties": False}


rows = list(iter_rows(os.environ["DS"], "rl"))
sampling = SamplingParams(temperature=0.0, max_tokens=int(os.environ.get("MAX_TOKENS", "256")), seed=0)
requests = [ChatRequest([*row["prompt"], {"role": "user", "content": INSTRUCTION}], tools=row["tools"],
                        json_schema=first_turn_schema(row["tools"]), sampling=sampling) for row in rows]
backend = backend_from_spec(spec, **options)
backend.check_reachable()
start = time.perf_counter()
backend.generate(requests[:1])  # starts the engine
loaded = time.perf_counter() - start
start = time.perf_counter()
completions = backend.generate(requests)
elapsed = time.perf_counter() - start

accepted = [c for c in completions if c.ok]
oracle_names = [[c["name"] for c in row["reward_model"]["ground_truth"]["calls"][0]]
                if row["reward_model"]["ground_truth"]["calls"] else [] for row in rows]
matches = sum(1 for c, names in zip(completions, oracle_names)
              if c.ok and sorted(x["name"] for x in c.parsed["calls"]) == sorted(names))
out_tokens = sum(c.completion_tokens for c in completions)
in_tokens = sum(c.prompt_tokens for c in completions)
print(f"backend            {spec}")
print(f"engine start       {loaded:.1f} s")
print(f"requests           {len(requests)} in {elapsed:.2f} s (one generate call)")
print(f"prompt tokens/s    {in_tokens / elapsed:,.0f}")
print(f"output tokens/s    {out_tokens / elapsed:,.0f}")
print(f"accepted tasks/s   {len(accepted) / elapsed:,.2f}  ({len(accepted)}/{len(requests)} parse against the schema)")
print(f"oracle first turn  {matches}/{len(requests)} name the oracle's first tools")
print(f"rejected by reason {count_errors(completions)}")
EOF
