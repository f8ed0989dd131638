"""What ``toolcall serve`` tells a newcomer at startup and when things are down: a port in use,
what is off and how to turn it on, readiness, and the one rule for an unreachable upstream."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

import anthropic
import httpx
import openai
import pytest
from google import genai
from google.genai import errors as genai_errors
from google.genai import types
from servers import free_port, serve_in_thread, start_proxy

from helpers import body_app
from toolcall_middleware import extras, metrics
from toolcall_middleware.config import load_serve_config
from toolcall_middleware.proxy.serve import features_off

ROOT = Path(__file__).resolve().parents[2]
VENV_PIP = Path(sys.executable).with_name("pip")


def test_a_port_in_use_is_one_line_and_exit_2_before_anything_starts() -> None:
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        port = held.getsockname()[1]
        out = subprocess.run(
            [sys.executable, "-m", "toolcall_middleware.cli", "serve", "--port", str(port)],
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert out.returncode == 2
    assert out.stderr == (
        f"toolcall: error: cannot listen on 127.0.0.1:{port}: address already in use "
        "(another program holds it? choose another with --port)\n"
    )


def test_the_install_hint_is_the_checkouts_own_install(monkeypatch: pytest.MonkeyPatch) -> None:
    assert extras.source_checkout() == ROOT
    monkeypatch.chdir(ROOT)
    shown = VENV_PIP.relative_to(ROOT) if VENV_PIP.is_relative_to(ROOT) else VENV_PIP
    assert extras.install_hint("metrics") == f"{shown} install -e '.[metrics]'"
    if VENV_PIP.is_relative_to(ROOT):  # the README's install: `.venv/bin/pip`
        assert extras.install_hint("metrics").startswith(".venv/bin/pip install")
    monkeypatch.chdir("/")
    assert extras.install_hint("metrics") == f"{VENV_PIP} install -e '{ROOT}[metrics]'"
    monkeypatch.setattr(extras, "source_checkout", lambda: None)
    assert extras.install_hint("metrics") == f"{VENV_PIP} install prometheus-client"
    assert "toolcall-middleware[" not in extras.install_hint("proxy")  # not on any index


def test_startup_says_metrics_are_off_and_how_to_turn_them_on(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(metrics, "available", lambda: False)
    off = {feature: (why, how) for feature, why, how in features_off(load_serve_config(env={}))}
    why, how = off["metrics"]
    assert "prometheus-client" in why and "/metrics goes to the upstream" in why
    assert how == extras.install_hint("metrics") and "[metrics]" in how
    on = load_serve_config(env={"TOOLCALL_ADMIN_KEY": "k"})
    monkeypatch.setattr(metrics, "available", lambda: True)
    assert features_off(on) == []


def test_readyz_asks_the_upstream_and_healthz_does_not() -> None:
    healthy = body_app([b"ok"], headers=[(b"content-type", b"text/plain")])
    with serve_in_thread(healthy) as upstream, start_proxy(upstream) as url:
        ready = httpx.get(url + "/readyz", timeout=10)
        assert ready.status_code == 200
        assert ready.json() == {
            "status": "ready",
            "upstream": {"url": upstream + "/health", "status": 200},
        }
        assert httpx.head(url + "/readyz", timeout=10).status_code == 200
    failing = body_app([b"engine dead"], status=500)
    with serve_in_thread(failing) as upstream, start_proxy(upstream) as url:
        assert httpx.get(url + "/readyz", timeout=10).json()["upstream"]["status"] == 500
    down = f"http://127.0.0.1:{free_port()}"
    with start_proxy(down, ready_path="/v1/models") as url:
        unready = httpx.get(url + "/readyz", timeout=10)
        assert httpx.get(url + "/healthz", timeout=10).status_code == 200
    assert unready.status_code == 503
    doc = unready.json()
    assert doc["status"] == "unavailable" and doc["upstream"]["url"] == down + "/v1/models"
    assert doc["upstream"]["error"].startswith("ConnectError")


def test_readyz_of_the_bundled_replay_is_ready() -> None:
    with start_proxy(None) as url:
        ready = httpx.get(url + "/readyz", timeout=10)
    assert (ready.status_code, ready.json()["status"]) == (200, "ready")


def test_an_unreachable_upstream_is_502_on_every_api_without_a_code_of_its_own() -> None:
    """Chat, Anthropic and Responses: 502 in the API's error shape; Gemini: Google's own
    UNAVAILABLE, which is 503."""
    with start_proxy(f"http://127.0.0.1:{free_port()}") as url:
        chat = openai.OpenAI(base_url=url + "/v1", api_key="k", max_retries=0)
        with pytest.raises(openai.InternalServerError) as chat_error:
            chat.chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}])
        with pytest.raises(openai.InternalServerError) as responses_error:
            chat.responses.create(model="m", input="hi")
        claude = anthropic.Anthropic(base_url=url, api_key="k", max_retries=0)
        with pytest.raises(anthropic.InternalServerError) as anthropic_error:
            claude.messages.create(
                model="m", max_tokens=10, messages=[{"role": "user", "content": "hi"}]
            )
        gemini = genai.Client(
            api_key="k",
            http_options=types.HttpOptions(
                base_url=url, retry_options=types.HttpRetryOptions(attempts=1)
            ),
        )
        with pytest.raises(genai_errors.ServerError) as gemini_error:
            gemini.models.generate_content(model="m", contents="hi")
    assert chat_error.value.status_code == 502
    assert chat_error.value.code == "upstream_unreachable"
    assert responses_error.value.status_code == 502
    assert anthropic_error.value.status_code == 502
    assert anthropic_error.value.body == {
        "type": "error",
        "error": {"type": "api_error", "message": anthropic_error.value.body["error"]["message"]},
    }
    assert "unreachable" in anthropic_error.value.body["error"]["message"]
    assert (gemini_error.value.code, gemini_error.value.status) == (503, "UNAVAILABLE")
