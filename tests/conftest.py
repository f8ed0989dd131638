from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

# The Responses front keeps responses by default, in a SQLite file under the user's state
# directory: the tests (and the servers they start, which inherit this) keep theirs in a
# directory of their own, one per test process.
os.environ.setdefault(
    "TOOLCALL_RESPONSES_STORE",
    "sqlite:" + str(Path(tempfile.mkdtemp(prefix="toolcall-tests-")) / "responses.sqlite3"),
)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
