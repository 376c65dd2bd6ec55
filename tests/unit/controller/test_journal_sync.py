"""JournalSync: a journal written since the last sync is msynced before anything is sent, once per batch."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.journal_sync import JournalSync


class File:
    """pysyncobj's ResizableFile as JournalSync sees it: writes, and a flush (its msync) that records the order."""

    def __init__(self, events: list[str]) -> None:
        self.events = events

    def write(self, offset: int, values: bytes) -> None:
        self.events.append(f"write {offset}")

    def flush(self) -> None:
        self.events.append("msync")


def test_a_send_follows_the_msync_of_everything_written_before_it_and_a_clean_journal_is_not_synced(
    tmp_path: Path,
) -> None:
    events: list[str] = []
    file = File(events)
    sync = JournalSync(file, tmp_path / "raft.snapshot")
    send = sync.before(lambda node, message: events.append(f"send {message}"))
    send("n1", "vote")  # what pysyncobj wrote while opening the journal is synced first
    file.write(40, b"a")
    file.write(60, b"b")
    send("n1", "ack")
    send("n2", "ack")
    sync.sync()
    assert events == ["msync", "send vote", "write 40", "write 60", "msync", "send ack", "send ack"]
    assert sync.syncs == 2


def test_a_failed_msync_sends_nothing_and_the_next_send_tries_again(tmp_path: Path) -> None:
    events: list[str] = []

    class Failing(File):
        fail = True

        def flush(self) -> None:
            if self.fail:
                raise OSError(5, "Input/output error")
            super().flush()

    file = Failing(events)
    sync = JournalSync(file, tmp_path / "raft.snapshot")
    send = sync.before(lambda node, message: events.append(f"send {message}"))
    with pytest.raises(OSError, match="Input/output error"):
        send("n1", "ack")
    file.fail = False
    send("n1", "ack")
    assert events == ["msync", "send ack"]


def test_a_new_snapshot_is_synced_before_the_journal(tmp_path: Path) -> None:
    events: list[str] = []
    snapshot = tmp_path / "raft.snapshot"
    sync = JournalSync(File(events), snapshot)
    sync.sync()
    snapshot.write_text("{}")  # written and renamed by pysyncobj meanwhile
    sync.sync()  # the file and the directory fsynced (no journal write: no msync)
    assert events == ["msync"]
    assert sync._snapshot_seen == sync._snapshot_id()
