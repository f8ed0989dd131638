"""Instructions a script's run executes, counted by valgrind's callgrind (``count_*.py``).

Timings on a shared machine move by tens of percent; instruction counts do not, given one hash
seed for every run: with random ones a run's count moves by some 10^5-10^6 instructions (dict
layouts, the start-up's work). ``PYTHONHASHSEED`` is 0 unless the caller set it.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Mapping, Sequence

_COLLECTED = re.compile(rb"Collected : (\d+)")


def instructions(script: str, args: Sequence[str], env: Mapping[str, str] = {}) -> int:
    """What ``python script *args`` executes, in a process of its own (``env``: set too)."""
    command = [
        "valgrind",
        "--tool=callgrind",
        "--callgrind-out-file=/dev/null",
        sys.executable,
        script,
        *args,
    ]
    seed = os.environ.get("PYTHONHASHSEED", "0")
    done = subprocess.run(
        command, capture_output=True, env={**os.environ, "PYTHONHASHSEED": seed, **env}, check=True
    )
    found = _COLLECTED.search(done.stderr)
    assert found is not None, done.stderr[-2000:]
    return int(found.group(1))
