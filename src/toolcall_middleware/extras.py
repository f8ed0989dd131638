"""How to install an optional extra, said the way that works where this package runs from.

The package is installed from its source checkout (``pip install -e '.[proxy]'``), so a hint
naming ``pip install 'toolcall-middleware[metrics]'`` would send a user to a package index that
does not have it. From a checkout the hint is the checkout's own editable install with the
extra; from anywhere else, the extra's packages themselves.
"""

from __future__ import annotations

import sys
from pathlib import Path

#: The packages each optional extra adds (``pyproject.toml``), for an install without the
#: checkout at hand.
EXTRA_PACKAGES = {"metrics": "prometheus-client", "proxy": "uvicorn"}


def source_checkout() -> Path | None:
    """The checkout this package is imported from (``src/`` layout), or None."""
    package = Path(__file__).resolve().parent
    root = package.parents[1]
    if package.parent.name == "src" and (root / "pyproject.toml").is_file():
        return root
    return None


def install_hint(extra: str) -> str:
    """The command that installs ``extra`` into the running interpreter's environment: as the
    README's commands say it when run from the checkout, with full paths from elsewhere."""
    pip = Path(sys.executable).with_name("pip")
    checkout = source_checkout()
    if checkout is None:
        return f"{pip} install {EXTRA_PACKAGES[extra]}"
    if checkout != Path.cwd().resolve():
        return f"{pip} install -e '{checkout}[{extra}]'"
    try:
        shown = str(pip.relative_to(checkout))
    except ValueError:
        shown = str(pip)
    return f"{shown} install -e '.[{extra}]'"
