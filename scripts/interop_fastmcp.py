"""Interop check: drive tinymcp with FastMCP's client (`pip install "fastmcp==4.2.3"`).

Usage: python interop_fastmcp.py CONFIG [SERVER_ROOT]
Spawns `python3 -m tinymcp --config CONFIG --page-size 20` in SERVER_ROOT (default: repo root)
through FastMCP's StdioTransport, once per connect mode: "legacy" (the initialize handshake),
"auto" (FastMCP's default: server/discover, falling back to initialize) and the pinned
"2026-07-28" (no probe: FastMCP synthesizes the discover result and sends stateless requests).
CONFIG is scripts/interop's: 250 prompts p000..p249, page size 20, p007's "topic" has 250
completions. Prints one PASS/FAIL line per check and exits 1 if any check failed.
"""

import sys
from pathlib import Path

import anyio
import fastmcp
from fastmcp import Client
from fastmcp.client.transports import StdioTransport
from mcp import types

CONFIG = sys.argv[1]
ROOT = sys.argv[2] if len(sys.argv) > 2 else str(Path(__file__).resolve().parent.parent)
HANDSHAKE = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
#: connect mode -> what a protocol version negotiated in it must satisfy
MODES = {
    "legacy": lambda v: v in HANDSHAKE,
    "auto": lambda v: v == "2026-07-28",
    "2026-07-28": lambda v: v == "2026-07-28",
}
failures = 0


def check(name, ok, detail=""):
    global failures
    failures += not ok
    print(f"{'PASS' if ok else 'FAIL'}: fastmcp: {name}" + (f" ({detail})" if detail else ""), flush=True)


def transport():
    return StdioTransport(
        command="python3",
        args=["-m", "tinymcp", "--config", CONFIG, "--page-size", "20"],
        env={"PYTHONPATH": ROOT},  # merged over the SDK's filtered default env (HOME, PATH, ...)
        cwd=ROOT,
        keep_alive=False,  # one server process per client, gone when the client closes
    )


async def expect_error(name, call, code):
    try:
        await call
    except Exception as e:  # mcp's MCPError carries .error.code (and .code)
        got = getattr(getattr(e, "error", None), "code", None)
        check(name, got == code, f"got {type(e).__name__} code={got}: {e}")
    else:
        check(name, False, "no error raised")


async def mode_checks(mode, version_ok):
    label = f"mode={mode}"
    client = Client(transport(), mode=mode, timeout=20)
    async with client:
        version = client.protocol_version
        # a pinned version sends no server/discover: FastMCP synthesizes the result, with no serverInfo
        server = getattr(client.server_info, "name", None)
        check(f"{label}: connect", version_ok(version), f"protocolVersion={version}, server={server}")

        # list_prompts() follows nextCursor itself: count the pages it asks for on the wire
        pages = 0
        list_page = client.list_prompts_mcp

        async def counting_list_page(**kwargs):
            nonlocal pages
            pages += 1
            return await list_page(**kwargs)

        client.list_prompts_mcp = counting_list_page
        try:
            names = [p.name for p in await client.list_prompts()]
        finally:
            del client.list_prompts_mcp
        check(f"{label}: list_prompts() follows 13 pages to 250 unique names",
              pages == 13 and len(names) == 250 and len(set(names)) == 250,
              f"{pages} pages, {len(names)} names, {len(set(names))} unique")

        # and the one-page call with an explicit cursor, walked by hand
        pages, names, cursor = 0, [], None
        while pages <= 100:
            result = await client.list_prompts_mcp(cursor=cursor)
            pages += 1
            names += [p.name for p in result.prompts]
            cursor = result.next_cursor
            if cursor is None:
                break
        check(f"{label}: list_prompts_mcp(cursor) walks 13 pages, 250 unique names",
              pages == 13 and len(names) == 250 and len(set(names)) == 250,
              f"{pages} pages, {len(names)} names")

        result = await client.get_prompt("p007", {"topic": "x"})
        texts = [m.content.text for m in result.messages if m.content.type == "text"]
        check(f"{label}: get_prompt p007 renders topic=x",
              texts == ["Tell me about x"], repr(texts))

        await expect_error(f"{label}: get_prompt unknown -> -32602", client.get_prompt("nope"), -32602)
        await expect_error(f"{label}: get_prompt missing required arg -> -32602",
                           client.get_prompt("p007", {}), -32602)

        ref = types.PromptReference(type="ref/prompt", name="p007")
        c = await client.complete(ref, {"name": "topic", "value": ""})
        check(f"{label}: complete() empty value -> 100 of 250, hasMore",
              len(c.values) == 100 and c.total == 250 and c.has_more is True,
              f"{len(c.values)} values, total={c.total}, hasMore={c.has_more}")
        c = await client.complete(ref, {"name": "topic", "value": "c"})
        starts = all(v[0] in "cC" for v in c.values)
        exact_first = all(v.startswith("c") for v in c.values[:50]) and not any(v.startswith("c") for v in c.values[50:])
        check(f"{label}: complete() 'c' -> c/C only, exact case first",
              starts and exact_first and c.total == 150 and c.has_more is True,
              f"{c.values[:2]}...{c.values[-2:]}, total={c.total}")


async def main():
    print(f"fastmcp {fastmcp.__version__}", flush=True)
    for mode, version_ok in MODES.items():
        try:
            with anyio.fail_after(60):
                await mode_checks(mode, version_ok)
        except Exception as e:
            check(f"mode={mode}: ran without unexpected error", False, f"{type(e).__name__}: {e!r}")


if __name__ == "__main__":
    anyio.run(main)
    sys.exit(1 if failures else 0)
