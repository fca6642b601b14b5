"""Optional (a vendored copy may delete this folder): many clients on one Unix socket
(``--socket``), and ``--connect``, which bridges a host's stdio to such a service."""
