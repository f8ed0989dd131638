"""``toolcall serve``: the reverse proxy and its own front door.

``upstream`` forwards every request to the model server; ``app`` stacks the API fronts and
``ToolCallMiddleware`` on it; ``front`` answers /healthz and the operational routes and writes
the access log; ``checks`` refuses requests a proxy must not forward; ``serve`` is the command,
``logs`` its JSON log lines. ``server`` runs one process (uvicorn, draining on SIGTERM),
``workers`` supervises several on one port (``listeners`` gives each its socket); ``drain``
and ``cut`` end what a drain outlasts.
"""
