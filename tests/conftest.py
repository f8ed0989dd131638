from __future__ import annotations

import atexit
import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

# The Responses front keeps responses by default, in a SQLite file under the user's state
# directory: the tests (and the servers they start, which inherit this) keep theirs in a
# directory of their own, one per test process.
if "TOOLCALL_RESPONSES_STORE" not in os.environ:
    _store_dir = tempfile.mkdtemp(prefix="toolcall-tests-")
    atexit.register(shutil.rmtree, _store_dir, ignore_errors=True)
    os.environ["TOOLCALL_RESPONSES_STORE"] = f"sqlite:{Path(_store_dir) / 'responses.sqlite3'}"


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto``: one worker more than the cores. About a fifth of the suite's time is spent
    waiting (servers started in processes of their own, pauses, drains), which an extra worker
    fills: 144 s -> 125 s on 2 cores."""
    try:
        cores = len(os.sched_getaffinity(0))  # the cores this process may run on
    except AttributeError:  # not on every platform
        cores = os.cpu_count() or 1
    return cores + 1


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
