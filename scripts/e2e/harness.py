"""End-to-end harness: a real client CLI against ``toolcall serve`` in front of the scripted
upstream (``upstream.py``), all on loopback, with a temporary HOME per run.

A runner per client (``codex.py``; others follow the same shape) installs the client pinned
from npm into a cache directory, writes its configuration, runs it headless through
``Stack.run`` and checks what happened: the tool ran (a file the scripted command writes) and
the final answer, which quotes the tool's output, was printed.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
CACHE = Path(os.environ.get("TOOLCALL_E2E_CACHE", ROOT / ".e2e-cache"))
MARK = "E2E_TOOL_RAN"
#: The command the scripted model asks the client to run: it leaves a file (the tool ran) and
#: prints the mark, which the final answer quotes (the output came back).
COMMAND = f"echo ok > proof.txt && echo {MARK}"
#: Model names ``provider="auto"`` maps to each markup format.
MODELS = {
    "kimi": "kimi-k2-instruct",
    "qwen3_coder": "qwen3-coder-30b",
    "hermes": "qwen2.5-72b-instruct",
    "hy3": "tencent/Hy3",
    "deepseek_v4": "deepseek-ai/DeepSeek-V4-Flash",
    "deepseek_v32": "deepseek-ai/DeepSeek-V3.2",
    "kimi_k3": "moonshotai/Kimi-K3",
    "gemma4": "google/gemma-4-31B-it",
    "glm47": "zai-org/GLM-4.7",
    "minimax_m3": "MiniMaxAI/MiniMax-M3",
    "native": "scripted-native",
}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


def npm_install(package: str, version: str) -> Path:
    """The package's directory, installed once per version under the cache."""
    return npm_install_all(f"{package.replace('/', '_')}-{version}", [f"{package}@{version}"])


def npm_install_all(name: str, specs: list[str]) -> Path:
    """``node_modules/.bin`` of the packages ``specs`` (``package@version``), installed once
    together in the cache directory ``name``."""
    prefix = CACHE / name
    binaries = prefix / "node_modules" / ".bin"
    installed = prefix / "installed"  # written once npm succeeded (some packages have no .bin)
    if not (installed.is_file() or binaries.is_dir()):
        prefix.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            [
                "npm",
                "install",
                "--no-audit",
                "--no-fund",
                "--loglevel=error",
                "--prefix",
                str(prefix),
                *specs,
            ],
            check=True,
            timeout=900,
        )
        installed.write_text("\n".join(specs))
    return binaries


def wait_until_up(url: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            with urllib.request.urlopen(url, timeout=2):
                return
        except OSError:
            if time.monotonic() > deadline:
                raise RuntimeError(f"{url} did not come up") from None
            time.sleep(0.1)


@dataclass
class Result:
    returncode: int
    stdout: str
    stderr: str
    #: The scripted command's file was there when the client exited.
    tool_ran: bool
    #: Every request body the upstream got, in order.
    requests: list[dict[str, Any]]


@dataclass
class Stack:
    """The scripted upstream and ``toolcall serve`` in front of it, on free loopback ports."""

    proxy_url: str
    upstream_log: Path
    home: Path
    workdir: Path

    def run(self, argv: list[str], env: Mapping[str, str], timeout: float = 240) -> Result:
        full_env = {
            "PATH": os.environ["PATH"],
            "HOME": str(self.home),
            "LANG": "C.UTF-8",
            "NO_COLOR": "1",
            **env,
        }
        done = subprocess.run(
            argv,
            cwd=self.workdir,
            env=full_env,
            capture_output=True,
            text=True,
            timeout=timeout,
            stdin=subprocess.DEVNULL,
        )
        requests = [json.loads(line) for line in self.upstream_log.read_text().splitlines()]
        tool_ran = (self.workdir / "proof.txt").is_file()
        return Result(done.returncode, done.stdout, done.stderr, tool_ran, requests)


@contextmanager
def stack(
    fmt: str,
    serve_env: Mapping[str, str] | None = None,
    upstream_args: Sequence[str] = (),
) -> Iterator[Stack]:
    """Start the scripted upstream writing calls in ``fmt`` (``upstream_args``: more arguments
    to ``upstream.py``) and ``toolcall serve`` before it."""
    python = sys.executable
    tmp = Path(tempfile.mkdtemp(prefix=f"toolcall-e2e-{fmt}-"))
    home, workdir = tmp / "home", tmp / "work"
    home.mkdir()
    workdir.mkdir()
    log = tmp / "upstream.jsonl"
    log.touch()
    up_port, proxy_port = free_port(), free_port()
    processes: list[subprocess.Popen[bytes]] = []
    try:
        processes.append(
            subprocess.Popen(
                [
                    python,
                    str(HERE / "upstream.py"),
                    "--port",
                    str(up_port),
                    "--format",
                    fmt,
                    "--command",
                    COMMAND,
                    "--log",
                    str(log),
                    *upstream_args,
                ],
                stdout=subprocess.DEVNULL,
                stderr=open(tmp / "upstream.err", "wb"),  # noqa: SIM115
            )
        )
        env = {**os.environ, "TOOLCALL_METRICS": "false", **(serve_env or {})}
        processes.append(
            subprocess.Popen(
                [
                    python,
                    "-m",
                    "toolcall_middleware.cli",
                    "serve",
                    "--upstream",
                    f"http://127.0.0.1:{up_port}",
                    "--port",
                    str(proxy_port),
                ],
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=open(tmp / "proxy.err", "wb"),  # noqa: SIM115
            )
        )
        proxy = f"http://127.0.0.1:{proxy_port}"
        wait_until_up(proxy + "/healthz")
        yield Stack(proxy, log, home, workdir)
    finally:
        for process in processes:
            process.terminate()
        for process in processes:
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
        if os.environ.get("TOOLCALL_E2E_KEEP"):
            print(f"kept {tmp}", file=sys.stderr)
        else:
            shutil.rmtree(tmp, ignore_errors=True)
