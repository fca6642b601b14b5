"""What a stdio server needs: the event loop, the pump between fds and a session, worker
threads for callables, the operator's log, and the stdio transport itself."""
