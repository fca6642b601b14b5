"""Errors: one root for everything tinymcp raises on purpose.

- ``ConfigError``: a config that cannot be served, with every problem and its path.
- ``ProtocolError`` and its kinds: the answer to one JSON-RPC request. The session turns
  them (and anything unexpected, as -32603) into error objects in exactly one place,
  ``Session._answer``; nothing else builds a wire error.
- ``CallbackFailed``: a ``render``/``complete`` callable failed (its ``__cause__`` says
  how); answered -32603.
- ``ListenError``: the Unix socket transport refuses a path. ``UsageError``: a bad
  command line.
"""


#: how a diagnostic shows a control or bidirectional character, as ``repr`` does: a file named
#: with ESC must not drive the terminal it is told on (tabs and line breaks stay; 8234-8238 and
#: 8294-8297 are the bidirectional embeddings, overrides and isolates, U+202A-E and U+2066-9)
SHOWN = {c: repr(chr(c))[1:-1] for c in [*range(9), *range(11, 32), 127, *range(8234, 8239), *range(8294, 8298)]}


def shown(text, indent="  "):
    """``text`` as a diagnostic tells it (``SHOWN``), each line after its first starting with a
    space (``indent`` put before one that does not): a file named with a line break cannot
    fake a line of its own in the log."""
    return text.translate(SHOWN).replace("\n", "\n" + indent).replace("\n" + indent + " ", "\n ")


class TinyMCPError(Exception):
    """Root of every error tinymcp raises on purpose."""


class ConfigError(TinyMCPError, ValueError):
    """A config (dict or JSON file) that cannot be served.

    ``problems`` lists ``(path, message)`` pairs, every one found, in order; ``str()``
    gives one ``path: message`` line each, e.g. ``prompts[2].arguments[0].name:
    expected a string, got the number 3``.
    """

    def __init__(self, problems):
        self.problems = [("", problems)] if isinstance(problems, str) else list(problems)
        super().__init__("\n".join("%s: %s" % (path, msg) if path else msg for path, msg in self.problems))


class ProtocolError(TinyMCPError):
    """An error answer for one JSON-RPC request: code, message, optional data. Each kind's
    code is JSON-RPC 2.0 section 5.1's, or -32022, 2026-07-28's UnsupportedProtocolVersionError."""

    code = -32603  # (InternalError)

    def __init__(self, message, data=None):
        super().__init__(message)
        self.message, self.data = message, data

    def to_wire(self):
        return {"code": self.code, "message": self.message} if self.data is None else {
            "code": self.code, "message": self.message, "data": self.data}


class ParseError(ProtocolError):
    code = -32700


class InvalidRequest(ProtocolError):
    code = -32600


class MethodNotFound(ProtocolError):
    code = -32601


class InvalidParams(ProtocolError):
    code = -32602


class InternalError(ProtocolError):
    """-32603, the code every ``ProtocolError`` has unless its kind says another."""


class UnsupportedProtocolVersion(ProtocolError):
    code = -32022


class CallbackFailed(TinyMCPError):
    """A ``render`` or ``complete`` callable raised or returned something unusable;
    ``__cause__`` says what."""


class ListenError(TinyMCPError):
    """Refusing to start serving on a socket path; the message says why."""


class UsageError(TinyMCPError):
    """A command line that cannot be run; the message says what is wrong."""


def cut(text, limit):
    """``text``, or its first ``limit`` characters and "..." when it is longer."""
    return text if len(text) <= limit else text[:limit] + "..."


def clip(value, limit=80):
    """A bounded, printable rendering of client input for error messages."""
    text = cut(value if isinstance(value, str) else repr(value), limit)
    return repr(text) if isinstance(value, str) else text


def line_column(text, pos):
    """``(line, column)`` of character ``pos`` of ``text``, both from 1, as editors show them."""
    return text.count("\n", 0, pos) + 1, pos - text.rfind("\n", 0, pos)


def clip_names(names, most=10, limit=40):
    """The first ``most`` of ``names``, each ``clip``-ped to ``limit``, and how many more."""
    shown = ", ".join(clip(n, limit) for n in names[:most])
    return shown + (" and %d more" % (len(names) - most) if len(names) > most else "")
