"""A controller node on its own thread and asyncio loop, for a process whose main thread is another daemon's.

``mqagent`` with ``enableControllerInAgent=true`` creates one at its entry point (``mqadmin_py/mqagent.py``) and
hands it to the agent, which starts it before its brokers and stops it after them; the agent sees only its
``start``/``stop`` (``agents.broker.agent.HostedController``), so the agent imports no controller code. The node
installs no signal handlers: the process's main thread keeps SIGTERM/SIGINT.
"""

from __future__ import annotations

import asyncio
import logging
import threading

from controller.config import ControllerConfig
from controller.daemon import ControllerNode, GrpcBindError, MetricsBindError
from controller.raft import RaftStartError
from mqbase.errors import MqBaseError
from mqbase.storelock import StoreLockError

log = logging.getLogger(__name__)

START_S = 30.0
STOP_S = 30.0


class ControllerStartError(MqBaseError, RuntimeError):
    """The embedded node does not serve: its message is the line the host's start ends with."""


class EmbeddedController:
    """A controller node on its own thread and asyncio loop, without signal handlers (see the module docstring)."""

    def __init__(self, config: ControllerConfig) -> None:
        self.config = config
        self._node: ControllerNode | None = None
        self._ready = threading.Event()
        self._error: Exception | None = None
        self._thread = threading.Thread(target=self._run, name="embedded-controller", daemon=True)

    def start(self) -> None:
        """Start the node; returns once its gRPC port serves (ControllerStartError when it cannot start)."""
        self._thread.start()
        if not self._ready.wait(START_S):
            raise ControllerStartError(f"embedded controller not serving within {START_S:g} s")
        if self._error is not None:
            raise ControllerStartError(f"embedded controller: {self._error}") from self._error

    def stop(self) -> None:
        """Shut the node down in its usual order (``ControllerNode.serve``) and wait for it."""
        if self._node is not None:
            self._node.stop()
        if self._thread.is_alive():
            self._thread.join(STOP_S)

    def _run(self) -> None:
        try:
            # Built on this thread: pysyncobj's tick thread lives as long as the thread that built it.
            self._node = node = ControllerNode(self.config)
            try:
                asyncio.run(node.serve(lambda _port: self._ready.set(), handle_signals=False))
            except (GrpcBindError, MetricsBindError):
                node.destroy()
                raise
        except (RaftStartError, StoreLockError, GrpcBindError, MetricsBindError) as exc:
            self._error = exc
        except Exception as exc:
            log.exception("embedded controller failed")
            self._error = exc
        finally:
            self._ready.set()
