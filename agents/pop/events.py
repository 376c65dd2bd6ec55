"""POP's events: each change of a `QueueState`, as data a commit-log record can carry and a replica replays.

Each carries its precondition (the ticket it expects), so replaying a record twice changes nothing the second time.
"""

from __future__ import annotations

from dataclasses import dataclass

from agents.pop.model import QueueKey


@dataclass(frozen=True, slots=True)
class Delivery:
    """One message handed out: attempt 1 for a first delivery, the previous attempt + 1 for a redelivery."""

    offset: int
    ticket: int
    deadline_ms: int
    attempt: int


@dataclass(frozen=True, slots=True)
class Popped:
    """One receive: everything below `floor` is gone, the scan reached `scanned`, what was skipped and delivered.

    `skipped` are done without a delivery (filtered out, or their message is gone); `dead` were moved to the
    group's dead-letter topic and count as acked in the source. `attempt_id` is the queue's attempt id after it.
    """

    queue: QueueKey
    floor: int
    scanned: int
    skipped: tuple[int, ...]
    dead: tuple[int, ...]
    deliveries: tuple[Delivery, ...]
    attempt_id: str = ""


@dataclass(frozen=True, slots=True)
class Acked:
    """The delivery with `ticket` of the message at `offset` was acknowledged."""

    queue: QueueKey
    offset: int
    ticket: int


@dataclass(frozen=True, slots=True)
class Changed:
    """The delivery `old_ticket` of `offset` became `new_ticket`, invisible until `deadline_ms`."""

    queue: QueueKey
    offset: int
    old_ticket: int
    new_ticket: int
    deadline_ms: int


Event = Popped | Acked | Changed
