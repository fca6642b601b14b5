"""Errors: one root, config problems with paths, and JSON-RPC protocol errors.

``ProtocolError`` is what the session turns into a JSON-RPC error object; it is
the only exception that ever reaches the wire, and only through
``Session._answer`` (the one exception-to-error boundary).
"""

__all__ = [
    "TinyMCPError", "ConfigError", "ProtocolError", "ParseError", "InvalidRequest",
    "MethodNotFound", "InvalidParams", "InternalError", "UnsupportedProtocolVersion",
]

# JSON-RPC 2.0 section 5.1 codes; -32022 is the 2026-07-28 UnsupportedProtocolVersionError.
PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
UNSUPPORTED_PROTOCOL_VERSION = -32022


class TinyMCPError(Exception):
    """Root of every error tinymcp raises on purpose."""


class ConfigError(TinyMCPError, ValueError):
    """A config (dict or JSON file) that cannot be served.

    ``problems`` lists ``(path, message)`` pairs, every one found, in order; ``str()``
    gives one ``path: message`` line each, e.g. ``prompts[2].arguments[0].name:
    expected a string, got 3``.
    """

    def __init__(self, problems):
        if isinstance(problems, str):
            problems = [("", problems)]
        self.problems = list(problems)
        super().__init__("\n".join(
            "%s: %s" % (path, msg) if path else msg for path, msg in self.problems))


class ProtocolError(TinyMCPError):
    """An error answer for one JSON-RPC request: code, message, optional data."""

    code = INTERNAL_ERROR

    def __init__(self, message, data=None):
        super().__init__(message)
        self.message = message
        self.data = data

    def to_wire(self):
        err = {"code": self.code, "message": self.message}
        if self.data is not None:
            err["data"] = self.data
        return err


class ParseError(ProtocolError):
    code = PARSE_ERROR


class InvalidRequest(ProtocolError):
    code = INVALID_REQUEST


class MethodNotFound(ProtocolError):
    code = METHOD_NOT_FOUND


class InvalidParams(ProtocolError):
    code = INVALID_PARAMS


class InternalError(ProtocolError):
    code = INTERNAL_ERROR


class UnsupportedProtocolVersion(ProtocolError):
    code = UNSUPPORTED_PROTOCOL_VERSION


def clip(value, limit=80):
    """A bounded, printable rendering of client input for error messages."""
    text = value if isinstance(value, str) else repr(value)
    if len(text) > limit:
        text = text[:limit] + "..."
    return repr(text) if isinstance(value, str) else text
