from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from fake_upstream import FakeUpstream
from servers import serve_in_thread

from toolcall_middleware.config import load_serve_config
from toolcall_middleware.proxy import create_proxy_app


@contextmanager
def start_proxy(upstream_url: str | None, **settings: Any) -> Iterator[str]:
    """``toolcall serve``'s app on a free port, configured as the CLI would (no env)."""
    config = load_serve_config({"upstream": upstream_url, **settings}, env={})
    with serve_in_thread(create_proxy_app(config)) as url:
        yield url


@pytest.fixture(scope="module")
def upstream() -> Iterator[FakeUpstream]:
    app = FakeUpstream(slow_seconds=3.0)
    with serve_in_thread(app) as url:
        app.url = url
        yield app


@pytest.fixture(scope="module")
def proxy(upstream: FakeUpstream) -> Iterator[str]:
    with start_proxy(upstream.url) as url:
        yield url
