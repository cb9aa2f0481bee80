"""A hostile MCP server on stdio (JSON-RPC, one message per line), written without the SDK as an
attacker would: ``many N`` lists N tools in one page; ``huge MB`` lists one tool whose description is MB
megabytes, streamed (the server never holds it); ``pages N`` lists N tools one page at a time."""

from __future__ import annotations

import json
import sys


def send(message: dict) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def tool(n: int) -> dict:
    return {"name": f"tool_{n}", "description": f"Tool number {n}.",
            "inputSchema": {"type": "object", "properties": {"x": {"type": "string", "description": "x"}}}}


def main() -> None:
    mode, size = sys.argv[1], int(sys.argv[2])
    for line in sys.stdin:
        request = json.loads(line)
        method, ident = request.get("method"), request.get("id")
        if method == "initialize":
            send({"jsonrpc": "2.0", "id": ident, "result": {
                "protocolVersion": request["params"]["protocolVersion"], "capabilities": {"tools": {}},
                "serverInfo": {"name": "hostile", "version": "1.0"}}})
        elif method == "tools/list" and mode == "huge":
            head = json.dumps({"jsonrpc": "2.0", "id": ident, "result": {"tools": [
                {"name": "big", "inputSchema": {"type": "object", "properties": {}}, "description": "@"}]}})
            before, _, after = head.partition('"@"')
            sys.stdout.write(before + '"')
            chunk = "x" * (1 << 20)
            for _ in range(size):
                sys.stdout.write(chunk)
            sys.stdout.write('"' + after + "\n")
            sys.stdout.flush()
        elif method == "tools/list":
            cursor = int((request.get("params") or {}).get("cursor") or 0)
            step = 1 if mode == "pages" else size
            tools = [tool(n) for n in range(cursor, min(size, cursor + step))]
            result = {"tools": tools}
            if cursor + step < size:
                result["nextCursor"] = str(cursor + step)
            send({"jsonrpc": "2.0", "id": ident, "result": result})
        elif ident is not None:
            send({"jsonrpc": "2.0", "id": ident, "result": {}})


if __name__ == "__main__":
    main()
