"""The worker processes of ``rulings serve --workers N``: uvicorn's supervisor, a listening socket per worker.

With one listening socket shared by every worker, the first worker to wake accepts a whole burst of new
connections: 50 keep-alive clients connecting at once were held 37 by one worker and 13 by the other
(bench/serve_load.py --trace: their mean latencies 130-250 ms against 48-60 ms), so most clients waited
for the busier worker while the other had time to spare. Here each worker listens on a socket of its
own, all bound to the one port with SO_REUSEPORT, and the kernel spreads new connections over them by
their addresses. Only processes of the same user can bind a port that way beside us.
"""

from __future__ import annotations

import socket

from uvicorn.supervisors.multiprocess import Multiprocess, Process


def listening_socket(host: str, port: int, shared: bool) -> socket.socket:
    """A TCP socket listening on host:port (port 0: a free one); shared: with SO_REUSEPORT, so that
    further sockets can be bound to the same port. Raises OSError when it cannot be bound."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if shared:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    try:
        sock.bind((host, port))
    except OSError:
        sock.close()
        raise
    sock.listen(2048)
    return sock


class Workers(Multiprocess):
    """uvicorn's supervisor (signals, health checks, a dead worker replaced) starting worker i on
    sockets[i] alone. A worker that replaces a dead one listens on every socket, so that no socket is
    ever left without a worker accepting on it (uvicorn starts replacements on the supervisor's list)."""

    def init_processes(self) -> None:
        for own in self.sockets[:self.processes_num]:
            process = Process(self.config, [own])
            process.start()
            self.processes.append(process)
