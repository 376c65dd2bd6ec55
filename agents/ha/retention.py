"""Retention policy: which commit-log segments to delete now, and why (RocketMQ's ``CleanCommitLogService``).

Java's rules, over plain data with the clock passed in:

- a run deletes when it is one of the ``deleteWhen`` hours of the day (local time), or the disk is fuller than
  ``diskMaxUsedSpaceRatio``, or fuller than ``diskSpaceCleanForciblyRatio`` / ``diskSpaceWarningLevelRatio``
  ("clean immediately");
- it deletes the oldest segments whose last modification is at least ``fileReservedTime`` hours old, stopping at
  the first younger one (no holes); cleaning immediately with ``cleanFileForciblyEnable`` deletes them whatever
  their age; never the last segment (the one being written), at most ``deleteFileBatchMax`` per run.

Ours adds floors Java does not have: a segment is deleted only when it ends at or below every floor — the
smallest acknowledged offset of the in-sync slaves (a lagging in-sync slave can still replicate what it has not
got), the confirmOffset, and ``retained_floor`` (what consumer offsets and the POP snapshot still need).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import Enum

HOUR_MS = 3_600_000


class Reason(Enum):
    """Why a run deletes (the log line's word)."""

    EXPIRED = "expired"
    """A deleteWhen hour: segments older than fileReservedTime go."""
    DISK_FULL = "disk full"
    """The disk is fuller than diskMaxUsedSpaceRatio: expired segments go at any hour."""
    FORCED = "forced"
    """The disk is fuller than diskSpaceCleanForciblyRatio and cleanFileForciblyEnable: segments go whatever
    their age."""


@dataclass(frozen=True, slots=True)
class Policy:
    """The retention keys of a broker (``BrokerConfig.retention_policy``); ratios are percentages."""

    file_reserved_time_h: int = 72
    delete_when: frozenset[int] = frozenset({4})
    disk_max_used_space_ratio: int = 75
    disk_space_warning_level_ratio: int = 90
    disk_space_clean_forcibly_ratio: int = 85
    clean_file_forcibly_enable: bool = True
    delete_file_batch_max: int = 10


@dataclass(frozen=True, slots=True)
class Segment:
    """One commit-log file: [start, end) and when it was last written (ms since the epoch)."""

    start: int
    end: int
    modified_ms: int


@dataclass(frozen=True, slots=True)
class Floors:
    """Offsets retention never deletes at or above; None: that floor does not apply."""

    confirm: int
    slave_ack: int | None = None
    """The smallest ack of the in-sync slaves (master only; None without in-sync slaves)."""
    retained: int | None = None
    """What later parts of the broker still read (consumer offsets, the POP snapshot)."""

    def lowest(self) -> tuple[int, str]:
        """The lowest floor and its name (for the log line saying what held retention back)."""
        named = [(self.confirm, "confirmOffset")]
        if self.slave_ack is not None:
            named.append((self.slave_ack, "in-sync slave ack"))
        if self.retained is not None:
            named.append((self.retained, "retained floor"))
        return min(named, key=lambda pair: pair[0])


@dataclass(frozen=True, slots=True)
class Plan:
    """What a run deletes: a prefix of the segments; `held_by` names the floor that stopped it, if one did."""

    reason: Reason | None = None
    segments: tuple[Segment, ...] = ()
    held_by: str | None = None

    @property
    def delete_before(self) -> int | None:
        """The offset to pass to ``Replica.delete_before`` (None: nothing to delete)."""
        return self.segments[-1].end if self.segments else None


def parse_delete_when(text: str) -> frozenset[int]:
    """``deleteWhen``'s hours of the day, ``;``-separated ("04", "01;13"); ValueError names a bad one."""
    hours: set[int] = set()
    for part in text.split(";"):
        token = part.strip()
        if not token.isdigit() or not 0 <= int(token) <= 23:
            raise ValueError(f"deleteWhen must list hours of the day 0-23 separated by ';', got {text!r}")
        hours.add(int(token))
    return frozenset(hours)


def slave_floor(members: frozenset[int], self_id: int, acks: Mapping[int, int]) -> int | None:
    """The smallest ack offset of the in-sync slaves in `members`; a member with no ack yet holds everything (0).
    None when the master is alone in its set."""
    slaves = members - {self_id}
    if not slaves:
        return None
    return min(max(acks.get(member, 0), 0) for member in slaves)


def reason_for(policy: Policy, hour: int, disk_used: float, manual: bool = False) -> tuple[Reason | None, bool]:
    """Why this run deletes, and whether it deletes whatever the age (Java's ``cleanImmediately`` with forcing on).

    `disk_used` is the fraction of the store's disk in use (0-1); `manual`: an operator asked for the run
    (``deleteExpiredCommitLog``, Java's ``executeDeleteFilesManually``), which counts as a deleteWhen hour."""
    immediately = disk_used * 100 > min(policy.disk_space_warning_level_ratio, policy.disk_space_clean_forcibly_ratio)
    if immediately and policy.clean_file_forcibly_enable:
        return Reason.FORCED, True
    if immediately or disk_used * 100 > policy.disk_max_used_space_ratio:
        return Reason.DISK_FULL, False
    if hour in policy.delete_when or manual:
        return Reason.EXPIRED, False
    return None, False


def plan(
    segments: Sequence[Segment], *, now_ms: int, hour: int, disk_used: float, policy: Policy, floors: Floors,
    manual: bool = False,
) -> Plan:  # fmt: skip
    """The segments to delete now (oldest first, a prefix of `segments`), for a clock reading `now_ms` whose local
    hour of the day is `hour`; `manual` as in `reason_for`."""
    reason, any_age = reason_for(policy, hour, disk_used, manual)
    if reason is None:
        return Plan()
    floor, floor_name = floors.lowest()
    chosen: list[Segment] = []
    for segment in list(segments)[:-1]:  # never the segment being written
        if len(chosen) >= policy.delete_file_batch_max:
            break
        if not any_age and now_ms < segment.modified_ms + policy.file_reserved_time_h * HOUR_MS:
            break  # Java stops at the first live file: no holes
        if segment.end > floor:
            return Plan(reason, tuple(chosen), floor_name)
        chosen.append(segment)
    return Plan(reason, tuple(chosen)) if chosen else Plan()
