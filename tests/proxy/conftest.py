from __future__ import annotations

from collections.abc import Iterator

import pytest
from fake_upstream import FakeUpstream
from servers import serve_in_thread, start_proxy


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
