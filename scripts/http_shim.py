#!/usr/bin/env python3
"""A test-only Streamable HTTP front for a stdio MCP server, so that HTTP-only checkers
(the MCP conformance suite's server scenarios) can drive ``python -m tinymcp`` unchanged.

usage: python3 scripts/http_shim.py [--port N] -- COMMAND [ARG ...]

Prints ``http://127.0.0.1:PORT/mcp`` on its first line once it listens. Each
``initialize`` POSTed without an ``Mcp-Session-Id`` starts COMMAND as a new process (one
process a session, as a host spawns one); its id comes back in ``Mcp-Session-Id``. Any
other POST without one (2026-07-28's stateless requests) goes to one shared process. A
POSTed request is written to that process's stdin as one line, and its stdout is read
until the response with the request's id: the response alone comes back as
``application/json``, or, when notifications came first, all of them as one
``text/event-stream``. A POSTed notification or response is written and answered 202;
a batch is 400. GET (no server-initiated stream) is 405; DELETE ends the session's
process.

Not tinymcp (it serves no HTTP): the package and its tests never import this. Standard
library only; one process per session, no limits; for local checks only.
"""

import json
import queue
import subprocess
import sys
import threading
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

#: seconds to wait for the server's response to one request
REPLY_TIMEOUT = 30


class Session:
    """One spawned server: stdin written a line at a time, stdout read by a thread."""

    def __init__(self, argv):
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.lines = queue.Queue()
        self.lock = threading.Lock()  # one request in flight at a time
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def send(self, message):
        self.proc.stdin.write(json.dumps(message, separators=(",", ":")).encode() + b"\n")
        self.proc.stdin.flush()

    def exchange(self, message):
        """The lines the server wrote up to and with the response to request ``message``."""
        with self.lock:
            self.send(message)
            out = []
            while True:
                line = self.lines.get(timeout=REPLY_TIMEOUT)
                if line is None:
                    raise EOFError("the server closed its stdout")
                out.append(line.strip())
                reply = json.loads(line)
                if reply.get("id") == message["id"] and "method" not in reply:
                    return out

    def close(self):
        try:
            self.proc.stdin.close()
            self.proc.wait(timeout=5)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()


def handler(argv, sessions):
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):  # (quiet: the checker reports)
            pass

        def _send(self, code, body=b"", kind="application/json", sid=None):
            self.send_response(code)
            if body:
                self.send_header("Content-Type", kind)
            if sid:
                self.send_header("Mcp-Session-Id", sid)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            try:
                self.wfile.write(body)
            except ConnectionError:  # (the client went away first: nothing to tell it)
                pass

        def do_GET(self):
            self._send(405)

        def do_DELETE(self):
            session = sessions.pop(self.headers.get("Mcp-Session-Id"), None)
            if session is not None:
                session.close()
            self._send(200 if session is not None else 404)

        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            try:
                message = json.loads(body)
            except ValueError:
                message = None
            if not isinstance(message, dict):  # (not JSON, or a batch: not for this shim)
                return self._send(400, b'{"jsonrpc":"2.0","id":null,"error":{"code":-32600,'
                                       b'"message":"shim: one JSON-RPC object per POST"}}')
            sid = self.headers.get("Mcp-Session-Id")
            if sid is None and message.get("method") == "initialize":
                sid = uuid.uuid4().hex
                sessions[sid] = Session(argv)
            elif sid is None:  # (stateless, 2026-07-28 on: one process serves them all)
                with lock:
                    if None not in sessions:
                        sessions[None] = Session(argv)
            session = sessions.get(sid)
            if session is None:
                return self._send(404, b'{"jsonrpc":"2.0","id":null,"error":{"code":-32001,'
                                       b'"message":"Session not found"}}')
            if "method" not in message or "id" not in message:
                session.send(message)  # a notification or a response: nothing comes back
                return self._send(202, sid=sid)
            try:
                lines = session.exchange(message)
            except (EOFError, queue.Empty, OSError, ValueError) as exc:
                return self._send(502, json.dumps({"jsonrpc": "2.0", "id": message["id"], "error": {
                    "code": -32603, "message": "shim: %s" % (str(exc) or "no reply in time")}}).encode())
            if len(lines) == 1:
                return self._send(200, lines[0], sid=sid)
            events = b"".join(b"event: message\ndata: " + line + b"\n\n" for line in lines)
            self._send(200, events, "text/event-stream", sid)

    return Handler


class Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        if not isinstance(sys.exc_info()[1], ConnectionError):  # (a client gone: not news)
            super().handle_error(request, client_address)


def main(argv):
    port = 0
    if argv[:1] == ["--port"]:
        port, argv = int(argv[1]), argv[2:]
    if argv[:1] != ["--"] or len(argv) < 2:
        sys.stderr.write(__doc__.split("\n\n")[1] + "\n")
        return 2
    sessions = {}
    server = Server(("127.0.0.1", port), handler(argv[1:], sessions))
    print("http://127.0.0.1:%d/mcp" % server.server_address[1], flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        for session in list(sessions.values()):
            session.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
