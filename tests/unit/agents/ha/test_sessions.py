"""The replication sessions without sockets: handshake, truncation, batches, epochs, acks."""

from __future__ import annotations

from agents.ha.actions import Append, Close, RecordEpoch, Send, SendTransfer, SetConfirm, SlaveAcked, StartAt, Truncate
from agents.ha.master_session import MasterSession, MasterView
from agents.ha.slave_session import LocalView, SlaveSession
from agents.protocol.frames import (
    HAState,
    MasterHandshake,
    MasterTransfer,
    SlaveAck,
    SlaveHandshake,
    decode_from_master,
    decode_from_slave,
    encode,
)
from agents.store.epochs import EpochCache

SEGMENT = 1000


def cache(*pairs: tuple[int, int]) -> EpochCache:
    return EpochCache.from_pairs(pairs)


def view(epochs: EpochCache, max_offset: int, min_offset: int = 0, confirm: int = 0) -> MasterView:
    return MasterView(epochs, min_offset, max_offset, confirm, SEGMENT)


def handshaken_master(epochs: EpochCache, max_offset: int, *, from_last_file: bool = False) -> MasterSession:
    m = MasterSession(batch_size=256)
    m.on_frame(SlaveHandshake(from_last_file, False, 2), view(epochs, max_offset), now=0.0)
    return m


def transfer(action: SendTransfer) -> MasterTransfer:
    frame, _ = decode_from_master(action.header + b"x" * action.size)
    assert isinstance(frame, MasterTransfer)
    return frame


# --- slave ------------------------------------------------------------------------------------------


def test_slave_starts_with_its_handshake() -> None:
    s = SlaveSession(3, async_learner=True, sync_from_last_file=True)
    [send] = s.start(now=0.0)
    assert isinstance(send, Send)
    assert decode_from_slave(send.data)[0] == SlaveHandshake(True, True, 3)
    assert s.state == HAState.HANDSHAKE


def test_diverged_slave_truncates_to_the_consistent_point_and_reports_it() -> None:
    s = SlaveSession(2)
    s.start(0.0)
    local = LocalView(cache((1, 0)), max_offset=1000)
    actions = s.on_frame(MasterHandshake(1200, 2, ((1, 0), (2, 900))), local, now=1.0)
    assert actions[0] == Truncate(900)
    assert isinstance(actions[1], Send) and decode_from_slave(actions[1].data)[0] == SlaveAck(900)
    assert s.state == HAState.TRANSFER


def test_slave_behind_the_master_truncates_nothing() -> None:
    s = SlaveSession(2)
    s.start(0.0)
    actions = s.on_frame(MasterHandshake(1500, 1, ((1, 0),)), LocalView(cache((1, 0)), 700), now=1.0)
    assert not any(isinstance(a, Truncate) for a in actions)
    assert decode_from_slave(actions[-1].data)[0] == SlaveAck(700)  # type: ignore[union-attr]


def test_an_epoch_recorded_without_data_at_the_log_end_is_dropped_and_recorded_again() -> None:
    """The slave recorded epoch 2 at its end, then the write of the batch failed (or it crashed): the handshake
    finds the point at the log end, drops the empty entry and takes epoch 2 again from the first transfer."""
    s = SlaveSession(2)
    s.start(0.0)
    actions = s.on_frame(MasterHandshake(1500, 2, ((1, 0), (2, 700))), LocalView(cache((1, 0), (2, 700)), 700), 1.0)
    assert actions[0] == Truncate(700)
    assert decode_from_slave(actions[-1].data)[0] == SlaveAck(700)  # type: ignore[union-attr]
    batch = s.on_frame(MasterTransfer(700, 2, 700, 0, b"x" * 10), LocalView(cache((1, 0)), 700), 2.0)
    assert batch[0] == RecordEpoch(2, 700)


def test_an_empty_slave_reports_zero() -> None:
    s = SlaveSession(2)
    s.start(0.0)
    actions = s.on_frame(MasterHandshake(500, 1, ((1, 0),)), LocalView(EpochCache(), 0), now=1.0)
    assert decode_from_slave(actions[-1].data)[0] == SlaveAck(0)  # type: ignore[union-attr]


def test_no_common_epoch_closes_with_a_manual_action_message() -> None:
    s = SlaveSession(2)
    s.start(0.0)
    [close] = s.on_frame(MasterHandshake(500, 3, ((3, 100),)), LocalView(cache((1, 0)), 50), now=1.0)
    assert isinstance(close, Close) and "manual action needed" in close.reason


def test_a_transfer_before_the_handshake_closes_and_applies_nothing() -> None:
    s = SlaveSession(2)
    s.start(0.0)
    [close] = s.on_frame(MasterTransfer(0, 1, 0, 0, b"abc"), LocalView(EpochCache(), 0), now=1.0)
    assert isinstance(close, Close)


def slave_in_transfer(local: LocalView, master: MasterHandshake) -> SlaveSession:
    s = SlaveSession(2)
    s.start(0.0)
    s.on_frame(master, local, now=0.5)
    return s


def test_transfer_appends_records_new_epochs_and_caps_the_confirm_offset() -> None:
    local = LocalView(cache((1, 0)), 100)
    s = slave_in_transfer(local, MasterHandshake(300, 2, ((1, 0), (2, 200))))
    first = s.on_frame(MasterTransfer(100, 1, 0, 150, b"a" * 100), local, now=1.0)
    assert first == [Append(100, b"a" * 100), SetConfirm(150)]
    local = LocalView(cache((1, 0)), 200)
    second = s.on_frame(MasterTransfer(200, 2, 200, 900, b"b" * 50), local, now=1.1)
    assert second == [RecordEpoch(2, 200), Append(200, b"b" * 50), SetConfirm(250)]
    [ack] = s.on_tick(LocalView(cache((1, 0), (2, 200)), 250), now=1.1, heartbeat_interval_s=5.0)
    assert decode_from_slave(ack.data)[0] == SlaveAck(250)  # type: ignore[union-attr]


def test_frames_received_together_are_acknowledged_once_with_the_end_that_was_written() -> None:
    local = LocalView(cache((1, 0)), 100)
    s = slave_in_transfer(local, MasterHandshake(400, 1, ((1, 0),)))
    for offset in (100, 200, 300):
        actions = s.on_frame(MasterTransfer(offset, 1, 0, 0, b"x" * 100), LocalView(cache((1, 0)), offset), now=1.0)
        assert not any(isinstance(a, Send) for a in actions), "no ack before the frames are applied"
    [ack] = s.on_tick(LocalView(cache((1, 0)), 400), now=1.0, heartbeat_interval_s=5.0)
    assert decode_from_slave(ack.data)[0] == SlaveAck(400)  # type: ignore[union-attr]
    assert s.on_tick(LocalView(cache((1, 0)), 400), now=1.1, heartbeat_interval_s=5.0) == []


def test_transfer_at_the_wrong_offset_closes_without_appending() -> None:
    local = LocalView(cache((1, 0)), 100)
    s = slave_in_transfer(local, MasterHandshake(300, 1, ((1, 0),)))
    [close] = s.on_frame(MasterTransfer(120, 1, 0, 0, b"zz"), local, now=1.0)
    assert isinstance(close, Close) and "120" in close.reason


def test_an_empty_slave_starts_where_the_master_log_starts() -> None:
    local = LocalView(EpochCache(), 0)
    s = slave_in_transfer(local, MasterHandshake(5000, 4, ((4, 3000),)))
    actions = s.on_frame(MasterTransfer(4000, 4, 3000, 0, b"q" * 10), local, now=1.0)
    assert actions[:3] == [StartAt(4000), RecordEpoch(4, 3000), Append(4000, b"q" * 10)]


def test_slave_heartbeats_once_per_interval() -> None:
    local = LocalView(cache((1, 0)), 100)
    s = slave_in_transfer(local, MasterHandshake(100, 1, ((1, 0),)))
    assert s.on_tick(local, now=1.0, heartbeat_interval_s=5.0) == []
    assert len(s.on_tick(local, now=6.0, heartbeat_interval_s=5.0)) == 1


# --- master -----------------------------------------------------------------------------------------


def test_master_answers_the_handshake_with_its_epochs() -> None:
    m = MasterSession(batch_size=256)
    epochs = cache((1, 0), (3, 400))
    [send] = m.on_frame(SlaveHandshake(False, False, 2), view(epochs, 700), now=0.0)
    assert isinstance(send, Send)
    assert decode_from_master(send.data)[0] == MasterHandshake(700, 3, ((1, 0), (3, 400)))


def test_an_ack_before_the_handshake_closes() -> None:
    [close] = MasterSession(256).on_frame(SlaveAck(0), view(cache((1, 0)), 10), now=0.0)
    assert isinstance(close, Close)


def test_an_ack_beyond_the_master_end_closes() -> None:
    m = handshaken_master(cache((1, 0)), 100)
    [close] = m.on_frame(SlaveAck(101), view(cache((1, 0)), 100), now=1.0)
    assert isinstance(close, Close)


def test_an_empty_slave_streams_from_the_first_available_offset() -> None:
    epochs = cache((1, 2000))
    m = handshaken_master(epochs, 2600)
    m.on_frame(SlaveAck(0), view(epochs, 2600, min_offset=2000), now=1.0)
    batch = m.next_send(view(epochs, 2600, min_offset=2000), now=1.0, budget=10_000, heartbeat_interval_s=5)
    assert isinstance(batch, SendTransfer) and batch.offset == 2000


def test_sync_from_last_file_starts_at_the_last_segment() -> None:
    epochs = cache((1, 0))
    m = handshaken_master(epochs, 2600, from_last_file=True)
    m.on_frame(SlaveAck(0), view(epochs, 2600), now=1.0)
    batch = m.next_send(view(epochs, 2600), now=1.0, budget=10_000, heartbeat_interval_s=5)
    assert isinstance(batch, SendTransfer) and batch.offset == 2000


def test_batches_stop_at_epoch_and_segment_boundaries_and_at_the_batch_size() -> None:
    epochs = cache((1, 0), (2, 300), (3, 1100))
    m = handshaken_master(epochs, 1500)
    v = view(epochs, 1500, confirm=1200)
    m.on_frame(SlaveAck(100), v, now=1.0)
    sizes = []
    frames = []
    while (batch := m.next_send(v, now=1.0, budget=10_000, heartbeat_interval_s=5)) is not None:
        assert isinstance(batch, SendTransfer)
        sizes.append((batch.offset, batch.size))
        frames.append(transfer(batch))
        if batch.size == 0:
            break
    assert sizes[:6] == [(100, 200), (300, 256), (556, 256), (812, 188), (1000, 100), (1100, 256)]
    assert [(f.epoch, f.epoch_start_offset) for f in frames[:6]] == [(1, 0), (2, 300), (2, 300), (2, 300), (2, 300),
                                                                     (3, 1100)]  # fmt: skip
    assert all(f.confirm_offset == 1200 for f in frames)


def test_flow_control_budget_limits_the_batch() -> None:
    epochs = cache((1, 0))
    m = handshaken_master(epochs, 900)
    m.on_frame(SlaveAck(0), view(epochs, 900), now=1.0)
    batch = m.next_send(view(epochs, 900), now=1.0, budget=10, heartbeat_interval_s=5)
    assert isinstance(batch, SendTransfer) and batch.size == 10


def test_master_heartbeats_when_idle_and_reports_caught_up_acks() -> None:
    epochs = cache((1, 0))
    m = handshaken_master(epochs, 100)
    [acked] = m.on_frame(SlaveAck(100), view(epochs, 100), now=1.0)
    assert acked == SlaveAcked(2, 100, caught_up=True)
    assert m.next_send(view(epochs, 100), now=2.0, budget=10, heartbeat_interval_s=5) is None
    beat = m.next_send(view(epochs, 100), now=6.5, budget=10, heartbeat_interval_s=5)
    assert isinstance(beat, SendTransfer) and beat.size == 0 and transfer(beat).offset == 100


def test_a_slave_behind_retention_is_closed_with_the_reason() -> None:
    epochs = cache((1, 0))
    m = handshaken_master(epochs, 5000)
    m.on_frame(SlaveAck(100), view(epochs, 5000), now=1.0)
    close = m.next_send(view(epochs, 5000, min_offset=2000), now=1.0, budget=100, heartbeat_interval_s=5)
    assert isinstance(close, Close) and "starts at 2000" in close.reason


def test_encoded_handshake_round_trips_through_the_frames_module() -> None:
    frame = MasterHandshake(10, 1, ((1, 0),))
    assert decode_from_master(encode(frame)) == (frame, len(encode(frame)))


def test_a_master_whose_epochs_run_past_its_log_closes_the_connection() -> None:
    s = SlaveSession(2)
    s.start(0.0)
    [close] = s.on_frame(MasterHandshake(100, 2, ((1, 0), (2, 500))), LocalView(cache((1, 0)), 50), now=1.0)
    assert isinstance(close, Close) and "cannot compare epochs" in close.reason


def test_a_slave_that_has_everything_sent_so_far_is_caught_up_while_writes_continue() -> None:
    epochs = cache((1, 0))
    m = handshaken_master(epochs, 1000)
    m.on_frame(SlaveAck(0), view(epochs, 1000), now=1.0)
    while (batch := m.next_send(view(epochs, 1000), now=1.0, budget=10_000, heartbeat_interval_s=5)) is not None:
        if isinstance(batch, SendTransfer) and batch.size == 0:
            break
    # The master has written more since; the slave acks everything it was sent.
    [acked] = m.on_frame(SlaveAck(1000), view(epochs, 1300), now=2.0)
    assert acked == SlaveAcked(2, 1000, caught_up=True)
    [behind] = m.on_frame(SlaveAck(900), view(epochs, 1300), now=2.1)
    assert behind == SlaveAcked(2, 900, caught_up=False)


def test_a_first_ack_far_behind_is_not_caught_up() -> None:
    epochs = cache((1, 0))
    m = handshaken_master(epochs, 5000)
    [acked] = m.on_frame(SlaveAck(10), view(epochs, 5000), now=1.0)
    assert acked.caught_up is False  # type: ignore[union-attr]
