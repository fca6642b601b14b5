"""Interop check: `notifications/prompts/list_changed` under `--watch`, seen by the MCP Python SDK.

Usage: python interop_watch.py CONFIG [SERVER_ROOT]
Copies CONFIG (scripts/interop's: 250 prompts p000..p249, page size 20) into a temporary folder
and serves the copy with `python3 -m tinymcp --config COPY --watch --page-size 20` in
SERVER_ROOT (default: repo root), then rewrites the copy (a temporary file, then os.replace)
while a client is connected and checks that the client hears of it and sees the change:
- handshake era: ClientSession (initialize), its message_handler receiving the notification;
- stateless era (2026-07-28): mcp.Client, whose listen(prompts_list_changed=True) opens a
  `subscriptions/listen` stream that yields the change.
Each wait is bounded (WAIT seconds). Prints one PASS/FAIL line per check; exits 1 on any failure.
"""

import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

import anyio
import mcp
from mcp import ClientSession, StdioServerParameters, stdio_client, types

CONFIG = sys.argv[1]
ROOT = sys.argv[2] if len(sys.argv) > 2 else str(Path(__file__).resolve().parent.parent)
#: seconds to wait for a notification (the server polls every 0.1 s and takes a change within ~0.2 s)
WAIT = 10
#: seconds to wait for a notification that must not come (same content rewritten)
QUIET = 1.0
failures = 0


def check(name, ok, detail=""):
    global failures
    failures += not ok
    print(f"{'PASS' if ok else 'FAIL'}: watch: {name}" + (f" ({detail})" if detail else ""), flush=True)


def server(path):
    return StdioServerParameters(
        command="python3",
        args=["-m", "tinymcp", "--config", path, "--watch", "--page-size", "20"],
        env={"PYTHONPATH": ROOT},  # merged over the SDK's filtered default env (HOME, PATH, ...)
        cwd=ROOT,
    )


def rewrite(path, change):
    """Apply ``change`` to the config at ``path``: a new file beside it, then os.replace."""
    with open(path) as f:
        config = json.load(f)
    change(config["prompts"])
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), suffix=".tmp")
    with os.fdopen(fd, "w") as f:
        json.dump(config, f)
    os.replace(tmp, path)


def add_p250(prompts):
    prompts.append({"name": "p250", "description": "Added while watched",
                    "messages": [{"role": "user", "text": "I was added while you watched"}]})


def drop_first_ten(prompts):
    del prompts[:10]


def unchanged(prompts):
    pass


async def all_names(list_page):
    names, cursor, pages = [], None, 0
    while pages <= 100:
        result = await list_page(cursor)
        pages += 1
        names += [p.name for p in result.prompts]
        cursor = result.next_cursor
        if cursor is None:
            break
    return names


async def handshake_checks(path):
    heard = []
    changed = anyio.Event()

    async def on_message(message):
        if isinstance(message, types.PromptListChangedNotification):
            heard.append(message)
            changed.set()

    async def wait_for_change(name):
        nonlocal changed
        with anyio.move_on_after(WAIT) as scope:
            await changed.wait()
        check(name, not scope.cancelled_caught, f"no notification within {WAIT}s" if scope.cancelled_caught else "")
        changed = anyio.Event()

    async with stdio_client(server(path)) as (read, write), \
            ClientSession(read, write, message_handler=on_message) as session:
        init = await session.initialize()
        caps = init.capabilities.prompts
        check("ClientSession: initialize promises prompts.listChanged", caps is not None and caps.list_changed is True,
              f"protocolVersion={init.protocol_version}, prompts={caps}")
        list_page = lambda cursor: session.list_prompts(params=types.PaginatedRequestParams(cursor=cursor))  # noqa: E731
        names = await all_names(list_page)
        check("ClientSession: 250 prompts before the change", len(names) == 250 and "p250" not in names,
              f"{len(names)} names")

        rewrite(path, add_p250)
        await wait_for_change("ClientSession: notifications/prompts/list_changed after adding p250")
        names = await all_names(list_page)
        check("ClientSession: the list shows p250 after the notification", len(names) == 251 and "p250" in names,
              f"{len(names)} names")
        result = await session.get_prompt("p250")
        texts = [m.content.text for m in result.messages if m.content.type == "text"]
        check("ClientSession: prompts/get p250", texts == ["I was added while you watched"], repr(texts))

        rewrite(path, drop_first_ten)
        await wait_for_change("ClientSession: notifications/prompts/list_changed after removing p000..p009")
        names = await all_names(list_page)
        check("ClientSession: the list lacks p000..p009 after the notification",
              len(names) == 241 and names[0] == "p010" and "p000" not in names, f"{len(names)} names, first {names[:1]}")
        try:
            await session.get_prompt("p000", {"topic": "x"})
        except Exception as e:
            got = getattr(getattr(e, "error", None), "code", None)
            check("ClientSession: prompts/get p000 (removed) -> -32602", got == -32602, f"code={got}: {e}")
        else:
            check("ClientSession: prompts/get p000 (removed) -> -32602", False, "no error raised")

        count = len(heard)
        rewrite(path, unchanged)
        await anyio.sleep(QUIET)
        check(f"ClientSession: rewriting the same content sends nothing (waited {QUIET}s)", len(heard) == count,
              f"{len(heard) - count} notifications")


async def stateless_checks(path):
    async with mcp.Client(server(path)) as client:  # default mode "auto": server/discover
        check("mcp.Client: speaks the stateless era", client.protocol_version == "2026-07-28",
              str(client.protocol_version))
        list_page = lambda cursor: client.list_prompts(cursor=cursor)  # noqa: E731
        names = await all_names(list_page)
        check("mcp.Client: 250 prompts before the change", len(names) == 250, f"{len(names)} names")
        async with client.listen(prompts_list_changed=True) as sub:
            check("mcp.Client: subscriptions/listen honours promptsListChanged",
                  sub.honored.prompts_list_changed is True, repr(sub.honored))
            rewrite(path, add_p250)
            event = None
            with anyio.move_on_after(WAIT):
                event = await sub.__anext__()
            check("mcp.Client: listen stream yields the prompts list change after adding p250", event is not None,
                  repr(event) if event is not None else f"nothing within {WAIT}s")
            names = await all_names(list_page)  # the client evicts its cached list on the event
            check("mcp.Client: the list shows p250 after the event", len(names) == 251 and "p250" in names,
                  f"{len(names)} names")


async def main():
    with tempfile.TemporaryDirectory(prefix="tinymcp-interop-watch-") as folder:
        for name, checks in [("ClientSession", handshake_checks), ("mcp.Client", stateless_checks)]:
            if name == "mcp.Client" and not hasattr(mcp, "Client"):
                print("SKIP: watch: mcp.Client not in this SDK version")
                continue
            path = os.path.join(folder, f"{name}.json")
            shutil.copyfile(CONFIG, path)
            try:
                with anyio.fail_after(60):
                    await checks(path)
            except Exception as e:
                check(f"{name}: ran without unexpected error", False, f"{type(e).__name__}: {e!r}")


if __name__ == "__main__":
    anyio.run(main)
    sys.exit(1 if failures else 0)
