"""The outbox: encoded output waiting for the transport, replies keyed by request id.

Each request served puts one entry here: the notifications it made (log messages,
progress, a listen acknowledgement) and its reply, already encoded. The transport takes
everything with ``take()``. Until then:

- a ``notifications/cancelled`` drops its request's entry, notifications and all, with
  ``cancel(rid)``: a dictionary lookup, never a search of the output (cancellation
  "Behavior Requirements": the server SHOULD not send a response for a cancelled
  request; stdio: no further messages for it);
- the items of one JSON-RPC batch are entries of one ``Batch``; ``take()`` sends their
  notifications, then the replies left as one array line (none: no line at all);
- ``size`` is what backpressure asks: the bytes waiting.

Entries without an id (errors answering a line whose id could not be read) and bytes
the server sends on its own (``push``) are in order with the rest but never cancelled.

A request whose answer comes later (a callable running on a worker thread) holds a
*pending* entry (``add_pending``) until ``fill``: meanwhile ``take()`` sends what is ready
around it (replies may leave in another order than requests came, as JSON-RPC allows),
but never part of a batch: a batch leaves whole, as one array, once all of it is ready.
A cancel drops a pending entry too; its answer is discarded when it comes.
"""

class Batch:
    """Marks the entries of one JSON-RPC batch (they are contiguous in the outbox) and
    counts the replies it holds: the array line is 2 bytes longer than those replies."""

    __slots__ = ("replies", "pending", "size")

    def __init__(self):
        self.replies = 0
        self.pending = 0  # entries of this batch still waiting for their answer
        #: bytes of its replies so far (a batch is bounded as a whole, not only each reply:
        #: ``Session._answer``)
        self.size = 0


#: room for the JSON of a batch's replies beyond max_render_bytes (their rendered content)
BATCH_OVERHEAD = 65536


def _size(notes, reply, batch):
    """Bytes an entry adds to the output: a batch's first reply also brings the array's
    brackets (each reply's newline becomes a comma, or the array's newline)."""
    return len(notes) + (0 if reply is None else len(reply) + (2 if batch is not None and batch.replies == 1 else 0))


class _Entry:
    __slots__ = ("rid", "notes", "reply", "batch", "pending", "dropped", "keyed")

    def __init__(self, rid, notes, reply, batch, keyed):
        self.rid = rid
        self.notes = notes    # encoded notifications (bytes, possibly b"")
        self.reply = reply    # the encoded reply line, or None (none yet: a listen stream)
        self.batch = batch
        self.pending = False    # its answer is still to come (``add_pending`` until ``fill``)
        self.dropped = False    # cancelled
        self.keyed = keyed      # a cancel may drop it (by its id: the latest of an id holds the key)



class Outbox:
    __slots__ = ("_entries", "_by_id", "size", "pending")

    def __init__(self):
        self._entries = []
        #: request id -> its entry, while a cancel may still drop it
        self._by_id = {}
        #: the bytes ready to leave
        self.size = 0
        #: entries still waiting for their answer
        self.pending = 0

    def add(self, rid, notes, reply, cancellable=False, batch=None):
        """Queue a request's notifications (bytes) and reply (bytes or None); keyed by
        ``rid`` when ``cancellable``. A later request reusing an id takes the key. Returns
        the entry."""
        entry = _Entry(rid, notes, reply, batch, cancellable)
        self._entries.append(entry)
        if batch is not None and reply is not None:
            batch.replies += 1
        self.size += _size(notes, reply, batch)
        if cancellable:
            self._by_id[rid] = entry
        return entry

    def add_pending(self, rid, cancellable=False, batch=None):
        """Hold a place for a request whose answer comes later (an entry with nothing in it
        yet); returns it for ``fill``."""
        entry = self.add(rid, b"", None, cancellable, batch)
        entry.pending = True
        self.pending += 1
        if batch is not None:
            batch.pending += 1
        return entry

    def fill(self, entry, notes, reply):
        """The answer of a pending entry; nothing is queued when it was cancelled."""
        if entry.dropped or not entry.pending:
            return
        entry.pending = False
        self.pending -= 1
        batch = entry.batch
        if batch is not None:
            batch.pending -= 1
            if reply is not None:
                batch.replies += 1
        entry.notes, entry.reply = notes, reply
        self.size += _size(notes, reply, batch)

    def push(self, data):
        """Queue bytes the server sends on its own (never cancelled)."""
        if data:
            self.add(None, data, None)

    def cancel(self, rid):
        """Drop what ``rid``'s request queued, if anything of it waits here."""
        entry = self._by_id.pop(rid, None)
        if entry is None:
            return
        self.fill(entry, b"", None)  # (a pending one: answered with nothing, it waits no more)
        entry.dropped = True
        self.size -= _size(entry.notes, entry.reply, entry.batch)
        if entry.batch is not None and entry.reply is not None:
            entry.batch.replies -= 1
        entry.notes, entry.reply = b"", None

    def take(self):
        """Everything ready, as bytes in order; what is still pending stays."""
        entries = self._entries
        if not entries:
            return b""
        if self.pending:
            entries = self._split_ready()
        else:
            self._entries = []
            self._by_id = {}
            self.size = 0
        out = []
        batch, replies = None, []
        for entry in entries:
            if entry.batch is not batch:
                _close_batch(out, replies)
                batch, replies = entry.batch, []
            if entry.notes:
                out.append(entry.notes)
            if entry.reply is not None:
                (replies if batch is not None else out).append(entry.reply)
        _close_batch(out, replies)
        return b"".join(out)

    def _split_ready(self):
        """The entries that may leave now; those that must wait (a pending one, and every
        entry of a batch not yet whole) stay, in order, still cancellable."""
        ready, kept = [], []
        for entry in self._entries:
            batch = entry.batch
            if entry.pending or (batch is not None and batch.pending):
                kept.append(entry)
            elif not entry.dropped:
                ready.append(entry)
        self._entries = kept
        # (in order, so the latest of an id holds its key again, also one that lost it to
        # a later request of the same id that has now left)
        self._by_id = {e.rid: e for e in kept if e.keyed and not e.dropped}
        # (and each batch holding a reply, its array's 2 brackets, as ``_size`` adds them with its first:
        # an entry kept outside a batch is pending, with no reply yet)
        self.size = sum(_size(e.notes, e.reply, None) for e in kept) + 2 * len({e.batch for e in kept if e.reply})
        return ready


def _close_batch(out, replies):
    """The replies of one batch as one array line (JSON-RPC 2.0 section 6)."""
    if replies:
        out.append(b"[" + b",".join(r[:-1] for r in replies) + b"]\n")
