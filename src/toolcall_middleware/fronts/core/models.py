"""Model names: what the client asked for -> the upstream model (one rule for every front).

Keys of the map may be ``fnmatch`` patterns (``claude-*``). An exact key wins over patterns,
patterns are tried in order, and an unmatched name goes to ``default`` when one is configured
(the Gemini front needs one: its clients ask for fixed model ids), else passes as it is.
"""

from __future__ import annotations

from collections.abc import Mapping

from ...models import match_model


def map_model(model: str, model_map: Mapping[str, str], default: str | None = None) -> str:
    target = match_model(model, model_map)
    return (default or model) if target is None else target
