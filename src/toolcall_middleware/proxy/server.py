"""One ``toolcall serve`` process: uvicorn serving the proxy app, draining on SIGTERM.

uvicorn's own shutdown closes idle connections at once and cancels requests still running
after ``timeout_graceful_shutdown``, cutting a stream wherever it is. ``ProxyServer`` drains
first: on the first SIGTERM (or SIGINT) it stops accepting, lets ``/healthz`` say 503 on the
connections still open, waits for the requests in flight up to ``drain_timeout``, then has
``Drain.expire`` end the rest with an error event; only then does uvicorn's shutdown run, and
the process exits 0. Later SIGTERMs are ignored (a supervisor and a service manager may both
send one); a second SIGINT quits at once, as uvicorn does. A hangup (SIGHUP: the terminal
closed, an ssh session dropped) drains as SIGTERM does, where its default would kill the
process mid-stream; unless it is ignored, as ``nohup`` starts a command.
"""

from __future__ import annotations

import contextlib
import gc
import logging
import signal
import socket
import threading
import time
from collections.abc import Callable, Iterator
from types import FrameType
from typing import Any

import uvicorn

from ..config import ServeConfig
from .drain import Drain
from .front import ProxyFront
from .logs import configure_logging

log = logging.getLogger("toolcall_middleware.serve")

#: Seconds uvicorn waits, after the drain, for responses still being written (a slow client)
#: before it cancels them.
SHUTDOWN_GRACE = 5
#: Seconds a drain lasts at least, even with no request in flight: a connection accepted just
#: before the listener closed may not have sent its request yet, and uvicorn's shutdown would
#: close it unanswered. Its request is served (with ``Connection: close``) instead.
ACCEPTED_GRACE = 1.0


def drain_signals() -> list[int]:
    """The signals that begin a drain: SIGINT, SIGTERM, and SIGHUP unless it is ignored (or
    the platform has none)."""
    signals: list[int] = [signal.SIGINT, signal.SIGTERM]
    hangup = getattr(signal, "SIGHUP", None)
    if hangup is not None and signal.getsignal(hangup) is not signal.SIG_IGN:
        signals.append(hangup)
    return signals


class ProxyServer(uvicorn.Server):
    def __init__(
        self,
        config: uvicorn.Config,
        drain: Drain,
        drain_timeout: float,
        on_started: Callable[[], object] | None = None,
    ) -> None:
        super().__init__(config)
        self.drain = drain
        self.drain_timeout = drain_timeout
        self.on_started = on_started
        self.signalled = False

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        if self.started and self.on_started is not None:
            self.on_started()

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        """uvicorn's signals (SIGINT, SIGTERM), and the others of ``drain_signals``."""
        with super().capture_signals():
            main = threading.current_thread() is threading.main_thread()
            more = [sig for sig in drain_signals() if sig not in uvicorn.server.HANDLED_SIGNALS]
            previous = {sig: signal.signal(sig, self.handle_exit) for sig in more} if main else {}
            try:
                yield
            finally:
                for sig, handler in previous.items():
                    signal.signal(sig, handler)

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        if not self.signalled:
            self.signalled = True  # ``on_tick`` begins the drain, in the event loop
        elif sig == signal.SIGINT:
            super().handle_exit(sig, frame)
            self.force_exit = True

    async def on_tick(self, counter: int) -> bool:
        drain = self.drain
        if self.signalled and not drain.draining:
            drain.begin(self.drain_timeout)
            for server in self.servers:
                server.close()  # stop accepting; open connections stay, /healthz says 503
            log.info(
                "draining",
                extra={
                    "fields": {
                        "event": "draining",
                        "requests": drain.active,
                        "timeout": self.drain_timeout,
                    }
                },
            )
        if drain.draining:
            now = time.monotonic()
            idle = drain.active == 0 and now >= drain.began + ACCEPTED_GRACE
            if idle or now > drain.deadline + SHUTDOWN_GRACE:
                self.should_exit = True
            elif now >= drain.deadline and not drain.expired:
                log.warning(
                    "drain_timeout",
                    extra={"fields": {"event": "drain_timeout", "requests": drain.active}},
                )
                drain.expire()
        return await super().on_tick(counter)


def uvicorn_config(app: Any, config: ServeConfig) -> uvicorn.Config:
    s = config.settings
    return uvicorn.Config(
        app,
        host=s.host,
        port=s.port,
        log_level=s.log_level,
        log_config=None,  # uvicorn's loggers write JSON lines too (logs.configure_logging)
        access_log=False,  # the front writes the access log, with the tool-call fields
        server_header=False,  # the upstream's Server and Date headers pass through
        date_header=False,
        # The peer's address is what X-Forwarded-For gets appended; uvicorn must not replace it
        # with the last X-Forwarded-For entry (it does for loopback peers by default).
        proxy_headers=False,
        lifespan="on",
        timeout_graceful_shutdown=SHUTDOWN_GRACE,
        # h11 even where httptools is installed (uvicorn[standard]): httptools answers some
        # hostile requests (Transfer-Encoding with Content-Length) with its own bare 400 before
        # the proxy's checks, and measured no faster here (benchmarks/bench_proxy_cpu.py).
        http="h11",
    )


def serve_process(
    config: ServeConfig,
    sockets: list[socket.socket] | None = None,
    on_started: Callable[[], object] | None = None,
    app: ProxyFront | None = None,
) -> int:
    """Serve ``app`` (else one built from the resolved ``config``) until drained, on
    ``sockets`` bound by a supervisor or on the configured host and port; the process's exit
    status: 0 drained, 1 never started, 130 quit by a second Ctrl-C."""
    from .app import create_proxy_app

    configure_logging(config.settings.log_level)
    if app is None:
        app = create_proxy_app(config)
    # Move everything loaded so far out of the cyclic GC's view: a full collection then scans
    # only per-request objects instead of every module, which kept multi-ms pauses out of the
    # streams in benchmarks/load_proxy.py.
    gc.collect()
    gc.freeze()
    server = ProxyServer(
        uvicorn_config(app, config), app.drain, config.settings.drain_timeout, on_started
    )
    try:
        server.run(sockets)
    except KeyboardInterrupt:  # uvicorn raises the second SIGINT again once it stopped
        return 130
    return 0 if server.started else 1
