"""AutoSwitch HA replication over real sockets on loopback, with real stores on disk.

Replicas run in this process (threads); the controller is played by a small
in-test stand-in that confirms SyncStateSet proposals, so the data plane is
tested on its own (the agent issue wires the real controller).
"""

from __future__ import annotations

import errno
import os
import resource
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from functools import partial
from pathlib import Path

import pytest

from agents.ha.config import HAConfig
from agents.ha.master_service import HAMaster
from agents.ha.replica import Replica, StaleEpoch
from agents.ha.sync_state import PutStatus
from agents.store.commitlog import CommitLogError, OffsetTooSmall
from agents.store.record import Message, Scan
from tests.harness import wait as harness_wait

pytestmark = [pytest.mark.integration]

SEGMENT = 64 * 1024
FAST = HAConfig(
    batch_size=4096,
    heartbeat_interval_s=0.2,
    housekeeping_s=3.0,
    max_not_catchup_s=1.0,
    check_sync_state_set_s=0.5,
    sync_flush_timeout_s=2.0,
    reconnect_backoff_s=(0.02, 0.2),
)


wait_until = partial(harness_wait.wait_until, timeout=15.0, interval=0.02)
"""In-process replicas converge within milliseconds: poll often."""


def ha_master(replica: Replica) -> HAMaster:
    """The master side of `replica`, which the test made master."""
    assert replica.master is not None, "the replica is not master"
    return replica.master


def msg(i: int, topic: str = "TopicA") -> Message:
    return Message(topic, i % 4, f"body-{i:06d}".encode() * 8, {"KEYS": f"k{i}"}, 1_700_000_000_000 + i)


class Controller:
    """Plays the controller for SyncStateSet changes: confirms every proposal (or refuses, when told)."""

    def __init__(self) -> None:
        self.epoch = 1
        self.refuse = False
        self.master: Replica | None = None
        self.history: list[frozenset[int]] = []
        self.lock = threading.Lock()

    def on_propose(self, new_set: frozenset[int]) -> None:
        with self.lock:
            master = self.master
            if master is None or master.master is None:
                return
            if self.refuse:
                master.master.abandon()
                return
            self.epoch += 1
            self.history.append(new_set)
            master.master.confirm(new_set, self.epoch)


@pytest.fixture
def make_replica(tmp_path: Path) -> Iterator[Callable[..., Replica]]:
    made: list[Replica] = []

    def make(broker_id: int, config: HAConfig = FAST, root: Path | None = None) -> Replica:
        replica = Replica(root or tmp_path / f"b{broker_id}", broker_id, config, SEGMENT)
        made.append(replica)
        return replica

    yield make
    for replica in made:
        replica.close()


def start_master(replica: Replica, controller: Controller, epoch: int, members: frozenset[int] | None = None) -> str:
    controller.master = replica
    port = replica.change_to_master(epoch, members or frozenset({replica.broker_id}), controller.epoch,
                                    controller.on_propose)  # fmt: skip
    return f"127.0.0.1:{port}"


def test_slave_replicates_many_messages_and_joins_the_sync_state_set(make_replica: Callable[..., Replica]) -> None:
    controller = Controller()
    master, slave = make_replica(1), make_replica(2)
    address = start_master(master, controller, epoch=1)
    for i in range(0, 600, 50):
        assert master.put([msg(j) for j in range(i, i + 50)]).status is PutStatus.PUT_OK
    slave.change_to_slave(address, epoch=1)
    wait_until(lambda: slave.store.max_offset == master.store.max_offset, what="slave caught up")
    wait_until(lambda: 2 in ha_master(master).sync_state.local, what="slave in the SyncStateSet")
    end = master.store.max_offset
    assert slave.store.read(0, end) == master.store.read(0, end)
    assert [e.pairs() for e in (slave.epochs.cache, master.epochs.cache)] == [((1, 0),), ((1, 0),)]
    wait_until(lambda: slave.store.confirm_offset == end, what="slave confirm offset")
    assert len(slave.store.consume("TopicA", 0, 0, 1000)) == 150


def test_replication_works_with_descriptors_above_1024(make_replica: Callable[..., Replica]) -> None:
    """A broker holds a descriptor per consume-queue file: with a thousand queues its sockets get numbers above
    select()'s limit of 1024. The master must still accept and serve the slave (select refused such numbers with
    ValueError: the slave never got a byte)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < 2048:
        pytest.skip(f"the descriptor limit {hard} is too low to go above 1024")
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, 2048), hard))
    filler = [os.open(os.devnull, os.O_RDONLY) for _ in range(1100)]
    try:
        controller = Controller()
        master, slave = make_replica(1), make_replica(2)
        address = start_master(master, controller, epoch=1)
        assert master.put([msg(j) for j in range(40)]).status is PutStatus.PUT_OK
        slave.change_to_slave(address, epoch=1)
        wait_until(lambda: slave.store.max_offset == master.store.max_offset, what="slave caught up")
        wait_until(lambda: 2 in ha_master(master).sync_state.local, what="slave joined")
        assert master.put([msg(40)]).status is PutStatus.PUT_OK
        wait_until(lambda: slave.store.max_offset == master.store.max_offset, what="slave follows")
    finally:
        for fd in filler:
            os.close(fd)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def test_all_ack_times_out_without_the_slave_and_failover_drops_the_unconfirmed_message(
    make_replica: Callable[..., Replica],
) -> None:
    cfg = replace(FAST, all_ack_in_sync_state_set=True, max_not_catchup_s=30.0)
    controller = Controller()
    master, slave = make_replica(1, cfg), make_replica(2, cfg)
    address = start_master(master, controller, epoch=1)
    slave.change_to_slave(address, epoch=1)
    assert master.put([msg(0)]).status is PutStatus.PUT_OK
    wait_until(lambda: 2 in ha_master(master).sync_state.local, what="slave joined")
    assert master.put([msg(1)]).status is PutStatus.PUT_OK
    assert slave.store.max_offset == master.store.max_offset
    confirmed = master.store.confirm_offset
    controller.refuse = True  # the controller will not shrink the set (say it is unreachable)
    slave.close()  # the slave dies
    result = master.put([msg(2)])
    assert result.status is PutStatus.FLUSH_SLAVE_TIMEOUT
    assert master.store.confirm_offset == confirmed, "an unacknowledged message is never confirmed"
    assert len(master.store.consume("TopicA", 2, 0, 10)) == 0
    # Failover: the slave (which never got msg 2) becomes master in epoch 2; the old master rejoins.
    controller.refuse = False
    new_master = make_replica(2, cfg, root=slave.root)
    address = start_master(new_master, controller, epoch=2)
    master.change_to_slave(address, epoch=2)
    wait_until(lambda: master.store.max_offset == new_master.store.max_offset == confirmed, what="old master cut")
    assert new_master.put([msg(3)]).status is PutStatus.PUT_OK
    wait_until(lambda: master.store.max_offset == new_master.store.max_offset, what="old master follows")
    # The stream's headers told the old master where epoch 2 starts.
    assert master.epochs.cache.pairs() == ((1, 0), (2, confirmed))
    end = new_master.store.max_offset
    assert master.store.read(0, end) == new_master.store.read(0, end)


def test_a_restarted_slave_resumes_where_it_stopped(make_replica: Callable[..., Replica], tmp_path: Path) -> None:
    controller = Controller()
    master = make_replica(1)
    address = start_master(master, controller, epoch=1)
    master.put([msg(i) for i in range(100)])
    slave = make_replica(2, root=tmp_path / "slave")
    slave.change_to_slave(address, epoch=1)
    wait_until(lambda: slave.store.max_offset == master.store.max_offset, what="first catch-up")
    slave.close()
    master.put([msg(i) for i in range(100, 200)])
    again = make_replica(2, root=tmp_path / "slave")
    resumed_from = again.store.max_offset
    assert resumed_from > 0
    again.change_to_slave(address, epoch=1)
    wait_until(lambda: again.store.max_offset == master.store.max_offset, what="resumed catch-up")
    end = master.store.max_offset
    assert again.store.read(0, end) == master.store.read(0, end)


def test_a_diverged_old_master_truncates_to_the_consistent_point(make_replica: Callable[..., Replica]) -> None:
    controller = Controller()
    a, b = make_replica(1), make_replica(2)
    address_a = start_master(a, controller, epoch=1)
    a.put([msg(i) for i in range(50)])
    b.change_to_slave(address_a, epoch=1)
    wait_until(lambda: b.store.max_offset == a.store.max_offset, what="b caught up")
    common = a.store.max_offset
    b.close()  # b stops replicating; a keeps writing messages b never sees (unconfirmed with allAck)
    a.put([msg(i) for i in range(50, 80)])
    diverged_end = a.store.max_offset
    assert diverged_end > common
    # Failover: b (reopened) becomes master in epoch 2 and takes new writes; a rejoins as its slave.
    b2 = make_replica(2, root=b.root)
    address_b = start_master(b2, controller, epoch=2)
    b2.put([msg(i, "TopicB") for i in range(10)])
    a.change_to_slave(address_b, epoch=2)
    wait_until(lambda: a.store.max_offset == b2.store.max_offset, what="old master converged")
    end = b2.store.max_offset
    assert a.store.read(0, end) == b2.store.read(0, end)
    assert a.epochs.cache.pairs() == ((1, 0), (2, common))
    assert all(m.topic != "TopicA" or int(m.body[5:11]) < 50 for _, m in a.store.consume("TopicA", 1, 0, 1000))


def test_an_async_learner_replicates_but_never_joins(make_replica: Callable[..., Replica]) -> None:
    controller = Controller()
    master = make_replica(1)
    learner = make_replica(3, replace(FAST, async_learner=True))
    address = start_master(master, controller, epoch=1)
    master.put([msg(i) for i in range(30)])
    learner.change_to_slave(address, epoch=1)
    wait_until(lambda: learner.store.max_offset == master.store.max_offset, what="learner caught up")
    time.sleep(0.5)
    assert ha_master(master).sync_state.local == {1}
    assert controller.history == []


def test_an_empty_replica_added_later_catches_up(make_replica: Callable[..., Replica]) -> None:
    controller = Controller()
    master, first = make_replica(1), make_replica(2)
    address = start_master(master, controller, epoch=1)
    first.change_to_slave(address, epoch=1)
    for i in range(0, 300, 30):
        master.put([msg(j) for j in range(i, i + 30)])
    late = make_replica(3)
    late.change_to_slave(address, epoch=1)
    wait_until(lambda: late.store.max_offset == master.store.max_offset, what="late replica caught up")
    wait_until(lambda: ha_master(master).sync_state.local == {1, 2, 3}, what="all three in sync")


def test_sync_from_last_file_starts_at_the_masters_last_segment(make_replica: Callable[..., Replica]) -> None:
    controller = Controller()
    master = make_replica(1)
    address = start_master(master, controller, epoch=1)
    while master.store.max_offset < 3 * SEGMENT:
        master.put([msg(i) for i in range(100)])
    slave = make_replica(2, replace(FAST, sync_from_last_file=True))
    slave.change_to_slave(address, epoch=1)
    wait_until(lambda: slave.store.max_offset == master.store.max_offset, what="caught up from the last file")
    last_file_start = master.store.max_offset - master.store.max_offset % SEGMENT
    assert slave.store.min_offset == last_file_start
    # The replica's queues start mid-queue, numbered as on the master (the offsets travel in the records).
    wait_until(lambda: slave.store.confirm_offset == master.store.max_offset, what="slave confirmed everything")
    for q in range(4):
        first, end = slave.store.queue_range("TopicA", q)
        assert 0 < first < end == master.store.queue_range("TopicA", q)[1]
        assert slave.store.consume("TopicA", q, first, 1000) == master.store.consume("TopicA", q, first, 1000)
        with pytest.raises(OffsetTooSmall):
            slave.store.consume("TopicA", q, first - 1, 1)
    # After a failover the new master goes on numbering where the old one stopped.
    ends = [master.store.queue_range("TopicA", q)[1] for q in range(4)]
    master.close()
    start_master(slave, controller, epoch=2)
    slave.put([msg(i) for i in range(4)])
    slave.store.set_confirm_offset(slave.store.max_offset)
    assert [slave.store.consume("TopicA", q, ends[q], 10)[0][0] for q in range(4)] == ends


def test_role_changes_refuse_a_stale_epoch(make_replica: Callable[..., Replica]) -> None:
    controller = Controller()
    replica = make_replica(1)
    start_master(replica, controller, epoch=3)
    with pytest.raises(StaleEpoch):
        replica.change_to_slave("127.0.0.1:1", epoch=2)
    with pytest.raises(StaleEpoch):
        replica.change_to_master(2, frozenset({1}), 1, controller.on_propose)


def test_a_slave_refuses_writes(make_replica: Callable[..., Replica]) -> None:
    controller = Controller()
    master, slave = make_replica(1), make_replica(2)
    slave.change_to_slave(start_master(master, controller, epoch=1), epoch=1)
    assert slave.put([msg(0)]).status is PutStatus.SLAVE_NOT_AVAILABLE
    assert make_replica(3).put([msg(0)]).status is PutStatus.SERVICE_NOT_AVAILABLE


def scripted_master(frames_after_ack: Callable[[int], list[bytes]]) -> tuple[int, threading.Thread, list[str]]:
    """A one-connection master speaking the HA protocol from a script (to send what a real one never would)."""
    from agents import net
    from agents.protocol.frames import FrameReader, MasterHandshake, SlaveAck, encode

    server = net.listen("127.0.0.1", 0)
    seen: list[str] = []

    def run() -> None:
        conn = net.accept(server, 10.0)
        assert conn is not None
        reader = FrameReader("from_slave")
        try:
            handshaken = False
            while True:
                reader.feed(net.receive(conn))
                for frame in reader.frames():
                    seen.append(type(frame).__name__)
                    if not handshaken:
                        net.send_all(conn, encode(MasterHandshake(10_000, 1, ((1, 0),))))
                        handshaken = True
                    else:
                        assert isinstance(frame, SlaveAck), frame  # the slave's first frame after the handshake
                        for data in frames_after_ack(frame.max_offset):
                            net.send_all(conn, data)
                        return
        except net.ConnectionLost:
            pass
        finally:
            net.close(conn)
            net.close(server)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return server.getsockname()[1], thread, seen


def test_a_body_with_a_bad_crc_closes_the_connection_and_appends_nothing(
    make_replica: Callable[..., Replica],
) -> None:
    from agents.protocol.frames import MasterTransfer, encode
    from agents.store.record import encode as encode_record

    good = encode_record(msg(1))
    bad = bytearray(encode_record(msg(2)))
    bad[-5] ^= 0xFF
    port, thread, seen = scripted_master(lambda _ack: [encode(MasterTransfer(0, 1, 0, 0, good + bytes(bad)))])
    slave = make_replica(2)
    slave.change_to_slave(f"127.0.0.1:{port}", epoch=1)
    wait_until(lambda: "fails its CRC" in (slave.slave.last_error if slave.slave else ""), what="CRC refusal")
    thread.join(timeout=5)
    assert seen == ["SlaveHandshake", "SlaveAck"]
    assert slave.store.max_offset == 0, "nothing of the damaged batch was appended"
    assert slave.epochs.cache.pairs() == (), "not even the epoch of the refused batch was recorded"


def test_batches_received_together_are_written_up_to_a_damaged_one_and_none_after_it(
    make_replica: Callable[..., Replica],
) -> None:
    """The slave checks and writes batches on its writing thread while it receives the next: a damaged batch in
    the middle of one receive leaves exactly the batches before it in the log, in order, and none after it."""
    from agents.protocol.frames import MasterTransfer, encode
    from agents.store.record import encode as encode_record

    batches = [b"".join(encode_record(msg(i)) for i in range(k * 40, k * 40 + 40)) for k in range(4)]
    damaged = bytearray(batches[2])
    damaged[len(damaged) // 2] ^= 0x01
    sent = [batches[0], batches[1], bytes(damaged), batches[3]]
    starts = [sum(map(len, batches[:k])) for k in range(4)]
    frames = b"".join(encode(MasterTransfer(start, 1, 0, 0, body)) for start, body in zip(starts, sent, strict=True))
    port, thread, _ = scripted_master(lambda _ack: [frames])
    slave = make_replica(2)
    slave.change_to_slave(f"127.0.0.1:{port}", epoch=1)
    wait_until(lambda: "fails its CRC" in (slave.slave.last_error if slave.slave else ""), what="CRC refusal")
    thread.join(timeout=5)
    assert slave.slave is not None and "refusing replicated bytes: record at offset" in slave.slave.last_error
    assert slave.store.max_offset == starts[2], "the two batches before the damaged one, and nothing after"
    assert slave.store.read(0, starts[2]) == batches[0] + batches[1]
    assert slave.epochs.cache.pairs() == ((1, 0),)


def test_retention_trims_the_epoch_prefix_and_a_slave_below_it_is_refused_with_a_reason(
    make_replica: Callable[..., Replica], tmp_path: Path
) -> None:
    from agents.store.commitlog import OffsetTooSmall

    controller = Controller()
    master = make_replica(1)
    address = start_master(master, controller, epoch=1)
    master.put([msg(i) for i in range(100)])
    early = make_replica(2, root=tmp_path / "early")
    early.change_to_slave(address, epoch=1)
    wait_until(lambda: early.store.max_offset == master.store.max_offset, what="early slave caught up")
    early_end = early.store.max_offset
    early.close()
    while master.store.max_offset < 2 * SEGMENT:
        master.put([msg(i) for i in range(100)])
    epoch2_start = master.store.max_offset
    address = start_master(master, controller, epoch=2)
    while master.store.max_offset < 4 * SEGMENT:
        master.put([msg(i) for i in range(100)])
    assert master.epochs.cache.pairs() == ((1, 0), (2, epoch2_start))
    assert master.delete_before(3 * SEGMENT) == 3 * SEGMENT
    assert master.epochs.cache.pairs() == ((2, epoch2_start),), "epoch 1 covers only deleted segments"
    with pytest.raises(OffsetTooSmall):
        master.store.read(0, 10)
    # The early slave comes back needing bytes that no longer exist: the master now advertises only epoch 2,
    # so the slave finds no consistent point, stops with a reason for the operator and keeps what it has.
    back = make_replica(2, root=tmp_path / "early")
    back.change_to_slave(address, epoch=2)
    wait_until(lambda: "manual action needed" in (back.slave.last_error if back.slave else ""), what="refusal")
    assert back.store.max_offset == early_end
    assert back.epochs.cache.pairs() == ((1, 0),)


def test_a_replica_drops_epochs_that_start_past_its_recovered_log(make_replica: Callable[..., Replica]) -> None:
    first = make_replica(1)
    start_master(first, Controller(), epoch=1)
    first.put([msg(i) for i in range(10)])
    end = first.store.max_offset
    first.epochs.replace(first.epochs.cache.append(5, end + 500))  # as if the log lost its tail
    first.close()
    again = make_replica(1, root=first.root)
    assert again.epochs.cache.pairs() == ((1, 0),)


# --- the slave's flusher ----------------------------------------------------------------------------------


def record_flushes(monkeypatch: pytest.MonkeyPatch, replica: Replica, fail_first: int = 0) -> list[str]:
    """Wrap the replica store's flush: the names of the threads that flushed (the first `fail_first` calls fail)."""
    real, threads = replica.store.flush, []

    def flush(*, lazy: bool = False) -> None:
        threads.append(threading.current_thread().name)
        if len(threads) <= fail_first:
            raise OSError(5, "Input/output error")
        real(lazy=lazy)

    monkeypatch.setattr(replica.store, "flush", flush)
    return threads


def test_the_slave_flushes_on_its_own_thread_and_what_it_acked_becomes_durable(
    monkeypatch: pytest.MonkeyPatch, make_replica: Callable[..., Replica]
) -> None:
    from agents.store.checkpoint import Checkpoint

    controller = Controller()
    master, slave = make_replica(1), make_replica(2)
    address = start_master(master, controller, epoch=1)
    flushers = record_flushes(monkeypatch, slave)
    slave.change_to_slave(address, epoch=1)
    for i in range(0, 200, 50):
        assert master.put([msg(j) for j in range(i, i + 50)]).status is PutStatus.PUT_OK
    end = master.store.max_offset
    # The ack promises what the slave wrote (not yet fsynced, as in Java) ...
    wait_until(lambda: ha_master(master).slaves().get(2, None) is not None
               and ha_master(master).slaves()[2].ack_offset == end, what="the slave's ack")  # fmt: skip
    assert slave.store.max_offset >= end
    # ... and the flusher makes it durable shortly after, with no further traffic.
    checkpoint = Checkpoint(slave.root / "store" / "checkpoint")
    wait_until(lambda: checkpoint.load().flushed_offset == end, what="the acked bytes fsynced and checkpointed")
    assert set(flushers) == {"ha-slave-flush"}, "the receiving thread never waits for the disk"
    assert slave.store._log.flushed_offset == end
    slave.close()
    stopped = [t for t in threading.enumerate() if t.name in ("ha-slave", "ha-slave-write", "ha-slave-flush")]
    assert not stopped, "stop joins all three"


@pytest.mark.parametrize(
    "failure",
    [OSError(errno.EIO, "Input/output error"), CommitLogError("segment 0 is damaged")],
    ids=["io-error", "commit-log-error"],
)
def test_a_failed_write_closes_the_connection_and_the_batch_is_replicated_again(
    monkeypatch: pytest.MonkeyPatch, make_replica: Callable[..., Replica], failure: Exception
) -> None:
    """The writing thread's failure reaches the connection (the receiving thread does not wait for the writes),
    and the next connection sends the batch again."""
    controller = Controller()
    master, slave = make_replica(1), make_replica(2)
    address = start_master(master, controller, epoch=1)
    assert master.put([msg(j) for j in range(50)]).status is PutStatus.PUT_OK
    write = slave.store.append_replica
    failed: list[int] = []

    def fail_once(offset: int, data: bytes | memoryview, scan: Scan | None = None) -> None:
        if not failed:
            failed.append(offset)
            raise failure
        write(offset, data, scan)

    monkeypatch.setattr(slave.store, "append_replica", fail_once)
    slave.change_to_slave(address, epoch=1)
    expected = f"applying replicated bytes failed: {failure}"
    wait_until(lambda: expected in (slave.slave.last_error if slave.slave else ""),
               what="the write failure reported as the connection's end, whatever its type")  # fmt: skip
    assert master.put([msg(j) for j in range(50, 100)]).status is PutStatus.PUT_OK
    end = master.store.max_offset
    wait_until(lambda: slave.store.max_offset == end, what="replication resumed after the failure")
    assert slave.store.read(0, end) == master.store.read(0, end)
    wait_until(lambda: slave.store.queue_range("TopicA", 0) == master.store.queue_range("TopicA", 0),
               what="dispatch after the failure")  # fmt: skip


def test_a_failed_flush_closes_the_connection_with_its_reason_and_the_next_flush_retries(
    monkeypatch: pytest.MonkeyPatch, make_replica: Callable[..., Replica]
) -> None:
    from agents.store.checkpoint import Checkpoint

    controller = Controller()
    master, slave = make_replica(1), make_replica(2)
    address = start_master(master, controller, epoch=1)
    flushers = record_flushes(monkeypatch, slave, fail_first=1)
    assert master.put([msg(j) for j in range(50)]).status is PutStatus.PUT_OK
    slave.change_to_slave(address, epoch=1)
    wait_until(lambda: "flush failed: [Errno 5] Input/output error" in (slave.slave.last_error if slave.slave else ""),
               what="the flush failure reported as the connection's end")  # fmt: skip
    assert master.put([msg(j) for j in range(50, 100)]).status is PutStatus.PUT_OK
    end = master.store.max_offset
    wait_until(lambda: slave.store.max_offset == end, what="replication resumed after the failure")
    wait_until(lambda: Checkpoint(slave.root / "store" / "checkpoint").load().flushed_offset == end,
               what="a later flush made everything durable")  # fmt: skip
    assert len(flushers) >= 2
