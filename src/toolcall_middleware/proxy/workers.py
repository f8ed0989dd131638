"""``toolcall serve --workers N``: N processes accepting on one port.

The command's process checks and holds the port (``listeners.py``: on Linux each worker binds
its own ``SO_REUSEPORT`` socket and the kernel spreads connections over them; elsewhere they
share the command's socket), then supervises: each worker is a fresh interpreter
(``spawn``) that receives the resolved ``ServeConfig`` itself (pickled, so flags, environment
and file resolve once and every worker runs with the same values, secrets out of the
environment) and serves every API as a single process does (``server.py``). A worker that dies
after it started is replaced; one that cannot start stops the command. SIGTERM, SIGINT or a
hangup (``server.drain_signals``) is passed on to every worker, which drains; the command exits
0 when they all did. A worker whose command is killed outright drains too.

Counters: unless the user set ``PROMETHEUS_MULTIPROC_DIR`` (then theirs is used and left), a
temporary directory is made for prometheus-client's multiprocess mode before the first worker
starts (workers import the client with the variable set) and removed at exit. Its name holds
the command's pid: a command killed outright (SIGKILL) cannot remove its directory, so the next
one removes every such directory whose command is gone.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import shutil
import signal
import sys
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from multiprocessing.process import BaseProcess
from multiprocessing.synchronize import Event
from pathlib import Path
from types import FrameType

from .. import metrics
from ..config import ServeConfig
from .listeners import Listener, bind_listener, listening_socket
from .logs import configure_logging
from .server import drain_signals, serve_process, uvicorn_config

log = logging.getLogger("toolcall_middleware.serve")

spawn = multiprocessing.get_context("spawn")
#: The name of a metrics directory ``multiprocess_metrics`` makes: this, the pid, ``-``, random.
METRICS_DIR_PREFIX = "toolcall-metrics-"


def run_worker(config: ServeConfig, listener: Listener, ready: Event) -> None:
    """A worker process's entry point."""
    threading.Thread(target=_drain_when_orphaned, daemon=True, name="parent-watch").start()
    configure_logging(config.settings.log_level)
    try:
        sock = listening_socket(listener)
    except OSError as exc:
        log.error(
            "worker_bind_failed",
            extra={"fields": {"event": "worker_bind_failed", "error": str(exc)}},
        )
        sys.exit(1)
    sys.exit(serve_process(config, [sock], on_started=ready.set))


def _drain_when_orphaned() -> None:
    """A worker whose command died without stopping it (SIGKILL) drains as on SIGTERM,
    instead of serving on alone."""
    parent = multiprocessing.parent_process()
    if parent is not None:
        parent.join()
        os.kill(os.getpid(), signal.SIGTERM)


class Worker:
    def __init__(self, config: ServeConfig, listener: Listener) -> None:
        self.ready = spawn.Event()
        self.process: BaseProcess = spawn.Process(
            target=run_worker, args=(config, listener, self.ready), name="toolcall-worker"
        )
        self.process.start()


@contextmanager
def multiprocess_metrics(config: ServeConfig) -> Iterator[None]:
    """Counters in multiprocess mode for the workers' lifetime (see the module doc)."""
    own = None
    if config.options.metrics and metrics.available() and not metrics.multiprocess():
        if os.name == "posix":  # (the test for a running pid is POSIX's)
            remove_orphan_metrics_dirs(Path(tempfile.gettempdir()))
        own = tempfile.mkdtemp(prefix=f"{METRICS_DIR_PREFIX}{os.getpid()}-")
        os.environ[metrics.MULTIPROC_ENV] = own
    try:
        yield
    finally:
        if own is not None:
            os.environ.pop(metrics.MULTIPROC_ENV, None)
            shutil.rmtree(own, ignore_errors=True)


def remove_orphan_metrics_dirs(tmp: Path) -> list[Path]:
    """Remove the metrics directories in ``tmp`` left by commands that are gone (this user's,
    named by ``multiprocess_metrics``); the directories removed."""
    removed = []
    for path in tmp.glob(f"{METRICS_DIR_PREFIX}*-*"):
        pid = path.name.removeprefix(METRICS_DIR_PREFIX).split("-", 1)[0]
        try:
            if not pid.isdigit() or path.is_symlink() or path.stat().st_uid != os.getuid():
                continue
        except OSError:
            continue  # gone meanwhile
        if not _running(int(pid)):
            shutil.rmtree(path, ignore_errors=True)
            removed.append(path)
    return removed


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # another user's
    return True


def serve_workers(config: ServeConfig) -> int:
    """Run ``config.settings.workers`` workers until a signal; the command's exit status."""
    stop = threading.Event()

    def on_signal(sig: int, frame: FrameType | None) -> None:
        stop.set()

    listener, held = bind_listener(uvicorn_config(None, config))
    previous = {sig: signal.signal(sig, on_signal) for sig in drain_signals()}
    workers: list[Worker] = []
    status = 0
    try:
        with multiprocess_metrics(config):
            try:
                for _ in range(config.settings.workers):
                    workers.append(Worker(config, listener))
                while not stop.wait(0.5):
                    status = _replace_dead(workers, config, listener)
                    if status:
                        break
            finally:
                held.close()  # the workers hold their own sockets; they close them as they drain
                for worker in workers:
                    if worker.process.is_alive() and worker.process.pid is not None:
                        os.kill(worker.process.pid, signal.SIGTERM)
                for worker in workers:
                    worker.process.join()
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    return status or (1 if any(not _stopped_well(w) for w in workers) else 0)


def _stopped_well(worker: Worker) -> bool:
    """The worker exited 0 (it drained), or the SIGTERM passed on to it came while it was
    still starting (before its own handlers: nothing was in flight)."""
    code = worker.process.exitcode
    return code == 0 or (code == -signal.SIGTERM and not worker.ready.is_set())


def _replace_dead(workers: list[Worker], config: ServeConfig, listener: Listener) -> int:
    """Replace each worker that died; non-zero: one could not start, stop them all."""
    for i, worker in enumerate(workers):
        process = worker.process
        if process.is_alive():
            continue
        if not worker.ready.is_set():
            log.error(
                "worker_failed",
                extra={
                    "fields": {
                        "event": "worker_failed",
                        "pid": process.pid,
                        "exitcode": process.exitcode,
                    }
                },
            )
            return 1
        log.warning(
            "worker_died",
            extra={
                "fields": {"event": "worker_died", "pid": process.pid, "exitcode": process.exitcode}
            },
        )
        workers[i] = Worker(config, listener)
    return 0
