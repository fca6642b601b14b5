"""Behaviour the restructure's review pinned down (to be filed under their modules)."""

import json
import os
import select

from conftest import Wire, simple_config

INIT_0325 = {"jsonrpc": "2.0", "id": "init", "method": "initialize",
             "params": {"protocolVersion": "2025-03-26"}}


def test_bytes_like_input_is_served_as_bytes():
    wire = Wire(simple_config())
    out = wire.session.receive_data(bytearray(b'{"jsonrpc":"2.0","id":1,"method":"ping"}\n'))
    assert out == b'{"jsonrpc":"2.0","id":1,"result":{}}\n'
    out = wire.session.receive_data(memoryview(b'{"jsonrpc":"2.0","id":2,"method":"ping"}\n'))
    assert out == b'{"jsonrpc":"2.0","id":2,"result":{}}\n'


def test_a_held_back_cancel_is_read_as_json_whatever_its_escapes():
    # served in turn, a cancel spelled with JSON escapes drops the reply; held back by a
    # budget, it does the same
    for method in ("notifications\\/cancelled", "\\u006eotifications/cancelled"):
        wire = Wire(simple_config())
        data = (b'{"jsonrpc":"2.0","id":1,"method":"ping"}\n{"jsonrpc":"2.0","method":"'
                + method.encode() + b'","params":{"requestId":1}}\n')
        assert wire.session.receive_data(data) == b""
        wire = Wire(simple_config())
        assert wire.session.receive_data(data, budget=1) == b""
        assert wire.session.resume() == b""


def test_the_outbox_counts_a_batch_as_the_bytes_it_sends():
    from tinymcp.outbox import Batch, Outbox
    box = Outbox()
    batch = Batch()
    box.add(1, b"", b'{"id":1}\n', True, batch)
    box.add(2, b'{"n":1}\n', b'{"id":2}\n', True, batch)
    box.add(3, b"", b'{"id":3}\n', True)
    size = box.size
    box.cancel(2)
    assert size - box.size == len(b'{"n":1}\n') + len(b'{"id":2}\n')
    size = box.size
    assert size == len(box.take()) == len(b'[{"id":1}]\n{"id":3}\n')
    box.add(4, b"", b'{"id":4}\n', True, Batch())
    box.cancel(4)
    assert box.size == 0 and box.take() == b""


def test_a_batch_and_its_cancel_at_the_budget_of_the_batch_line():
    # the budget counts the array as sent (39 bytes): within it the batch of one cancel is
    # served in turn and drops the reply; at it, the batch (not a notification, so never
    # applied early) waits, and the reply goes out first
    reply = b'[{"jsonrpc":"2.0","id":1,"result":{}}]\n'
    for budget, expected in ((38, reply), (39, reply), (40, b"")):
        wire = Wire(simple_config())
        wire.session.receive_data(json.dumps(INIT_0325).encode() + b"\n")
        out = wire.session.receive_data(
            b'[{"jsonrpc":"2.0","id":1,"method":"ping"}]\n'
            b'[{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}]\n',
            budget=budget)
        assert out + wire.session.resume() == expected, budget


def test_progress_of_an_int_no_float_can_hold_fails_the_request():
    import tinymcp

    def render(arguments):
        tinymcp.progress(10 ** 400)
        return "x"

    wire = Wire({"prompts": [{"name": "r", "render": render}]})
    wire.initialize()
    reply = wire.request("prompts/get", {"name": "r", "_meta": {"progressToken": "t"}})
    assert reply["error"]["code"] == -32603


def test_a_change_of_json_type_or_of_template_escapes_is_a_change():
    from tinymcp import Server, load_config

    def prompt(**fields):
        base = {"name": "p", "arguments": [{"name": "b"}], "messages": [{"role": "user", "text": "a"}]}
        base.update(fields)
        return {"prompts": [base]}

    server = Server(prompt(_meta={"x": 1}))
    for new in (prompt(_meta={"x": True}), prompt(_meta={"x": 1.0}), prompt(_meta={"x": 1.0, "y": 2}),
                prompt(_meta={"y": 2, "x": 1.0}), prompt(messages=[{"role": "user", "text": "a {{b}}"}]),
                prompt(messages=[{"role": "user", "text": "a {b}"}])):
        assert server.apply_config(load_config(new)) is True, new
    assert server.apply_config(load_config(prompt(messages=[{"role": "user", "text": "a {b}"}]))) is False


def test_list_changed_is_read_from_the_server_when_it_is_needed():
    from tinymcp import Server
    server = Server(simple_config())
    session = server.session()
    server.list_changed = True
    wire = Wire(simple_config())
    wire.session = session
    assert wire.initialize()["capabilities"]["prompts"] == {"listChanged": True}
    assert session.prompts_changed() == b'{"jsonrpc":"2.0","method":"notifications/prompts/list_changed"}\n'
    assert server.session(list_changed=False).prompts_changed() == b""


def test_a_server_served_by_two_transports_tells_both():
    from tinymcp import Server
    from tinymcp.loop import Loop
    from tinymcp.pump import Hub, StreamPump
    server = Server(simple_config(1), list_changed=True)
    loops, fds, readers = [], [], []
    try:
        for _ in range(2):
            loop = Loop()
            loops.append(loop)
            hub = Hub(loop, server)
            r_in, w_in = os.pipe()
            r_out, w_out = os.pipe()
            fds += [r_in, w_in, r_out, w_out]
            hub.add(StreamPump(loop, server.session(), r_in, w_out, hub.discard))
            os.write(w_in, b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}\n')
            got = b""
            while not got.endswith(b"\n"):
                loop.run_once(5)
                if select.select([r_out], [], [], 0)[0]:
                    got += os.read(r_out, 65536)
            readers.append((loop, r_out, hub))
        server.replace_config(simple_config(2))
        for loop, r_out, hub in readers:
            loop.run_once(0)
            assert os.read(r_out, 65536) == b'{"jsonrpc":"2.0","method":"notifications/prompts/list_changed"}\n'
    finally:
        for loop, _, hub in readers:
            hub.close()
        for loop in loops:
            loop.close()
        for fd in fds:
            os.close(fd)


def test_a_config_file_may_start_with_a_byte_order_mark(tmp_path):
    from tinymcp.reload import read_config
    path = tmp_path / "c.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(simple_config(1)).encode())
    assert read_config(str(path)) == simple_config(1)
