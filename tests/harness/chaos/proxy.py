"""A loopback TCP proxy for fault injection: one listener per link, each passing, dropping or blackholing traffic.

Every link runs on one asyncio loop in one daemon thread. The processes under test are configured to reach
each other through these listeners (see ``cluster.py``), so a partition is a mode change here, with no root,
no iptables and nothing outside 127.0.0.0/8:

* ``PASS``: bytes flow both ways;
* ``DROP``: every open connection is reset and new ones are accepted and reset at once (a peer that is down);
* ``BLACKHOLE``: connections are accepted but nothing is forwarded, open ones stall with their bytes held
  (a silent partition: only timeouts reveal it). Going back to ``PASS`` delivers what was held, as TCP would.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Coroutine
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, TypeVar

T = TypeVar("T")
STALL_POLL_S = 0.05
CHUNK = 64 * 1024


class Mode(Enum):
    PASS = "pass"
    DROP = "drop"
    BLACKHOLE = "blackhole"


@dataclass(eq=False)
class Link:
    """One listener and the endpoint it forwards to."""

    name: str
    listen: tuple[str, int]
    target: tuple[str, int]
    mode: Mode = Mode.PASS
    writers: set[asyncio.StreamWriter] = field(default_factory=set)
    accepted: int = 0
    """Connections accepted so far: shows that the peers really talk through this link."""
    server: asyncio.Server | None = None

    @property
    def address(self) -> str:
        return f"{self.listen[0]}:{self.listen[1]}"


class ProxyHub:
    """All links of a run; thread-safe: ``add`` and ``set_mode`` may be called from any thread."""

    def __init__(self) -> None:
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="chaos-proxy", daemon=True)
        self._thread.start()
        self.links: dict[str, Link] = {}

    def _run(self, coro: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result(timeout=10)

    def add(self, name: str, listen: tuple[str, int], target: tuple[str, int]) -> Link:
        """Listen on `listen` and forward to `target`; returns the link (bound when this returns)."""
        link = Link(name, listen, target)
        self._run(self._start(link))
        self.links[name] = link
        return link

    def set_mode(self, name: str, mode: Mode) -> None:
        self._run(self._set_mode(self.links[name], mode))

    def heal_all(self) -> None:
        for name in self.links:
            self.set_mode(name, Mode.PASS)

    def close(self) -> None:
        """Close every listener and connection and stop the loop's thread."""
        if not self._thread.is_alive():
            return
        self._run(self._close_all())
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=10)
        self._loop.close()

    # --- on the loop -----------------------------------------------------------------------------

    async def _start(self, link: Link) -> None:
        async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            await self._serve(link, reader, writer)

        link.server = await asyncio.start_server(handle, link.listen[0], link.listen[1], reuse_address=True)

    async def _set_mode(self, link: Link, mode: Mode) -> None:
        link.mode = mode
        if mode is Mode.DROP:
            for writer in list(link.writers):
                writer.transport.abort()

    async def _close_all(self) -> None:
        for link in self.links.values():
            if link.server is not None:
                link.server.close()
            for writer in list(link.writers):
                writer.transport.abort()

    async def _serve(self, link: Link, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        link.writers.add(writer)
        link.accepted += 1
        upstream: asyncio.StreamWriter | None = None
        try:
            while link.mode is Mode.BLACKHOLE:  # accepted, but the peer is never reached while it lasts
                await asyncio.sleep(STALL_POLL_S)
            if link.mode is Mode.DROP:
                return
            try:
                up_reader, upstream = await asyncio.open_connection(*link.target)
            except OSError:
                return
            link.writers.add(upstream)
            await asyncio.gather(self._pump(link, reader, upstream), self._pump(link, up_reader, writer))
        finally:
            for w in (writer, upstream):
                if w is not None:
                    link.writers.discard(w)
                    w.transport.abort()

    @staticmethod
    async def _pump(link: Link, src: asyncio.StreamReader, dst: asyncio.StreamWriter) -> None:
        """Copy until either side ends; a connection ending ends both directions (no half-close)."""
        try:
            while data := await src.read(CHUNK):
                while link.mode is Mode.BLACKHOLE:
                    await asyncio.sleep(STALL_POLL_S)
                if link.mode is Mode.DROP:
                    break
                dst.write(data)
                await dst.drain()
        except (ConnectionError, OSError):
            pass
        finally:
            with contextlib.suppress(Exception):
                dst.transport.abort()
