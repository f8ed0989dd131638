"""The listening sockets of ``toolcall serve --workers N``: one per worker where the kernel
balances them, else one shared by all.

One socket shared by N processes balances badly: asyncio accepts every queued connection on
each readiness wake-up, so whichever worker wakes first takes a whole burst (measured: of 60
connections opened at once, one of two workers took all 60 in 4 rounds of 10). On Linux each
worker instead binds its own socket with ``SO_REUSEPORT`` (as nginx ``reuseport`` and gunicorn
``--reuse-port`` do) and the kernel hashes each new connection to one of them.

The supervisor still checks the port first, with a plain bind that fails if anything holds it
(another program, or another ``toolcall serve`` whose own workers would otherwise join the
group silently), resolves port 0 to the one port every worker binds, and keeps a bound,
non-listening ``SO_REUSEPORT`` socket on it for its lifetime so no other program takes the
port while workers start or are replaced (a socket that does not listen gets no connections).

Trade-offs. The hash ignores load: it evens the count of connections, which is what long
streams need. Connections still queued on a worker's socket when it closes it are reset by
the kernel (Linux 5.14 and later migrates them instead with ``net.ipv4.tcp_migrate_req=1``):
when the command drains, every worker closes at once, as the shared socket is closed; a worker
that drains alone (signalled by hand) closes its socket as it begins, and new connections go
to the others; one that dies loses its queue with the connections it had accepted. Measured
with fresh connections from 8 threads while one of two workers drained, neither this nor the
shared socket lost a queued connection (17 and 12 rounds). Accepting one connection per
wake-up on a shared socket balanced bursts worse (the smaller share of 60 was 7 to 30, against
24 to 30 here), and only by shortening asyncio's accept loop through the backlog it also
passes to ``listen()`` (uvloop's accept loop does not follow it).

Where ``SO_REUSEPORT`` is missing (or does not balance: outside Linux), the checked socket is
itself the shared one, passed to every worker.
"""

from __future__ import annotations

import socket
import sys
from dataclasses import dataclass

import uvicorn

from ..config import ConfigError


@dataclass(frozen=True)
class ReusePort:
    """What a worker needs to bind its own socket in the port's ``SO_REUSEPORT`` group."""

    host: str
    port: int

    def open(self) -> socket.socket:
        """A bound socket in the group; asyncio makes it listen (uvicorn's backlog)."""
        sock = socket.socket(socket.AF_INET6 if ":" in self.host else socket.AF_INET)
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
            sock.bind((self.host, self.port))
        except BaseException:
            sock.close()
            raise
        sock.set_inheritable(True)
        return sock


#: A worker's listener: its own socket to bind, or the one socket all workers share.
Listener = ReusePort | socket.socket


class PortInUse(ConfigError):
    """The port ``toolcall serve`` was asked to listen on cannot be bound."""


def check_port(host: str, port: int) -> None:
    """Raise ``PortInUse`` if ``host:port`` cannot be bound, before anything starts: uvicorn
    would find out only after the app's startup, and log a traceback-like pair of lines.

    The same bind as uvicorn's (``SO_REUSEADDR``, no ``SO_REUSEPORT``), so a port held by
    another program, or by another ``toolcall serve``'s workers, is refused."""
    if port == 0:
        return
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
    except OSError as exc:
        reason = exc.strerror or str(exc)
        raise PortInUse(
            f"cannot listen on {host}:{port}: {reason.lower()} (another program holds it? "
            "choose another with --port)"
        ) from None
    finally:
        sock.close()


def reuse_port_balances() -> bool:
    """Linux spreads connections over a port's ``SO_REUSEPORT`` sockets; other systems that
    have the option use it otherwise (on macOS and the BSDs one socket takes them all)."""
    return sys.platform.startswith("linux") and hasattr(socket, "SO_REUSEPORT")


def bind_listener(config: uvicorn.Config) -> tuple[Listener, socket.socket]:
    """The workers' listener and the socket the supervisor keeps (close it at exit).

    The port is checked with uvicorn's own bind, which logs and exits (status 3) if it is
    taken, as a single process does."""
    checked = config.bind_socket()
    if not reuse_port_balances():
        return checked, checked
    host, port = config.host, checked.getsockname()[1]
    checked.close()
    listener = ReusePort(host, port)
    try:
        return listener, listener.open()
    except OSError:
        # A kernel without the option, or the port taken in the instant between: the shared
        # socket, whose bind reports a taken port the usual way.
        return (shared := config.bind_socket()), shared


def listening_socket(listener: Listener) -> socket.socket:
    """In a worker: the socket to serve on."""
    return listener if isinstance(listener, socket.socket) else listener.open()
