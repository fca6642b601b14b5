"""The outbox: replies keyed by request id, dropped by a cancel with their notifications; batch replies as one array."""

from conftest import LISTEN, meta, modern_wire, simple_config
from tinymcp.protocol.outbox import Batch, Outbox


# --- cancellation ----------------------------------------------------------------------------

def test_cancelled_request_pipelined_in_the_same_read_gets_no_reply(wire):
    wire.initialize()
    replies = wire.send(
        {"jsonrpc": "2.0", "id": 1, "method": "ping"},
        {"jsonrpc": "2.0", "id": 2, "method": "prompts/get", "params": {"name": "p000", "arguments": {"topic": "x"}}},
        {"jsonrpc": "2.0", "id": 3, "method": "ping"},
        {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 2}},
    )
    assert [r["id"] for r in replies] == [1, 3]


def test_cancel_matches_the_id_type(wire):
    wire.initialize()
    replies = wire.send(
        {"jsonrpc": "2.0", "id": 2, "method": "ping"},
        {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "2"}},
    )
    assert [r["id"] for r in replies] == [2]


def test_cancel_of_unknown_or_finished_id_is_ignored(wire):
    wire.initialize()
    assert wire.result("ping") == {}
    assert wire.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}}) == []
    assert wire.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 99}}) == []
    assert wire.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": None}}) == []
    assert wire.result("ping") == {}


def test_cancel_drops_an_error_reply_too(wire):
    wire.initialize()
    replies = wire.send(
        {"jsonrpc": "2.0", "id": 1, "method": "prompts/get", "params": {"name": "nope"}},
        {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}},
        {"jsonrpc": "2.0", "id": 2, "method": "ping"},
    )
    assert [r["id"] for r in replies] == [2]


def test_cancel_drops_the_requests_notifications_with_its_reply(wire):
    wire.initialize()
    wire.result("logging/setLevel", {"level": "debug"})
    replies = wire.send(
        {"jsonrpc": "2.0", "id": 1, "method": "prompts/get", "params": {"name": "p000", "arguments": {"topic": "t"}}},
        {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}},
    )
    assert replies == []


def test_a_listen_cancelled_in_the_same_read_sends_nothing_at_all():
    # stdio "Cancellation": no further messages for a cancelled request, so the queued
    # acknowledgement goes too; a later change notifies no one
    m = modern_wire(list_changed=True)
    listen = {"jsonrpc": "2.0", "id": 7, "method": "subscriptions/listen", "params": dict(LISTEN, _meta=meta())}
    replies = m.send(listen, {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 7}})
    assert replies == []
    m.server.replace_config(simple_config(2))
    assert m.session.prompts_changed() == b""


# --- batches -----------------------------------------------------------------------------------

def test_batch_served_as_array_under_2025_03_26(wire):
    wire.initialize("2025-03-26")
    [reply] = wire.send([
        {"jsonrpc": "2.0", "id": 1, "method": "ping"},
        {"jsonrpc": "2.0", "method": "notifications/whatever"},
        {"jsonrpc": "2.0", "id": "b", "method": "prompts/get", "params": {"name": "nope"}},
        {"jsonrpc": "2.0", "id": 3, "method": "initialize", "params": {"protocolVersion": "2025-03-26"}},
    ])
    assert isinstance(reply, list)
    assert [r["id"] for r in reply] == [1, "b", 3]
    assert reply[0]["result"] == {}
    assert reply[1]["error"]["code"] == -32602
    assert reply[2]["error"] == {"code": -32600,
                                 "message": "Invalid Request: initialize cannot be part of a batch"}


def test_batch_of_notifications_gets_no_reply(wire):
    wire.initialize("2025-03-26")
    assert wire.send([{"jsonrpc": "2.0", "method": "notifications/x"}]) == []


def test_a_cancel_is_read_as_json_whatever_its_escapes():
    from conftest import Wire
    from conftest import simple_config
    for method in ("notifications\\/cancelled", "\\u006eotifications/cancelled"):
        wire = Wire(simple_config())
        data = (b'{"jsonrpc":"2.0","id":1,"method":"ping"}\n{"jsonrpc":"2.0","method":"'
                + method.encode() + b'","params":{"requestId":1}}\n')
        assert wire.session.receive_data(data) == b""


def test_the_outbox_counts_a_batch_as_the_bytes_it_sends():
    from tinymcp.protocol.outbox import Batch, Outbox
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
    import json
    from conftest import Wire
    from conftest import simple_config
    # the budget counts the array as sent (39 bytes): within it the batch of one cancel is
    # served in turn and drops the reply; at it, the batch (not a notification, so never
    # applied early) waits, and the reply goes out first
    reply = b'[{"jsonrpc":"2.0","id":1,"result":{}}]\n'
    for budget, expected in ((38, reply), (39, reply), (40, b"")):
        wire = Wire(simple_config())
        wire.session.receive_data(json.dumps({"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": {"protocolVersion": "2025-03-26"}}).encode() + b"\n")
        out = wire.session.receive_data(
            b'[{"jsonrpc":"2.0","id":1,"method":"ping"}]\n'
            b'[{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}]\n',
            budget=budget)
        assert out + wire.session.resume() == expected, budget


def test_the_outbox_size_is_what_it_sends_after_cancels_in_a_batch():
    from tinymcp.protocol.outbox import Batch, Outbox
    box, batch = Outbox(), Batch()
    box.add(1, b"", b'{"id":1}\n', True, batch)
    box.add(2, b"", b'{"id":2}\n', True, batch)
    box.cancel(1)
    box.cancel(2)
    assert box.size == len(box.take()) == 0
    box, batch = Outbox(), Batch()
    box.add_pending(3, True, batch)
    box.cancel(3)
    box.add(4, b"", b'{"id":4}\n', True, batch)
    assert box.size == len(box.take()) == len(b'[{"id":4}]\n')


def test_a_cancel_after_a_take_reaches_the_live_request_of_a_reused_id():
    from tinymcp.protocol.outbox import Batch, Outbox
    box, batch = Outbox(), Batch()
    first = box.add_pending(1, True, batch)
    box.add(1, b"", b'{"id":1,"again":true}\n', True, batch)
    box.cancel(1)  # (the latest of the id: the second)
    assert box.take() == b""  # (the batch waits for the first)
    box.cancel(1)
    box.fill(first, b"", b'{"id":1}\n')
    assert box.take() == b""


def test_the_outbox_size_is_what_it_sends_of_a_batch_that_waited_through_a_take():
    # Bug: a batch still waiting through a take() was recounted without the 2 bytes of its
    # array's brackets, so the size backpressure reads fell 2 short of what is sent
    from tinymcp.protocol.outbox import Batch, Outbox
    box, batch = Outbox(), Batch()
    first = box.add_pending(1, True, batch)
    box.add(2, b"", b'{"id":2}\n', True, batch)
    box.add(3, b"", b'{"id":3}\n', True, batch)
    assert box.take() == b""  # (the batch waits for its first)
    box.fill(first, b"", b'{"id":1}\n')
    assert box.size == len(box.take()) == len(b'[{"id":1},{"id":2},{"id":3}]\n')


# An answer that came was held back until every other pending answer had come too
def test_an_answer_that_came_leaves_while_another_is_still_pending():
    box = Outbox()
    first, second = box.add_pending(1, True), box.add_pending(2, True)
    box.fill(first, b"", b'{"id":1}\n')
    assert box.take() == b'{"id":1}\n'
    box.fill(second, b"", b'{"id":2}\n')
    assert box.take() == b'{"id":2}\n'


# A batch whose first reply came by ``fill`` was counted 2 bytes short (its array's brackets), and
# backpressure reads the size
def test_the_outbox_size_is_what_it_sends_of_a_batch_whose_first_reply_came_later():
    box, batch = Outbox(), Batch()
    first = box.add_pending(1, True, batch)
    box.fill(first, b"", b'{"id":1}\n')
    assert box.size == len(box.take()) == len(b'[{"id":1}]\n')
