"""kill -9 against the message store: acknowledged messages survive, and a truncation is never undone.

The child (``tests/harness/store_child.py``) writes real files with real fsyncs. Killing it at random moments
covers crashes in the write, flush, segment-creation and checkpoint paths; killing it before each file-system call of a
truncation, one run per call, covers every step of the crash-safe truncation (RocketMQ #10666).
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import pytest

from agents.store.message_store import MessageStore
from tests.harness.processes import ROOT
from tests.harness.store_child import QUEUES, TOPIC, message

pytestmark = [pytest.mark.integration]

CHILD = "tests.harness.store_child"
"""Run as a module from the repository root: as a script, its folder's ``agents.py`` would shadow the package."""
SEG = 4096


def child(*args: object) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen(
        [sys.executable, "-m", CHILD, *map(str, args)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )


def all_messages(store: MessageStore) -> list[int]:
    """Confirm everything, then read every queue: the message numbers, in log order."""
    store.set_confirm_offset(store.max_offset)
    found = []
    for q in range(QUEUES):
        for queue_offset, m in store.consume(TOPIC, q, 0, 100_000):
            n = m.store_timestamp
            assert m == replace(message(n), queue_offset=n // QUEUES), f"message {n} reads back altered"
            assert queue_offset == m.queue_offset, f"message {n} is at queue offset {queue_offset}"
            found.append(n)
    return sorted(found)


def test_sigkill_while_appending_never_loses_a_flushed_message(tmp_path: Path) -> None:
    rng = random.Random(20240501)
    root = tmp_path / "store"
    acknowledged = 0
    for _ in range(20):
        proc = child("append", root, SEG)
        assert proc.stdout is not None
        first_ack = proc.stdout.readline()  # the kill lands while it writes, however long a loaded start takes
        time.sleep(rng.uniform(0.0, 0.3))
        proc.send_signal(signal.SIGKILL)
        out, err = proc.communicate(timeout=10)
        assert proc.returncode == -signal.SIGKILL, err
        for line in (first_ack + out).split("\n")[:-1]:  # the last piece is a line the kill cut short, or empty
            first, count, _ = map(int, line.split())
            acknowledged = max(acknowledged, first + count)
        with MessageStore(root, SEG) as store:
            assert store.last_message_boundary() == store.max_offset
            found = all_messages(store)
            assert found == list(range(len(found))), "a gap in the recovered messages"
            assert len(found) >= acknowledged, f"{acknowledged} acknowledged, {len(found)} recovered"
    assert acknowledged > 20, "the children wrote too little for the test to mean anything"


@pytest.fixture(scope="module")
def prepared(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[int]]:
    """A flushed store of 400 confirmed messages over several segments, and each message's end offset."""
    root = tmp_path_factory.mktemp("prepared") / "store"
    ends = []
    with MessageStore(root, SEG) as store:
        for n in range(400):
            ends.append(store.put([message(n)]).end)
        store.set_confirm_offset(store.max_offset)
    return root, ends


@pytest.mark.parametrize("seed", [1, 2])
def test_sigkill_at_every_step_of_a_truncation_never_brings_the_tail_back(
    tmp_path: Path, prepared: tuple[Path, list[int]], seed: int
) -> None:
    source, ends = prepared
    keep = random.Random(seed).randrange(50, 300)
    target = ends[keep - 1]
    truncated_from = None
    for k in range(1, 200):
        root = tmp_path / f"k{k}"
        shutil.copytree(source, root)
        proc = child("truncate", root, SEG, target, k)
        out, err = proc.communicate(timeout=10)
        finished = out.strip() == "done"
        assert finished or proc.returncode == -signal.SIGKILL, err
        with MessageStore(root, SEG) as store:
            found = all_messages(store)
            if store.max_offset == target:
                assert found == list(range(keep))
                truncated_from = truncated_from or k
            else:  # killed before the intent was durable: the truncation never happened
                assert truncated_from is None, (
                    f"kill point {k} undid the truncation completed from point {truncated_from}"
                )
                assert found == list(range(400)) and store.max_offset == ends[-1]
                store.truncate(target)  # what the HA client does when it reconnects
                assert all_messages(store) == list(range(keep))
        shutil.rmtree(root)
        if finished:
            break
    assert finished, "the truncation needs more file-system calls than the test tries"
    assert truncated_from is not None and truncated_from < k
