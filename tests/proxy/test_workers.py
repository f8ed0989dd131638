"""``toolcall serve --workers N`` and its drain, as real processes on loopback.

Connections are spread between workers by the kernel: a test learns which worker a kept-open
connection reached from the debug endpoint (``worker_pid``), then sends its requests there.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import anthropic
import httpx
import openai
import orjson
import pytest
from processes import serve_command

from toolcall_middleware.proxy.workers import remove_orphan_metrics_dirs

MODEL = "kimi_k2-reasoning-two-calls"  # a bundled recording with two Kimi calls
TOOLS = [{"type": "function", "function": {"name": "bash"}}]
ADMIN = {"x-admin-key": "k"}
CHAT = {
    "model": MODEL,
    "stream": True,
    "tools": TOOLS,
    "messages": [{"role": "user", "content": "Find the asm headers"}],
}


def tool_calls_total(metrics_text: str) -> float:
    return sum(
        float(line.rsplit(" ", 1)[1])
        for line in metrics_text.splitlines()
        if line.startswith("toolcall_tool_calls_total{")
    )


def connections_by_worker(url: str, workers: int, each: int) -> dict[int, list[httpx.Client]]:
    """``each`` kept-open connections to every worker, found by asking new connections."""
    found: dict[int, list[httpx.Client]] = {}
    spare: list[httpx.Client] = []
    for _ in range(200):
        client = httpx.Client(base_url=url, timeout=30)
        pid = client.get("/debug/tool-calls", headers=ADMIN).json()["worker_pid"]
        group = found.setdefault(pid, [])
        (group if len(group) < each else spare).append(client)
        if len(found) == workers and all(len(g) == each for g in found.values()):
            break
    for client in spare:
        client.close()
    return found


def running(pid: int) -> bool:
    """Not ended (a zombie has ended: it waits for its new parent to reap it)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def metrics_dirs(tmp: Path) -> list[Path]:
    return sorted(tmp.glob("toolcall-metrics-*"))


def test_two_workers_serve_concurrent_streams_and_metrics_sum_them(tmp_path: Path) -> None:
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    env = {"TOOLCALL_ADMIN_KEY": "k", "TMPDIR": str(tmp), "PROMETHEUS_MULTIPROC_DIR": ""}
    with serve_command("--workers", "2", env=env, log_dir=tmp_path) as served:
        assert len(metrics_dirs(tmp)) == 1  # made by serve for the workers' counters
        by_worker = connections_by_worker(served.url, workers=2, each=2)
        assert len(by_worker) == 2 and served.process.pid not in by_worker
        results: list[int] = []

        def stream(client: httpx.Client) -> None:
            sdk = openai.OpenAI(
                base_url=f"{served.url}/v1", api_key="x", max_retries=0, http_client=client
            )
            with sdk.chat.completions.stream(
                model=MODEL, messages=CHAT["messages"], tools=TOOLS
            ) as events:  # type: ignore[arg-type]
                final = events.get_final_completion()
            results.append(len(final.choices[0].message.tool_calls or []))

        threads = [
            threading.Thread(target=stream, args=(client,))
            for clients in by_worker.values()
            for client in clients
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(30)
        assert results == [2, 2, 2, 2]
        (counters,) = metrics_dirs(tmp)  # both workers counted calls
        assert {f"counter_{pid}.db" for pid in by_worker} <= {p.name for p in counters.iterdir()}
        for clients in by_worker.values():  # each worker's /metrics: every worker's counts
            assert tool_calls_total(clients[0].get("/metrics").text) == 8
            for client in clients:
                client.close()
        assert served.stop() == 0
    assert metrics_dirs(tmp) == []  # removed at exit


def workers_of_a_burst(url: str, count: int) -> list[int]:
    """The worker of each of ``count`` connections opened back to back before any request is
    sent: on loopback the kernel completes each handshake at once, so all are queued before a
    worker wakes, the way a burst of clients arrives."""
    host, port = url.removeprefix("http://").rsplit(":", 1)
    connections = [socket.create_connection((host, int(port)), timeout=30) for _ in range(count)]
    request = (
        b"GET /debug/tool-calls HTTP/1.1\r\nHost: t\r\nX-Admin-Key: k\r\nConnection: close\r\n\r\n"
    )
    pids = []
    for connection in connections:
        with connection:
            connection.sendall(request)
            answer = b"".join(iter(lambda c=connection: c.recv(65536), b""))  # to the close
            pids.append(orjson.loads(answer.split(b"\r\n\r\n", 1)[1])["worker_pid"])
    return pids


def test_a_burst_of_connections_is_spread_over_the_workers(tmp_path: Path) -> None:
    with serve_command(
        "--workers", "2", env={"TOOLCALL_ADMIN_KEY": "k"}, log_dir=tmp_path
    ) as served:
        for clients in connections_by_worker(served.url, workers=2, each=1).values():
            clients[0].close()  # both workers listen
        pids = workers_of_a_burst(served.url, 60)
        assert served.stop() == 0
    # Each connection goes to one worker or the other with even odds (the kernel's hash), so
    # a worker gets fewer than 15 of 60 (25%) with probability 2 * P(Binomial(60, 1/2) <= 14)
    # = 4.2e-5 (1 run in 23,700). On one socket shared by both workers, the worker that woke
    # first accepted the whole queue: fewer than 15 in 9 rounds of 10, all 60 in 4.
    assert len(pids) == 60
    assert min(pids.count(pid) for pid in set(pids)) >= 15 and len(set(pids)) == 2, pids


def test_a_port_in_use_stops_serve_and_leaves_the_running_one_alone(tmp_path: Path) -> None:
    with serve_command(
        "--workers", "2", env={"TOOLCALL_ADMIN_KEY": "k"}, log_dir=tmp_path
    ) as served:
        port = served.url.rsplit(":", 1)[1]
        pids = set(connections_by_worker(served.url, workers=2, each=1))
        # A second serve on the port would join the first's SO_REUSEPORT group unchecked.
        second = subprocess.run(
            [
                sys.executable,
                "-m",
                "toolcall_middleware.cli",
                "serve",
                "--workers",
                "2",
                "--port",
                port,
            ],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert second.returncode == 2
        assert second.stderr == (
            f"toolcall: error: cannot listen on 127.0.0.1:{port}: address already in use "
            "(another program holds it? choose another with --port)\n"
        )
        for _ in range(20):  # the first's workers still take every connection
            with httpx.Client(base_url=served.url, timeout=10) as client:
                assert client.get("/debug/tool-calls", headers=ADMIN).json()["worker_pid"] in pids
        assert served.stop() == 0


def test_port_zero_gives_every_worker_the_same_port(tmp_path: Path) -> None:
    log = tmp_path / "serve.log"
    process = subprocess.Popen(
        [sys.executable, "-m", "toolcall_middleware.cli", "serve", "--workers", "2", "--port", "0"],
        env={**os.environ, "TOOLCALL_ADMIN_KEY": "k", "TMPDIR": str(tmp_path)},
        stdout=subprocess.DEVNULL,
        stderr=log.open("w"),
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while "Uvicorn running on http://127.0.0.1:" not in (text := log.read_text()):
            assert process.poll() is None and time.monotonic() < deadline, text
            time.sleep(0.1)
        port = int(text.split("Uvicorn running on http://127.0.0.1:", 1)[1].split()[0])
        assert port != 0
        url = f"http://127.0.0.1:{port}"
        while True:  # until both workers answer
            try:
                by_worker = connections_by_worker(url, workers=2, each=1)
                break
            except httpx.TransportError:
                assert time.monotonic() < deadline
                time.sleep(0.1)
        assert len(by_worker) == 2
        for clients in by_worker.values():
            clients[0].close()
        process.terminate()
        assert process.wait(30) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(10)


def test_every_worker_runs_with_the_configuration_the_command_resolved(tmp_path: Path) -> None:
    config = tmp_path / "serve.toml"
    config.write_text('provider = "hermes"\nreplay_pace = 5.0\nadmin_key = "from-file"\n')
    env = {"TOOLCALL_REPLAY_PACE": "0", "TOOLCALL_ADMIN_KEY": "k"}  # env over the file
    with serve_command(
        "--workers",
        "2",
        "--config",
        str(config),
        "--provider",
        "kimi_k2",
        env=env,
        log_dir=tmp_path,
    ) as served:
        by_worker = connections_by_worker(served.url, workers=2, each=1)  # key "k" works
        assert len(by_worker) == 2
        for (client,) in by_worker.values():
            # Fast (not the file's 5 s per event), and both calls parsed (kimi_k2, the flag's).
            body = client.post("/v1/chat/completions", json=CHAT, timeout=4).text
            assert body.count('"type":"function"') == 2
            client.close()
        assert served.stop() == 0


def test_a_worker_that_dies_is_replaced(tmp_path: Path) -> None:
    with serve_command(
        "--workers", "2", env={"TOOLCALL_ADMIN_KEY": "k"}, log_dir=tmp_path
    ) as served:
        by_worker = connections_by_worker(served.url, workers=2, each=1)
        dead, alive = sorted(by_worker)
        for clients in by_worker.values():
            clients[0].close()
        os.kill(dead, signal.SIGKILL)
        deadline = time.monotonic() + 30
        while True:  # a new worker, beside the one that lived
            found = connections_by_worker(served.url, workers=2, each=1)
            for clients in found.values():
                clients[0].close()
            pids = set(found)
            if len(pids) == 2 and alive in pids and dead not in pids:
                break
            assert time.monotonic() < deadline, pids
            time.sleep(0.2)
        assert served.stop() == 0
    assert "worker_died" in served.log.read_text()


def test_workers_whose_command_is_killed_drain_and_exit(tmp_path: Path) -> None:
    with serve_command(
        "--workers", "2", env={"TOOLCALL_ADMIN_KEY": "k"}, log_dir=tmp_path
    ) as served:
        by_worker = connections_by_worker(served.url, workers=2, each=1)
        for (client,) in by_worker.values():
            client.close()
        served.process.kill()
        served.process.wait(10)
        deadline = time.monotonic() + 30
        try:
            while any(running(pid) for pid in by_worker):
                assert time.monotonic() < deadline, "a worker outlived its command"
                time.sleep(0.1)
        finally:
            for pid in filter(running, by_worker):
                os.kill(pid, signal.SIGKILL)
    assert served.log.read_text().count('"event":"draining"') == 2
    (orphan,) = metrics_dirs(tmp_path)  # a killed command cannot remove its own
    # The next command removes it, and its own at exit.
    with serve_command("--workers", "2", log_dir=tmp_path) as served:
        (own,) = metrics_dirs(tmp_path)
        assert own != orphan and str(served.process.pid) in own.name
        assert served.stop() == 0
    assert metrics_dirs(tmp_path) == []


def test_only_metrics_dirs_of_commands_gone_are_removed(tmp_path: Path) -> None:
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    left = tmp_path / f"toolcall-metrics-{gone.pid}-abc"
    live = tmp_path / f"toolcall-metrics-{os.getpid()}-abc"
    unnamed = tmp_path / "toolcall-metrics-xyz"  # not a name serve makes
    for path in (left, live, unnamed):
        path.mkdir()
        (path / "counter_1.db").write_bytes(b"x")
    assert remove_orphan_metrics_dirs(tmp_path) == [left]
    assert metrics_dirs(tmp_path) == sorted([live, unnamed])


def test_sigterm_lets_open_streams_finish_and_exits_zero(tmp_path: Path) -> None:
    env = {"TOOLCALL_REPLAY_PACE": "0.04"}  # the recording streams for about 1.5 s
    with (
        serve_command("--workers", "2", env=env, log_dir=tmp_path) as served,
        httpx.Client(base_url=served.url, timeout=30) as client,
        client.stream("POST", "/v1/chat/completions", json=CHAT) as response,
    ):
        lines = response.iter_lines()
        assert next(lines).startswith("data: ")
        served.process.terminate()
        rest = [line for line in lines if line]
        assert served.process.wait(30) == 0
    assert rest[-1] == "data: [DONE]"
    assert sum('"type":"function"' in line for line in rest) == 2  # both calls, whole
    assert any('"finish_reason":"tool_calls"' in line for line in rest)
    assert "drain_timeout" not in served.log.read_text()


def test_a_command_stopped_while_its_workers_start_exits_zero(tmp_path: Path) -> None:
    # ``serve_command`` yields once one worker answers: the others may still be starting, and
    # the SIGTERM passed on reaches them before their own handlers (nothing was in flight).
    with serve_command("--workers", "4", log_dir=tmp_path) as served:
        assert served.stop() == 0


@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_hangup_drains_open_streams_as_sigterm_does(tmp_path: Path, workers: str) -> None:
    # The terminal closed (or the ssh session dropped): without a handler, SIGHUP would kill
    # the process mid-stream.
    env = {"TOOLCALL_REPLAY_PACE": "0.04"}  # the recording streams for about 1.5 s
    with (
        serve_command("--workers", workers, env=env, log_dir=tmp_path) as served,
        httpx.Client(base_url=served.url, timeout=30) as client,
        client.stream("POST", "/v1/chat/completions", json=CHAT) as response,
    ):
        lines = response.iter_lines()
        assert next(lines).startswith("data: ")
        served.process.send_signal(signal.SIGHUP)
        rest = [line for line in lines if line]
        assert served.process.wait(30) == 0
    assert rest[-1] == "data: [DONE]"
    assert sum('"type":"function"' in line for line in rest) == 2  # both calls, whole
    assert '"event":"draining"' in served.log.read_text()


def test_a_hangup_is_ignored_when_the_command_was_started_ignoring_it(tmp_path: Path) -> None:
    with serve_command(log_dir=tmp_path, ignore_hangup=True) as served:
        served.process.send_signal(signal.SIGHUP)
        time.sleep(0.5)
        assert served.process.poll() is None
        assert httpx.get(served.url + "/healthz", timeout=5).status_code == 200
        assert served.stop() == 0
    assert '"event":"draining"' in served.log.read_text()  # from the SIGTERM


def test_a_connection_accepted_before_the_drain_still_gets_its_answer(tmp_path: Path) -> None:
    # The client connected (and was accepted) but had not sent its request when SIGTERM came:
    # the drain must not close that connection unanswered.
    with serve_command(log_dir=tmp_path) as served:
        port = int(served.url.rsplit(":", 1)[1])
        with socket.create_connection(("127.0.0.1", port), timeout=10) as conn:
            time.sleep(0.2)  # accepted by the server's loop
            served.process.terminate()
            time.sleep(0.3)
            conn.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            answer = b""
            while chunk := conn.recv(65536):
                answer += chunk
        assert served.process.wait(30) == 0
    head = answer.split(b"\r\n\r\n", 1)[0].lower()
    assert head.startswith(b"http/1.1 503"), answer  # draining, and said so
    assert b"connection: close" in head


def sse_events(body: bytes) -> list[bytes]:
    """The events of a stream that must end on an event boundary."""
    assert body.endswith(b"\n\n")
    return body[:-2].split(b"\n\n")


def test_streams_past_the_drain_timeout_end_with_each_apis_error_event(tmp_path: Path) -> None:
    env = {"TOOLCALL_REPLAY_PACE": "0.25"}  # about 9 s: well past the drain timeout
    bodies: dict[str, bytes] = {}
    statuses: dict[str, int] = {}
    requests = {
        "chat": ("/v1/chat/completions", CHAT),
        "anthropic": (
            "/v1/messages",
            {
                "model": MODEL,
                "max_tokens": 100,
                "stream": True,
                "messages": [{"role": "user", "content": "Find the asm headers"}],
                "tools": [{"name": "bash", "input_schema": {"type": "object"}}],
            },
        ),
        "responses": (
            "/v1/responses",
            {
                "model": MODEL,
                "stream": True,
                "input": "Find the asm headers",
                "tools": [{"type": "function", "name": "bash", "parameters": {"type": "object"}}],
            },
        ),
        "gemini": (
            f"/v1beta/models/{MODEL}:streamGenerateContent?alt=sse",
            {
                "contents": [{"role": "user", "parts": [{"text": "Find the asm headers"}]}],
                "tools": [{"functionDeclarations": [{"name": "bash"}]}],
            },
        ),
    }
    with (
        serve_command("--drain-timeout", "0.5", env=env, log_dir=tmp_path) as served,
        httpx.Client(base_url=served.url, timeout=30) as health,
    ):
        assert health.get("/healthz").status_code == 200  # a connection kept open

        streaming = {name: threading.Event() for name in requests}

        def stream(name: str) -> None:
            path, body = requests[name]
            with httpx.stream("POST", served.url + path, json=body, timeout=30) as response:
                statuses[name] = response.status_code
                parts = []
                for part in response.iter_raw():
                    streaming[name].set()
                    parts.append(part)
                bodies[name] = b"".join(parts)

        threads = [threading.Thread(target=stream, args=(name,)) for name in requests]
        for thread in threads:
            thread.start()
        for name in ("chat", "anthropic", "responses"):  # (Gemini's answer starts later)
            assert streaming[name].wait(10)
        served.process.terminate()
        deadline = time.monotonic() + 5
        while (draining := health.get("/healthz")).status_code == 200:  # same connection
            assert time.monotonic() < deadline
            time.sleep(0.05)
        assert draining.status_code == 503 and draining.json() == {"status": "draining"}
        assert draining.headers["connection"] == "close"
        with pytest.raises(httpx.ConnectError):  # no new connections
            httpx.get(served.url + "/healthz", timeout=5)
        for thread in threads:
            thread.join(30)
        assert served.process.wait(30) == 0
    chat = sse_events(bodies["chat"])
    error = orjson.loads(chat[-1].removeprefix(b"data: "))["error"]
    assert error["code"] == "server_shutting_down" and "drain timeout" in error["message"]
    assert all(orjson.loads(event.removeprefix(b"data: ")) for event in chat)
    messages = sse_events(bodies["anthropic"])
    assert messages[-1].startswith(b"event: error\ndata: ")
    assert b'"type":"overloaded_error"' in messages[-1]
    responses = sse_events(bodies["responses"])
    assert responses[-1].startswith(b"event: response.failed\ndata: ")
    # Gemini's stream ends with its bare error object, in a write of its own (as Google's own
    # mid-stream errors come); a front that had not started answering replies with it (503).
    last = bodies["gemini"].rsplit(b"\n\n", 1)[-1]
    assert orjson.loads(last)["error"]["status"] == "UNAVAILABLE"
    assert statuses["gemini"] in (200, 503)
    assert statuses["chat"] == statuses["anthropic"] == statuses["responses"] == 200
    lines = [orjson.loads(line) for line in served.log.read_text().splitlines()]
    assert any(line["event"] == "drain_timeout" for line in lines)
    # Each cut is logged as such, with the path its client used (not the upstream's).
    cuts = {line["path"]: line for line in lines if line["event"] == "cut_by_drain"}
    assert set(cuts) == {path.split("?")[0] for path, _ in requests.values()}
    assert {cuts[path]["ending"] for path in cuts if "v1beta" not in path} == {"error_event"}
    assert all(line["level"] == "warning" and line["method"] == "POST" for line in cuts.values())


def test_the_anthropic_sdk_reads_the_drain_ending_as_an_overloaded_error(
    tmp_path: Path,
) -> None:
    env = {"TOOLCALL_REPLAY_PACE": "0.25"}
    with serve_command("--drain-timeout", "0.3", env=env, log_dir=tmp_path) as served:
        client = anthropic.Anthropic(base_url=served.url, api_key="x", max_retries=0)
        with client.messages.stream(
            model=MODEL,
            max_tokens=100,
            messages=[{"role": "user", "content": "Find the asm headers"}],
            tools=[{"name": "bash", "input_schema": {"type": "object"}}],
        ) as stream:
            events = iter(stream)
            next(events)
            served.process.terminate()
            with pytest.raises(anthropic.APIStatusError) as caught:
                for _ in events:
                    pass
        assert served.process.wait(30) == 0
    assert "overloaded_error" in str(caught.value.body)


@pytest.mark.parametrize(
    ("args", "env", "message"),
    [
        (["--workers", "0"], {}, "workers must be a positive integer, not 0"),
        (["--workers", "two"], {}, "--workers must be an integer, not 'two'"),
        ([], {"TOOLCALL_WORKERS": "1.5"}, "TOOLCALL_WORKERS must be an integer"),
        (["--drain-timeout", "-1"], {}, "drain_timeout must be zero or a positive number"),
        (["--drain-timeout", "soon"], {}, "--drain-timeout must be a number, not 'soon'"),
        ([], {"TOOLCALL_DRAIN_TIMEOUT": "nan"}, "drain_timeout must be zero or a positive"),
    ],
)
def test_bad_workers_or_drain_values_stop_serve_with_one_line(
    args: list[str], env: dict[str, str], message: str
) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "toolcall_middleware.cli", "serve", *args],
        capture_output=True,
        text=True,
        timeout=60,
        env={"PATH": "", **env},
    )
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and message in result.stderr


def test_a_bad_front_option_stops_serve_before_any_worker_starts(tmp_path: Path) -> None:
    config = tmp_path / "serve.toml"
    config.write_text("[anthropic]\nnope = 1\n")
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "toolcall_middleware.cli",
            "serve",
            "--workers",
            "2",
            "--config",
            str(config),
        ],
        capture_output=True,
        text=True,
        timeout=60,
        env={"PATH": ""},
    )
    assert result.returncode == 2
    assert result.stderr == "toolcall: error: unknown [anthropic] option(s): nope\n"
