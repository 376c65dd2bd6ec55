"""The escape journal on real files: what is appended is held across a reopen, a release drops exactly what it
names, and a torn or damaged tail is cut at load without losing the frames before it."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from agents.broker.escape_journal import FILE_NAME, EscapeJournal, frame, parse
from agents.consumer.records import Escaped, EscapeKey, TimerDelivered, Version
from agents.pop.events import Acked
from agents.pop.model import QueueKey
from tests.harness.fuzzing import fuzz

HOME = "broker-a"


def change(n: int) -> Escaped:
    if n % 3 == 0:
        return Escaped(HOME, EscapeKey(2, 7, n), Version(), TimerDelivered((n, n + 1)))
    return Escaped(HOME, EscapeKey(2, 7, n), Version(1, n), Acked(QueueKey("g", "t", n % 4), n, 5))


def test_appends_are_held_in_key_order_and_survive_a_reopen(tmp_path: Path) -> None:
    journal = EscapeJournal(tmp_path)
    assert journal.held() == [] and not (tmp_path / FILE_NAME).exists()
    journal.append([change(2), change(1)])
    journal.append([change(3)])
    assert journal.held() == [change(1), change(2), change(3)]
    assert EscapeJournal(tmp_path).held() == [change(1), change(2), change(3)]


def test_a_release_drops_what_it_names_and_the_last_one_removes_the_file(tmp_path: Path) -> None:
    journal = EscapeJournal(tmp_path)
    journal.append([change(1), change(2), change(3)])
    assert journal.release([change(2).key, EscapeKey(9, 9, 9)]) == 1
    assert journal.release([change(2).key]) == 0  # released twice: nothing more
    assert EscapeJournal(tmp_path).held() == [change(1), change(3)]
    assert journal.release([change(1).key, change(3).key]) == 2
    assert not (tmp_path / FILE_NAME).exists() and EscapeJournal(tmp_path).held() == []


def test_a_torn_tail_is_cut_at_load_and_appends_go_on_after_it(tmp_path: Path) -> None:
    journal = EscapeJournal(tmp_path)
    journal.append([change(1)])
    path = tmp_path / FILE_NAME
    sound = path.stat().st_size
    with path.open("ab") as f:
        f.write(frame([change(2)])[:-3])  # a power loss during the second append
    reopened = EscapeJournal(tmp_path)
    assert reopened.held() == [change(1)] and path.stat().st_size == sound
    reopened.append([change(4)])
    assert EscapeJournal(tmp_path).held() == [change(1), change(4)]


def test_a_damaged_frame_ends_what_is_read(tmp_path: Path) -> None:
    data = bytearray(frame([change(1)]) + frame([change(2)]) + frame([change(4)]))
    second = len(frame([change(1)]))
    data[second + 10] ^= 0xFF
    assert parse(bytes(data)) == ([change(1)], second)


@fuzz(200)
@given(st.lists(st.lists(st.integers(1, 50), min_size=1, max_size=4), max_size=5), st.data())
def test_every_prefix_of_a_journal_reads_as_its_whole_frames(appends: list[list[int]], data: st.DataObject) -> None:
    frames = [frame([change(n) for n in a]) for a in appends]
    whole = b"".join(frames)
    cut = data.draw(st.integers(0, len(whole)))
    changes, sound = parse(whole[:cut])
    ends = [sum(map(len, frames[: i + 1])) for i in range(len(frames))]
    complete = [i for i, end in enumerate(ends) if end <= cut]
    assert sound == (ends[complete[-1]] if complete else 0)
    assert changes == [change(n) for i in complete for n in appends[i]]
