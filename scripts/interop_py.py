"""Interop check: drive tinymcp with the official MCP Python SDK (`pip install mcp`).

Usage: python interop_py.py CONFIG [SERVER_ROOT]
Spawns `python3 -m tinymcp --config CONFIG --page-size 20` in SERVER_ROOT (default: repo root),
prints one PASS/FAIL line per check and exits 1 if any check failed.
"""

import sys
import time
from pathlib import Path

import anyio
import mcp
from mcp import ClientSession, StdioServerParameters, stdio_client, types

CONFIG = sys.argv[1]
ROOT = sys.argv[2] if len(sys.argv) > 2 else str(Path(__file__).resolve().parent.parent)
SERVER = StdioServerParameters(
    command="python3",
    args=["-m", "tinymcp", "--config", CONFIG, "--page-size", "20"],
    env={"PYTHONPATH": ROOT},  # merged over the SDK's filtered default env (HOME, PATH, ...)
    cwd=ROOT,
)
#: the README's example folder of prompt files, served with --prompts
EXAMPLES = str(Path(__file__).resolve().parent.parent / "docs" / "examples" / "prompts")
EXAMPLE_SERVER = StdioServerParameters(
    command="python3", args=["-m", "tinymcp", "--prompts", EXAMPLES], env={"PYTHONPATH": ROOT}, cwd=ROOT)
#: each example prompt, the arguments to get it with, and a text its messages must hold
EXAMPLE_GETS = {
    "code_review": ({"code": "print(1)"}, "focusing on correctness:\n\nprint(1)"),
    "explain": ({"topic": "closures"}, "Explain closures to"),
    "deploy": ({"ENV": "staging", "BRANCH": "main"}, "deployment of main to staging"),
    "forms:react-form": ({"formName": "Login", "fields": "user"}, "named Login with the fields\nuser"),
    "git:commit": ({"args": "the fix"}, "commit message for: the fix"),
    "git:fix-issue": ({"issue-number": "42", "priority": "high"}, "Fix issue #42 with priority high"),
    "summarize": ({"arguments": "the report"}, "Summarize the report in five bullet points"),
}
failures = 0


def check(name, ok, detail=""):
    global failures
    failures += not ok
    print(f"{'PASS' if ok else 'FAIL'}: py: {name}" + (f" ({detail})" if detail else ""), flush=True)


async def walk_pages(list_page):
    """Follow nextCursor to the end; returns (page count, list of prompt names)."""
    pages, names, cursor = 0, [], None
    while True:
        result = await list_page(cursor)
        pages += 1
        names += [p.name for p in result.prompts]
        cursor = result.next_cursor
        if cursor is None or pages > 100:
            return pages, names


async def expect_error(name, call, code):
    try:
        await call
    except Exception as e:  # McpError (1.x) / MCPError (2.x) both carry .error.code
        got = getattr(getattr(e, "error", None), "code", None)
        check(name, got == code, f"got {type(e).__name__} code={got}: {e}")
    else:
        check(name, False, "no error raised")


async def check_pages_and_prompts(list_page, get_prompt, label):
    pages, names = await walk_pages(list_page)
    check(f"{label}: prompts/list walks 13 pages", pages == 13, f"{pages} pages")
    check(f"{label}: 250 unique prompt names", len(names) == 250 and len(set(names)) == 250, f"{len(names)} names")
    result = await get_prompt("p007", {"topic": "x"})
    texts = [m.content.text for m in result.messages if m.content.type == "text"]
    ok = any("x" in t and "{topic}" not in t for t in texts)
    check(f"{label}: prompts/get p007 renders topic=x", ok, repr(texts))


async def check_completions(complete, label):
    ref = types.PromptReference(type="ref/prompt", name="p007")
    c = (await complete(ref, {"name": "topic", "value": ""})).completion
    check(f"{label}: complete() empty value -> 100 of 250, hasMore",
          len(c.values) == 100 and c.total == 250 and c.has_more is True,
          f"{len(c.values)} values, total={c.total}, hasMore={c.has_more}")
    c = (await complete(ref, {"name": "topic", "value": "c"})).completion
    starts = all(v[0] in "cC" for v in c.values)
    exact_first = all(v.startswith("c") for v in c.values[:50]) and not any(v.startswith("c") for v in c.values[50:])
    check(f"{label}: complete() 'c' -> c/C only, exact case first",
          starts and exact_first and c.total == 150 and c.has_more is True,
          f"{c.values[:2]}...{c.values[-2:]}, total={c.total}")


async def session_checks():
    async with stdio_client(SERVER) as (read, write), ClientSession(read, write) as session:
        init = await session.initialize()
        check("ClientSession.initialize", init.capabilities.prompts is not None, f"protocolVersion={init.protocol_version}")
        await check_pages_and_prompts(
            lambda cursor: session.list_prompts(params=types.PaginatedRequestParams(cursor=cursor)),
            session.get_prompt,
            "ClientSession",
        )
        await expect_error("ClientSession: unknown prompt -> -32602", session.get_prompt("nope"), -32602)
        await expect_error("ClientSession: missing required arg -> -32602", session.get_prompt("p007", {}), -32602)
        await check_completions(session.complete, "ClientSession")


async def client_checks():
    start = time.perf_counter()
    async with mcp.Client(SERVER) as client:  # default mode ("auto": server/discover, then maybe initialize)
        elapsed = time.perf_counter() - start
        check("mcp.Client connect < 1s", elapsed < 1.0, f"{elapsed:.3f}s, protocolVersion={client.protocol_version}")
        check("mcp.Client speaks the stateless era", client.protocol_version == "2026-07-28",
              str(client.protocol_version))
        await check_pages_and_prompts(
            lambda cursor: client.list_prompts(cursor=cursor), client.get_prompt, "mcp.Client"
        )
        await check_completions(client.complete, "mcp.Client")


async def example_checks():
    async with stdio_client(EXAMPLE_SERVER) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        listed = [p.name for p in (await session.list_prompts()).prompts]
        check("examples: prompts/list names every example file", sorted(listed) == sorted(EXAMPLE_GETS),
              repr(listed))
        for name, (arguments, expected) in EXAMPLE_GETS.items():
            result = await session.get_prompt(name, arguments)
            texts = [m.content.text for m in result.messages if m.content.type == "text"]
            check(f"examples: prompts/get {name}", any(expected in t for t in texts), repr(texts))


TOOLS_SERVER = StdioServerParameters(
    command="python3", args=["-m", "tinymcp", "--prompts", EXAMPLES, "--prompts-as-tools"],
    env={"PYTHONPATH": ROOT}, cwd=ROOT)


async def tools_checks():
    """A client that calls only tools: both eras list and render every example prompt."""
    import json
    async with stdio_client(TOOLS_SERVER) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        names = [t.name for t in (await session.list_tools()).tools]
        check("tools: ClientSession lists list_prompts and get_prompt", names == ["list_prompts", "get_prompt"],
              repr(names))
        await tool_gets(session.call_tool, "ClientSession", json)
    if hasattr(mcp, "Client"):
        async with mcp.Client(TOOLS_SERVER) as client:
            await tool_gets(client.call_tool, "mcp.Client", json)


async def tool_gets(call_tool, label, json):
    listed = await call_tool("list_prompts", {})
    names = [p["name"] for p in json.loads(listed.content[0].text)]
    check(f"tools: {label} list_prompts names every example", sorted(names) == sorted(EXAMPLE_GETS), repr(names))
    for name, (arguments, expected) in EXAMPLE_GETS.items():
        result = await call_tool("get_prompt", {"name": name, "arguments": arguments})
        texts = [m["content"] for m in json.loads(result.content[0].text)["messages"]]
        check(f"tools: {label} get_prompt {name}", not result.is_error and any(
            isinstance(t, str) and expected in t for t in texts), repr(texts))
    refused = await call_tool("get_prompt", {"name": "nope"})
    check(f"tools: {label} unknown prompt is isError", refused.is_error, repr(refused.content))


async def ask_checks():
    """mcp.Client fills the elicitation form an ask_for_missing prompt sends, and retries."""
    import json
    import tempfile
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump({"ask_for_missing": True, "prompts": [{"name": "review", "arguments": [
            {"name": "code", "required": True, "description": "The code"},
            {"name": "lang", "required": True, "choices": ["py", "js"]}],
            "messages": [{"role": "user", "text": "Review {lang}: {code}"}]}]}, f)
    server = StdioServerParameters(command="python3", args=["-m", "tinymcp", "--config", f.name],
                                   env={"PYTHONPATH": ROOT}, cwd=ROOT)
    asked = []

    async def elicit(context, params):
        asked.append(params.requested_schema)
        return types.ElicitResult(action="accept", content={"code": "x = 1", "lang": "py"})
    async with mcp.Client(server, elicitation_callback=elicit) as client:
        result = await client.get_prompt("review", {})
        texts = [m.content.text for m in result.messages]
        check("ask: mcp.Client fills the form for missing arguments and gets the prompt",
              texts == ["Review py: x = 1"] and len(asked) == 1
              and asked[0]["properties"]["lang"].get("enum") == ["py", "js"], repr((texts, asked)))


async def main():
    for name, checks in [("ClientSession", session_checks), ("mcp.Client", client_checks),
                         ("examples", example_checks), ("tools", tools_checks), ("ask", ask_checks)]:
        if name in ("mcp.Client", "ask") and not hasattr(mcp, "Client"):
            print("SKIP: py: mcp.Client not in this SDK version")
            continue
        try:
            with anyio.fail_after(60):
                await checks()
        except Exception as e:
            check(f"{name}: ran without unexpected error", False, f"{type(e).__name__}: {e!r}")


if __name__ == "__main__":
    anyio.run(main)
    sys.exit(1 if failures else 0)
