#!/usr/bin/env python3
"""A test-only Streamable HTTP front for a stdio MCP server, so that HTTP-only checkers
(the MCP conformance suite's server scenarios) can drive ``python -m tinymcp`` unchanged.

usage: python3 scripts/http_shim.py [--port N] -- COMMAND [ARG ...]

Prints ``http://127.0.0.1:PORT/mcp`` on its first line once it listens.

- Handshake era: each ``initialize`` POSTed without an ``Mcp-Session-Id`` starts COMMAND
  as a new process (one a session, as a host spawns one); its id comes back in
  ``Mcp-Session-Id``, and the session's later POSTs go to that process, one at a time.
  DELETE ends it.
- Stateless (2026-07-28: a POST without a session id that is not ``initialize``): each
  request gets a process of its own, which needs nothing from any other request, so
  concurrent clients' ids never meet. A ``subscriptions/listen`` is streamed as events
  while its process writes, until its final response or the client goes away (then the
  process's stdin is closed: the server ends the stream).
- A request's answer is the lines its process wrote up to and with its response: the
  response alone as ``application/json``, else all of them as ``text/event-stream``. A
  POSTed notification or response is answered 202 (written to a session's process; a
  stateless one has no process to go to); a batch is 400; GET is 405.

Not tinymcp (it serves no HTTP): the package and its tests never import this. Standard
library only, no limits: for local checks only.
"""

import json
import queue
import select
import socket
import subprocess
import sys
import threading
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

#: seconds to wait for the server's response to one request
REPLY_TIMEOUT = 30


class Process:
    """One spawned server: stdin written a line at a time, stdout's lines queued by a thread."""

    def __init__(self, argv):
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.lines = queue.Queue()
        self.lock = threading.Lock()  # one request in flight at a time
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.proc.stdout:
            self.lines.put(line.strip())
        self.lines.put(None)

    def send(self, message):
        self.proc.stdin.write(json.dumps(message, separators=(",", ":")).encode() + b"\n")
        self.proc.stdin.flush()

    def replies(self, message, gone=lambda: False):
        """Send request ``message``; yield each line the server writes, the last one its
        response. Stops early, closing stdin, once ``gone()`` says the client left."""
        with self.lock:
            self.send(message)
            while True:
                try:
                    line = self.lines.get(timeout=0.2)
                except queue.Empty:
                    if gone():
                        self.proc.stdin.close()
                        return
                    continue
                if line is None:
                    raise EOFError("the server closed its stdout")
                yield line
                reply = json.loads(line)
                if reply.get("id") == message["id"] and "method" not in reply:
                    return

    def close(self):
        try:
            if not self.proc.stdin.closed:
                self.proc.stdin.close()
            self.proc.wait(timeout=5)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()
            self.proc.wait()


def handler(argv, sessions):
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

        def _gone(self):
            """True once the client has closed its side of the connection."""
            try:
                readable = select.select([self.connection], [], [], 0)[0]
                return bool(readable) and not self.connection.recv(1, socket.MSG_PEEK)
            except OSError:
                return True

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
            is_request = "method" in message and "id" in message
            if sid is None and message.get("method") == "initialize":
                sid = uuid.uuid4().hex
                sessions[sid] = Process(argv)
            elif sid is None:  # stateless
                if not is_request:
                    return self._send(202)
                process = Process(argv)
                try:
                    if message.get("method") == "subscriptions/listen":
                        return self._stream(process, message)
                    return self._answer(process, message, None)
                finally:
                    process.close()
            session = sessions.get(sid)
            if session is None:
                return self._send(404, b'{"jsonrpc":"2.0","id":null,"error":{"code":-32001,'
                                       b'"message":"Session not found"}}')
            if not is_request:
                session.send(message)  # a notification or a response: nothing comes back
                return self._send(202, sid=sid)
            self._answer(session, message, sid)

        def _answer(self, process, message, sid):
            try:
                lines = list(process.replies(message))
            except (EOFError, OSError, ValueError) as exc:
                return self._send(502, json.dumps({"jsonrpc": "2.0", "id": message["id"], "error": {
                    "code": -32603, "message": "shim: %s" % exc}}).encode())
            if len(lines) == 1:
                return self._send(200, lines[0], sid=sid)
            events = b"".join(b"event: message\ndata: " + line + b"\n\n" for line in lines)
            self._send(200, events, "text/event-stream", sid)

        def _stream(self, process, message):
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.send_header("Connection", "close")
            self.end_headers()
            self.close_connection = True
            try:
                for line in process.replies(message, self._gone):
                    self.wfile.write(b"event: message\ndata: " + line + b"\n\n")
                    self.wfile.flush()
            except (EOFError, OSError, ValueError):
                pass

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
