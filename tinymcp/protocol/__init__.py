"""The sans-I/O MCP core: bytes in, bytes out. JSON-RPC framing and messages, the
revision table, the connection state, the method registry, the session and its outbox."""
