"""``toolcall serve`` as a real command: its own process (and workers) on a loopback port."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
from servers import free_port


@dataclass
class Served:
    process: subprocess.Popen[str]
    url: str
    log: Path

    def stop(self, timeout: float = 30) -> int:
        """SIGTERM, then the exit status."""
        self.process.terminate()
        return self.process.wait(timeout)


@contextmanager
def serve_command(
    *args: str,
    env: dict[str, str] | None = None,
    log_dir: Path,
    ignore_hangup: bool = False,
) -> Iterator[Served]:
    """``toolcall serve --port P *args`` with ``env`` added; yields once /healthz answers.
    Its temporary files (the workers' metrics directory) go in ``log_dir`` unless ``env``
    says otherwise: a serve killed outright cannot remove them. ``ignore_hangup``: started
    with SIGHUP ignored, as ``nohup`` starts a command."""
    port = free_port()
    log = log_dir / f"serve-{port}.log"
    process = subprocess.Popen(
        [sys.executable, "-m", "toolcall_middleware.cli", "serve", "--port", str(port), *args],
        env={**os.environ, "TMPDIR": str(log_dir), **(env or {})},
        stdout=subprocess.DEVNULL,
        stderr=log.open("w"),
        text=True,
        preexec_fn=_ignore_hangup if ignore_hangup else None,
    )
    served = Served(process, f"http://127.0.0.1:{port}", log)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(served.url + "/healthz", timeout=5).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"toolcall serve did not start: {log.read_text()}")
            time.sleep(0.1)
        yield served
    finally:
        if process.poll() is None:  # a test failed: stop it as a service manager would
            process.terminate()
            try:
                process.wait(15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(10)


def _ignore_hangup() -> None:
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
