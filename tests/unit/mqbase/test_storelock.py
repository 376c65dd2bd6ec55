"""The one-process-per-store lock: the refusal's wording, and a lock that is held until released."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from mqbase.storelock import LOCK_FILE, StoreLock, StoreLockError, in_use_message


@pytest.mark.parametrize(
    ("text", "holder"),
    [
        ("4242\n", "pid 4242"),
        ("", "another process"),  # the holder locked it but has not written its pid yet
        ("garbage", "another process"),
        ("１２", "another process"),  # digits, but not the ASCII a pid is written in
    ],
)
def test_in_use_message_names_the_directory_and_the_holder(text: str, holder: str) -> None:
    assert in_use_message(Path("/data/store"), text) == f"store /data/store is in use by {holder}"


def test_a_second_lock_on_a_store_is_refused_until_the_first_is_released(tmp_path: Path) -> None:
    store = tmp_path / "store"  # created by the lock
    first = StoreLock.acquire(store)
    assert (store / LOCK_FILE).read_text() == f"{os.getpid()}\n"
    with pytest.raises(StoreLockError, match=f"^store {store} is in use by pid {os.getpid()}$"):
        StoreLock.acquire(store)  # flock: a second open file conflicts, even in the same process
    first.release()
    StoreLock.acquire(store).release()


def test_a_store_that_cannot_be_created_is_refused_with_the_reason(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(StoreLockError, match=f"^cannot lock store {blocker / 'store'}: "):
        StoreLock.acquire(blocker / "store")
