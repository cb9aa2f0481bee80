"""A small helpdesk API with one custom action (closing a ticket), and implementations of it: a buggy
first try, a correct one, and hostile ones."""

from __future__ import annotations

from typing import Any

from covert.imports.model import ApiSpec, Operation


def _p(props: dict[str, Any], required: list[str] | None = None) -> dict[str, Any]:
    return {"type": "object", "properties": props, "required": required or []}


TICKET = {
    "type": "object",
    "required": ["id", "subject", "status"],
    "properties": {
        "id": {"type": "string"},
        "subject": {"type": "string"},
        "status": {"type": "string", "enum": ["open", "closed"]},
    },
}


def helpdesk_openapi() -> ApiSpec:
    """Tickets with list/get/create and one custom action, ``POST /tickets/{ticket_id}/close``."""
    ticket_id = {"ticket_id": {"type": "string", "x-in": "path"}}
    ops = (
        Operation("listTickets", "listTickets", "List tickets.", _p({}), {"type": "array", "items": TICKET},
                  "read", "GET", "/v1/tickets"),
        Operation("getTicket", "getTicket", "Get a ticket.", _p(ticket_id, ["ticket_id"]), TICKET, "read", "GET",
                  "/v1/tickets/{ticket_id}"),
        Operation("createTicket", "createTicket", "Open a ticket.",
                  _p({"subject": {"type": "string", "x-in": "body"}}, ["subject"]), TICKET, "write", "POST", "/v1/tickets"),
        Operation("closeTicket", "closeTicket", "Close a ticket.", _p(ticket_id, ["ticket_id"]), TICKET, "write",
                  "POST", "/v1/tickets/{ticket_id}/close"),
    )
    return ApiSpec("openapi", "openapi:helpdesk.example:1.0", "Example Helpdesk", "1.0", "A helpdesk.", "MIT", None,
                   {"file": "helpdesk.json", "sha256": "1" * 64}, ops)


# forgets the missing ticket (a KeyError) and never changes the status
BUGGY = '''```python
WRITES = ["tickets"]
def action(tables, args):
    return tables["tickets"][args["ticket_id"]]
```'''
CORRECT = '''```python
WRITES = ["tickets"]
def action(tables, args):
    t = tables["tickets"].get(args["ticket_id"])
    if t is None:
        return {"error": {"code": "not_found", "message": "No such ticket."}}
    t["status"] = "closed"
    return t
```'''


def hostile(body: str) -> str:
    """A reply whose action does ``body`` (indented lines) and then closes the ticket correctly."""
    return ("```python\nWRITES = ['tickets']\ndef action(tables, args):\n" + body
            + "    t = tables['tickets'].get(args['ticket_id'])\n"
            "    if t is None:\n        return {'error': {'code': 'not_found', 'message': 'none'}}\n"
            "    t['status'] = 'closed'\n    return t\n```")


HOSTILE = {
    "socket": hostile("    import socket\n    socket.create_connection(('1.1.1.1', 80), timeout=1)\n"),
    "write_outside_tmp": hostile("    import pathlib\n    pathlib.Path('/etc/covert-was-here').write_text('x')\n"),
    "spawn": hostile("    import subprocess\n    subprocess.run(['true'])\n"),
    "loop_forever": hostile("    n = 0\n    while True:\n        n += 1\n"),
    "allocate_without_bound": hostile("    hoard = []\n    while True:\n        hoard.append(bytearray(1 << 20))\n"),
    # str hashes are salted per process: a second worker process writes another subject
    "nondeterministic": hostile("    t = tables['tickets'].get(args['ticket_id'])\n"
                                "    if t is not None:\n        t['subject'] = str(hash(args['ticket_id']))\n"),
}


def conversations(spec: ApiSpec, op_name: str, first_reply: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The first-pass messages of one custom action, and the revision messages after ``first_reply``
    (its validation error found by the real validator in the sandbox), exactly as the loop sends them for
    ``spec`` read back from a store (the stored form orders schema keys, which changes the sample records)."""
    import json

    from covert.imports.bind import bind
    from covert.imports.custom_actions import (
        action_prompt,
        action_sandbox,
        parse_reply,
        revision_message,
        sample_state,
        target_of,
    )
    from covert.imports.custom_actions_check import Validator
    from covert.imports.resources import infer
    from covert.imports.store import dump_spec

    spec = ApiSpec.from_dict(json.loads(dump_spec(spec)))
    api = bind(spec)
    _resources, roles = infer(spec)
    op = next(o for o in spec.operations if o.name == op_name)
    target = target_of(op, spec, api.resources, roles)
    first = [{"role": "user", "content": action_prompt(target, spec, api.resources, api.style, sample_state(api))}]
    with action_sandbox(size=2) as pool:
        problem = Validator(api, pool).check(target, parse_reply(first_reply, op_name))
    assert problem is not None, "the first reply must fail validation"
    return first, [*first, {"role": "assistant", "content": first_reply},
                   {"role": "user", "content": revision_message(*problem)}]


def fit(model: Any, tokenizer: Any, examples: list[tuple[list[dict[str, Any]], str]], steps: int = 300,
        lr: float = 1e-2, stop_at: float = 0.005) -> float:
    """Fit ``model`` to answer each conversation with its reply (deterministic), stopping once the summed
    loss is under ``stop_at``; the final loss."""
    import torch

    batches = []
    for messages, answer in examples:
        prompt = tokenizer.apply_chat_template(messages, add_generation_prompt=True, tokenize=False)
        p = tokenizer(prompt, add_special_tokens=False)["input_ids"]
        a = tokenizer(answer + "<|im_end|>", add_special_tokens=False)["input_ids"]
        batches.append((torch.tensor([p + a]), torch.tensor([[-100] * len(p) + a])))
    torch.manual_seed(0)
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr)
    decay = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: 1 - step / steps)  # settles, never spikes late
    model.train()
    for _ in range(steps):
        loss = sum(model(input_ids=ids, labels=labels).loss for ids, labels in batches)
        if loss.detach().item() < stop_at:  # learned: greedy decoding gives the replies exactly
            break
        optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        decay.step()
    model.eval()
    return float(loss.detach())
