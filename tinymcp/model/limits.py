"""Resource limits: every bound on what one client can make the server hold or produce.

Each is configurable (config ``limits`` object, or ``Server(..., limits={...})``) and
documented in docs/security.md. This is their one home: whoever enforces a limit reads
it from the ``Limits`` in force (``Server.config.limits``: defaults < the config's
``limits`` < ``Server(limits=...)``) at that moment, and the message quotes the value it
enforced. Past a limit the client gets -32600 (the message as a whole) or -32602 (its
params) naming the limit, and the next line is served.
"""


class Limits:
    __slots__ = ("max_line_bytes", "max_depth", "max_batch", "max_arguments",
                 "max_argument_bytes", "max_render_bytes", "max_callable_ms", "max_listen_streams",
                 "max_line_values", "max_folder_depth")

    #: name -> (default, minimum, maximum or None)
    DEFAULTS = {
        # one JSON-RPC line: room for a prompts/get whose max_argument_bytes are all
        # escaped (at most 6 bytes for each byte of UTF-8), and a bound on what reading
        # one costs
        "max_line_bytes": (8 * 1024 * 1024, 64, None),
        # JSON nesting of one message; at most 256 so that what passes always parses
        # within the interpreter's recursion limit (1000 on CPython and PyPy alike)
        "max_depth": (64, 2, 256),
        "max_batch": (100, 1, None),                     # requests in one 2025-03-26 batch
        "max_arguments": (64, 0, None),                  # arguments of one prompts/get
        "max_argument_bytes": (1024 * 1024, 0, None),    # UTF-8 bytes of all argument names and values
        # bytes on the wire (escaped) of a rendered prompt's text, data and URIs; and of a
        # batch's replies together (plus 64 KiB)
        "max_render_bytes": (8 * 1024 * 1024, 1, None),
        # milliseconds a render or complete callable may run on a worker thread (0: no limit;
        # at most a day: the loop's timer must be able to wait that long); by default a
        # minute, how long the SDK clients wait for a reply (a hung one frees its place)
        "max_callable_ms": (60000, 0, 24 * 60 * 60 * 1000),
        # subscriptions/listen streams open at once on one connection
        "max_listen_streams": (16, 1, None),
        # values and object keys in one message (what decoding it costs grows with them)
        "max_line_values": (100000, 64, None),
        # folders below a prompt folder that are read (a deeper one is a problem, not read):
        # a tree of 1,000 nested folders once took the watch walk past the recursion limit
        "max_folder_depth": (32, 0, 1000),
    }

    def __init__(self, **values):
        for name, (default, _minimum, _maximum) in self.DEFAULTS.items():
            setattr(self, name, values.pop(name, default))
        if values:
            raise TypeError("unknown limits: %s" % ", ".join(sorted(values)))

    @classmethod
    def from_wire(cls, check, obj, path):
        """Validate a ``limits`` object; returns the given values as a dict."""
        if check.obj(obj, path) is None:
            return {}
        check.keys(obj, path, tuple(cls.DEFAULTS))
        values = {name: check.bounded(obj, name, path, minimum, maximum)
                  for name, (_default, minimum, maximum) in cls.DEFAULTS.items()}
        return {name: value for name, value in values.items() if value is not None}

    def merged(self, overrides):
        """A copy with ``overrides`` (a dict; None values ignored) applied."""
        values = {name: getattr(self, name) for name in self.DEFAULTS}
        values.update({k: v for k, v in (overrides or {}).items() if v is not None})
        return Limits(**values)

