"""The Prometheus registry and HTTP endpoint each process owns (mqcontroller, mqagent): what they share.

A process-own ``CollectorRegistry``, never the global one, so several nodes can share a test process; it carries the
standard ``process_*`` collector and a ``<program>_build_info`` gauge, so a dashboard sees restarts, leaks, versions.
"""

from __future__ import annotations

import platform
import threading
from wsgiref.simple_server import WSGIServer

from prometheus_client import CollectorRegistry, Gauge, ProcessCollector, start_http_server

from mqbase import __version__


class MetricsEndpoint:
    """A process's own registry and the HTTP endpoint serving it (shared by mqcontroller and mqagent).

    `program` (``mqcontroller``, ``mqagent``) names the ``<program>_build_info`` gauge: 1, labelled with this
    package's version and the Python version, as Prometheus exporters conventionally do.
    """

    def __init__(self, program: str) -> None:
        self.registry = CollectorRegistry()
        ProcessCollector(registry=self.registry)
        build_info = Gauge(
            f"{program}_build_info", f"Always 1: the version of {program} and of the Python running it.",
            ["version", "python"], registry=self.registry,
        )  # fmt: skip
        build_info.labels(version=__version__, python=platform.python_version()).set(1)
        self._server: WSGIServer | None = None
        self._thread: threading.Thread | None = None

    def serve(self, port: int, host: str) -> tuple[WSGIServer, int]:
        """Serve ``/metrics`` on a daemon thread; returns the server and its bound port (0 picks a free one)."""
        server, thread = start_http_server(port, host, registry=self.registry)
        self._server, self._thread = server, thread
        return server, server.server_port

    def stop(self) -> None:
        """Stop the HTTP endpoint and release its port (no-op when not serving)."""
        if self._server is None:
            return
        self._server.shutdown()
        self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5.0)
        self._server = self._thread = None
