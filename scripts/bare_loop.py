#!/usr/bin/env python3
"""The baseline for scripts/bench.py: the least an MCP prompts server on stdio must do.

usage: python3 scripts/bare_loop.py --config FILE.json [--page-size N]

One blocking loop: readline on stdin, ``json.loads``, a minimal reply, ``json.dumps``,
write + flush per message. It answers ``initialize``, ``prompts/list`` (cursor = the
offset as a string) and ``prompts/get`` (the first message's text, each given
argument substituted with ``str.replace``). No validation, no error handling beyond
"method not found": this is the floor tinymcp is measured against, not a server.
It does the same per-message work tinymcp must (decode, build a reply, encode) and
no caching of replies that tinymcp could not do.
"""

import json
import sys


def main(argv):
    config_path, page_size = None, None
    args = list(argv)
    while args:
        arg = args.pop(0)
        if arg == "--config":
            config_path = args.pop(0)
        elif arg == "--page-size":
            page_size = int(args.pop(0))
        else:
            config_path = arg
    with open(config_path, "rb") as f:
        config = json.loads(f.read())
    prompts = config["prompts"]
    by_name = {p["name"]: p for p in prompts}
    if page_size is None:
        page_size = config.get("page_size", 50)

    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    dumps = json.dumps
    while True:
        line = stdin.readline()
        if not line:
            return 0
        msg = json.loads(line)
        if "id" not in msg:
            continue  # notification
        method = msg.get("method")
        params = msg.get("params") or {}
        if method == "prompts/get":
            prompt = by_name[params["name"]]
            first = prompt["messages"][0]
            text = first["text"] if "text" in first else first["content"]["text"]
            for key, value in (params.get("arguments") or {}).items():
                text = text.replace("{" + key + "}", value)
            result = {"description": prompt.get("description", ""),
                      "messages": [{"role": first["role"],
                                    "content": {"type": "text", "text": text}}]}
        elif method == "prompts/list":
            start = int(params.get("cursor") or 0)
            items = []
            for p in prompts[start:start + page_size]:
                item = {"name": p["name"]}
                if "description" in p:
                    item["description"] = p["description"]
                if "arguments" in p:
                    item["arguments"] = p["arguments"]
                items.append(item)
            result = {"prompts": items}
            if start + page_size < len(prompts):
                result["nextCursor"] = str(start + page_size)
        elif method == "initialize":
            result = {"protocolVersion": params.get("protocolVersion"),
                      "capabilities": {"prompts": {}},
                      "serverInfo": {"name": "bare-loop", "version": "0"}}
        elif method == "ping":
            result = {}
        else:
            stdout.write(dumps({"jsonrpc": "2.0", "id": msg["id"], "error": {
                "code": -32601, "message": "Method not found"}},
                separators=(",", ":")).encode() + b"\n")
            stdout.flush()
            continue
        stdout.write(dumps({"jsonrpc": "2.0", "id": msg["id"], "result": result},
                           separators=(",", ":")).encode() + b"\n")
        stdout.flush()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
