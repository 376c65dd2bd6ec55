"""A pseudo-terminal as a child's stderr, for the tests of what a command shows an operator on a terminal.

``mqadmin epochs report`` draws its progress bar only on a terminal; the local and the Spark Connect report tests
run it with a pty's child end as stderr and read what it drew from the other end.
"""

from __future__ import annotations

import os
import pty
import threading


class Terminal:
    """A pty as a child's stderr, read by a thread (a full pty would block the child) into `text`."""

    def __init__(self) -> None:
        self.main, self.child_end = pty.openpty()
        self.chunks: list[str] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        while True:
            try:
                data = os.read(self.main, 4096)
            except OSError:  # EIO: every writer has closed it
                return
            if not data:
                return
            self.chunks.append(data.decode(errors="replace"))

    @property
    def text(self) -> str:
        return "".join(self.chunks)

    def close(self) -> None:
        self._reader.join(10)
        os.close(self.main)
