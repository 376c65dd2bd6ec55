"""The retention policy (``agents.ha.retention``): Java's CleanCommitLogService rules plus our floors, table-driven
with the clock passed in."""

from __future__ import annotations

import pytest

from agents.ha.retention import (
    HOUR_MS,
    Floors,
    Plan,
    Policy,
    Reason,
    Segment,
    parse_delete_when,
    plan,
    reason_for,
    slave_floor,
)

SIZE = 1000
NOW = 1_000 * HOUR_MS
"""The clock: 1000 h after the epoch. Segments are aged relative to it."""
OPEN = Floors(confirm=10**9)
"""No floor in the way."""


def segments(*ages_h: float) -> list[Segment]:
    """Segments [i*SIZE, (i+1)*SIZE), the i-th last written `ages_h[i]` hours before NOW."""
    return [Segment(i * SIZE, (i + 1) * SIZE, NOW - int(age * HOUR_MS)) for i, age in enumerate(ages_h)]


def starts(p: Plan) -> list[int]:
    return [s.start for s in p.segments]


@pytest.mark.parametrize(
    ("hour", "disk", "policy", "expected"),
    [
        (4, 0.10, Policy(), (Reason.EXPIRED, False)),  # the deleteWhen hour
        (5, 0.10, Policy(), (None, False)),  # outside it, a roomy disk: nothing
        (5, 0.75, Policy(), (None, False)),  # at the ratio is not above it
        (5, 0.76, Policy(), (Reason.DISK_FULL, False)),  # above diskMaxUsedSpaceRatio: any hour, expired only
        (5, 0.86, Policy(), (Reason.FORCED, True)),  # above diskSpaceCleanForciblyRatio: whatever the age
        (4, 0.91, Policy(), (Reason.FORCED, True)),  # above the warning level too
        (5, 0.86, Policy(clean_file_forcibly_enable=False), (Reason.DISK_FULL, False)),
        (5, 0.50, Policy(disk_max_used_space_ratio=40), (Reason.DISK_FULL, False)),
        (5, 0.50, Policy(disk_space_warning_level_ratio=45), (Reason.FORCED, True)),  # the lower one counts
        (13, 0.10, Policy(delete_when=frozenset({1, 13})), (Reason.EXPIRED, False)),
    ],
)
def test_why_a_run_deletes(hour: int, disk: float, policy: Policy, expected: tuple[Reason | None, bool]) -> None:
    assert reason_for(policy, hour, disk) == expected


@pytest.mark.parametrize(
    ("ages_h", "hour", "disk", "policy", "floors", "expected", "held_by"),
    [
        # Expired at the deleteWhen hour; the last segment (being written) is never deleted, however old.
        ((100, 80, 73, 200), 4, 0.1, Policy(), OPEN, [0, 1000, 2000], None),
        # Exactly fileReservedTime old is expired (Java: now >= lastModified + reserved).
        ((72, 71.9, 0), 4, 0.1, Policy(), OPEN, [0], None),
        # Stops at the first live segment: no holes, even when older ones follow.
        ((100, 10, 100, 0), 4, 0.1, Policy(), OPEN, [0], None),
        # Outside the deleteWhen hours on a roomy disk: nothing.
        ((100, 100, 0), 5, 0.1, Policy(), OPEN, [], None),
        # A fuller disk deletes expired segments at any hour, but not live ones.
        ((100, 10, 0), 5, 0.8, Policy(), OPEN, [0], None),
        # Forced: every segment but the last, whatever its age.
        ((1, 1, 1, 0), 5, 0.9, Policy(), OPEN, [0, 1000, 2000], None),
        # Forced, but forcing disabled: expired ones only.
        ((100, 1, 0), 5, 0.9, Policy(clean_file_forcibly_enable=False), OPEN, [0], None),
        # At most deleteFileBatchMax per run.
        ((100, 100, 100, 100, 0), 4, 0.1, Policy(delete_file_batch_max=2), OPEN, [0, 1000], None),
        # fileReservedTime=0: every finished segment has expired.
        ((0, 0, 0), 4, 0.1, Policy(file_reserved_time_h=0), OPEN, [0, 1000], None),
        # The confirmOffset: a segment ending above it stays.
        ((100, 100, 100, 0), 4, 0.1, Policy(), Floors(confirm=2500), [0, 1000], "confirmOffset"),
        # A segment ending exactly at the floor may go.
        ((100, 100, 100, 0), 4, 0.1, Policy(), Floors(confirm=2000), [0, 1000], "confirmOffset"),
        # A lagging in-sync slave holds retention below its ack, even when the disk is full and forcing is on.
        ((1, 1, 1, 0), 5, 0.99, Policy(), Floors(confirm=3000, slave_ack=1200), [0], "in-sync slave ack"),
        # An in-sync slave with no ack yet holds everything.
        ((100, 100, 0), 4, 0.1, Policy(), Floors(confirm=3000, slave_ack=0), [], "in-sync slave ack"),
        # What consumer offsets / the POP snapshot still need.
        ((100, 100, 100, 0), 4, 0.1, Policy(), Floors(3000, 3000, 999), [], "retained floor"),
        # A floor above what the policy would delete does not show as holding it.
        ((100, 10, 0), 4, 0.1, Policy(), Floors(confirm=1500), [0], None),
    ],
)
def test_plan(
    ages_h: tuple[float, ...],
    hour: int,
    disk: float,
    policy: Policy,
    floors: Floors,
    expected: list[int],
    held_by: str | None,
) -> None:
    p = plan(segments(*ages_h), now_ms=NOW, hour=hour, disk_used=disk, policy=policy, floors=floors)
    assert starts(p) == expected
    assert p.held_by == held_by
    assert p.delete_before == (expected[-1] + SIZE if expected else None)


def test_a_plan_that_deletes_says_why() -> None:
    p = plan(segments(100, 0), now_ms=NOW, hour=4, disk_used=0.1, policy=Policy(), floors=OPEN)
    assert p.reason is Reason.EXPIRED
    assert plan(segments(100, 0), now_ms=NOW, hour=5, disk_used=0.1, policy=Policy(), floors=OPEN) == Plan()
    assert plan([], now_ms=NOW, hour=4, disk_used=0.1, policy=Policy(), floors=OPEN) == Plan()


@pytest.mark.parametrize(
    ("members", "acks", "expected"),
    [
        (frozenset({1}), {}, None),  # alone in the set: no slave floor
        (frozenset({1, 2, 3}), {2: 500, 3: 900}, 500),  # the most lagging in-sync slave
        (frozenset({1, 2}), {2: 500, 3: 100}, 500),  # 3 is connected but not in sync: it does not hold retention
        (frozenset({1, 2}), {}, 0),  # in sync but no ack known (not connected yet): hold everything
        (frozenset({1, 2}), {2: -1}, 0),  # connected, nothing acknowledged yet
    ],
)
def test_slave_floor(members: frozenset[int], acks: dict[int, int], expected: int | None) -> None:
    assert slave_floor(members, 1, acks) == expected


@pytest.mark.parametrize(
    ("text", "hours"),
    [("04", {4}), ("4", {4}), ("01;13", {1, 13}), (" 0 ; 23 ", {0, 23}), ("04;04", {4})],
)
def test_delete_when_parses_hours(text: str, hours: set[int]) -> None:
    assert parse_delete_when(text) == frozenset(hours)


@pytest.mark.parametrize("text", ["", "24", "-1", "4am", "04;", "04,05", "1.5"])
def test_delete_when_refuses_what_is_not_an_hour(text: str) -> None:
    with pytest.raises(ValueError, match="deleteWhen must list hours of the day 0-23"):
        parse_delete_when(text)
