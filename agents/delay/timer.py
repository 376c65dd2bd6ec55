"""Delayed messages as RocketMQ 5's timer stores them: the timer topic, the re-put copy, and the progress.

A send carrying ``TIMER_DELIVER_MS`` (the proxy's name for a client's ``delivery_timestamp``) is stored under
`TIMER_TOPIC`, queue 0, with its real topic and queue in ``REAL_TOPIC`` / ``REAL_QID`` (`to_timer`), unless its
time has come already, when it goes to its topic at once, as Java's ``HookUtils.checkIfTimerMessage`` decides.
When it is due, the master appends `re_put`'s copy to the real topic and a ``TimerDelivered`` record of its timer
queue offset in the same put; `OffsetProgress` is what those records rebuild (`mark`), and `due` picks what to
deliver next from it and the timer messages read so far.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from agents.consumer.progress import OffsetProgress
from agents.store.record import Message
from mqbase.codes import ResponseCode
from mqbase.metadata import SYSTEM_TOPIC_PREFIX

TIMER_TOPIC = SYSTEM_TOPIC_PREFIX + "wheel_timer"
"""Java's ``TimerMessageStore.TIMER_TOPIC``: where timer messages wait (queue 0)."""
TIMER_DELIVER_MS, TIMER_OUT_MS = "TIMER_DELIVER_MS", "TIMER_OUT_MS"
"""RocketMQ's properties: the delivery time the producer asked for, and the time the broker delivers at."""
REAL_TOPIC, REAL_QID = "REAL_TOPIC", "REAL_QID"
"""Where a timer message goes when due (RocketMQ's ``PROPERTY_REAL_TOPIC`` / ``PROPERTY_REAL_QUEUE_ID``)."""
DEFAULT_MAX_DELAY_SEC = 3 * 24 * 3600
"""Java's ``timerMaxDelaySec``: a delivery time further ahead is refused."""
BATCH = 32
"""At most this many deliveries per put: one put, one record, one replication wait for all of them."""


@dataclass(frozen=True, slots=True)
class Refusal:
    """A send the broker answers with `code` and Java's `remark` instead of storing it."""

    code: int
    remark: str


def deliver_ms(properties: Mapping[str, str]) -> int | None:
    """The delivery time a message asks for, None for an ordinary one; ValueError for one that is no number."""
    text = properties.get(TIMER_DELIVER_MS)
    if text is None:
        return None
    if not text.isascii() or not text.isdigit():
        raise ValueError(f"{TIMER_DELIVER_MS} {text!r} is not a time in ms")
    return int(text)


def to_timer(message: Message, now_ms: int, max_delay_sec: int = DEFAULT_MAX_DELAY_SEC) -> Message | Refusal:
    """What the store gets for a sent `message` (its queue already chosen): the message itself when it asks for
    no delivery time or one not after `now_ms`, its timer form when the time is ahead, a `Refusal` when the time
    is no number or further ahead than `max_delay_sec` (Java's code and remark)."""
    try:
        when = deliver_ms(message.properties)
    except ValueError as exc:
        return Refusal(ResponseCode.MESSAGE_ILLEGAL, f"timer message illegal: {exc}")
    if when is None or when <= now_ms:
        return message
    if when - now_ms > max_delay_sec * 1000:
        return Refusal(
            ResponseCode.MESSAGE_ILLEGAL,
            f"timer message illegal, the delay time should not be bigger than the max delay {max_delay_sec * 1000}ms;"
            " or if set del msg, the del msg should be valid",
        )
    properties = {
        **message.properties,
        TIMER_OUT_MS: str(when),
        REAL_TOPIC: message.topic,
        REAL_QID: str(message.queue_id),
    }
    return Message(TIMER_TOPIC, 0, message.body, properties, message.store_timestamp)


def out_ms(message: Message) -> int | None:
    """When a stored timer message is due; None for a message without a readable time (not ours: never due)."""
    text = message.properties.get(TIMER_OUT_MS, "")
    return int(text) if text.isascii() and text.isdigit() else None


def re_put(message: Message, now_ms: int) -> Message | None:
    """The copy of a due timer message its real topic gets, stored at `now_ms`: the same body and properties
    (``UNIQ_KEY`` too, so the message id stays the one the producer got) without ``REAL_TOPIC`` / ``REAL_QID``,
    as Java's ``TimerMessageStore.convertMessage`` builds it. None for a message that names no real queue."""
    properties = dict(message.properties)
    topic, queue = properties.pop(REAL_TOPIC, ""), properties.pop(REAL_QID, "")
    if not topic or not queue.isascii() or not queue.isdigit():
        return None
    return Message(topic, int(queue), message.body, properties, now_ms)


def due(progress: OffsetProgress, pending: Mapping[int, int], now_ms: int, limit: int = BATCH) -> list[int]:
    """The timer queue offsets to deliver now, earliest time first (then offset), at most `limit`: of
    `pending` (offset → due time, the timer messages read), those due at `now_ms` and not delivered yet."""
    ready = sorted((at, o) for o, at in pending.items() if at <= now_ms and not progress.done(o))
    return [o for _, o in ready[:limit]]


def next_due(progress: OffsetProgress, pending: Mapping[int, int]) -> int | None:
    """The earliest due time of `pending` not delivered yet, None when there is none (the thread's wake-up)."""
    return min((at for o, at in pending.items() if not progress.done(o)), default=None)
