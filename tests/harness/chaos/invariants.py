"""The invariants of a chaos run, as pure functions over a recorded ``History``.

Each checker returns the violations it found, each naming the invariant, the broker set and the facts
(epoch, offset, payload, nodes) that break it; an empty list means the invariant held. Numbering follows the
issue:

1. every acknowledged message is present, once, at its offsets, in the final master's log;
2. at most one broker accepted writes in a given masterEpoch of a broker set;
3. after healing, a set's replicas are byte-identical up to the confirmOffset and their epoch files agree on
   every common epoch;
4. masterEpoch and syncStateSetEpoch never go backwards on any controller node, and every node holds the same
   state after healing;
5. a consumer never saw a message that was later truncated;
6. the answers to the transfer lease question (``GetReplicaInfo``) are linearizable: a question asked after
   another was answered, of whichever node, never gets an older masterEpoch (a deposed leader that
   does not know it yet must not answer from its old state);
7. consumer groups through failovers: an ack answered OK is final (the message is never delivered
   again), every PUT_OK message is acked in the end (nothing lost), a delivery left unacked comes back with a
   higher attempt; and the consumer state the final master's files rebuild to agrees with every answer the
   group's client was told (``agents.consumer.invariant.violations``);
8. delayed messages (docs/storage.md, "Delayed messages"): every PUT_OK delayed message is in the topic on a
   final master (its own set's, or another set's where a replica acting for its set escaped it, RIP-32), no copy is
   stored before its due time, and the copies beyond the first number at most one delivery put (``timer.BATCH``)
   per master change of the set;
9. transactional messages (docs/storage.md, "Transactional messages"): every transaction acknowledged and decided
   commit is in the topic on the final masters (its set's, or the escape master's set), once but for at most one
   extra copy per master change of the set (a new master whose log ends inside the old one's last commit); no
   rolled-back one (nor any whose half was not acknowledged: its producer rolls it back) is ever read, delivered or
   stored in the topic; no copy is read, delivered or stored before its commit was asked; no transaction is open
   after the faults healed and the check bound ran out.
"""

from __future__ import annotations

import dataclasses
import itertools
from bisect import bisect_left
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from agents.consumer.invariant import violations
from agents.consumer.state import ConsumerState
from agents.delay.timer import BATCH
from agents.pop.handle import decode
from tests.harness import consumer_ledger
from tests.harness.chaos.history import (
    Ack,
    ControllerView,
    DelayedSend,
    FinalLog,
    History,
    LeaseAnswer,
    ReplicaFiles,
    RoleChange,
    Seen,
    TransactionEnd,
)


@dataclass(frozen=True, slots=True)
class Violation:
    invariant: int
    broker_set: str
    text: str

    def __str__(self) -> str:
        return f"[invariant {self.invariant}] {self.broker_set}: {self.text}"


def _describe(ack: Ack) -> str:
    return (
        f"payload {ack.payload} (acked by broker {ack.broker_id} at {ack.broker_address} in epoch "
        f"{ack.master_epoch}, queue {ack.queue_id} offset {ack.queue_offset}, commit-log offset "
        f"{ack.commit_log_offset})"
    )


def check_acked_present(acks: Iterable[Ack], final_logs: dict[str, FinalLog]) -> list[Violation]:
    """Invariant 1: each ack's payload is at its queue offset and its commit-log offset, and nowhere else."""
    out: list[Violation] = []
    counts = {name: Counter(log.at_queue_offset.values()) for name, log in final_logs.items()}
    log_counts = {name: Counter(log.at_commit_log_offset.values()) for name, log in final_logs.items()}
    for ack in acks:
        final = final_logs.get(ack.broker_set)
        if final is None:
            out.append(Violation(1, ack.broker_set, f"no final master to check {_describe(ack)}"))
            continue
        found = final.at_queue_offset.get((ack.queue_id, ack.queue_offset))
        if found != ack.payload:
            held = f"holds {found}" if found else "holds nothing"
            out.append(
                Violation(
                    1,
                    ack.broker_set,
                    f"{_describe(ack)} is missing on {final.master_node}: queue "
                    f"{ack.queue_id} offset {ack.queue_offset} {held}",
                )
            )
        record = final.at_commit_log_offset.get(ack.commit_log_offset)
        if record != ack.payload:
            held = f"a record of {record}" if record else "no record"
            out.append(
                Violation(
                    1,
                    ack.broker_set,
                    f"{_describe(ack)}: the commit log of {final.master_node} "
                    f"has {held} at offset {ack.commit_log_offset}",
                )
            )
        for what, counter in (("queue", counts), ("commit log", log_counts)):
            n = counter[ack.broker_set][ack.payload]
            if n > 1:
                out.append(Violation(1, ack.broker_set, f"{_describe(ack)} is stored {n} times in the {what}"))
    return out


def check_single_writer(acks: Iterable[Ack], role_changes: Iterable[RoleChange]) -> list[Violation]:
    """Invariant 2: per (set, masterEpoch), the brokers that acked writes or became master are at most one."""
    writers: dict[tuple[str, int], dict[int, str]] = defaultdict(dict)
    for ack in acks:
        writers[(ack.broker_set, ack.master_epoch)].setdefault(ack.broker_id, f"acked {ack.payload}")
    for change in role_changes:
        if change.role == "master":
            writers[(change.broker_set, change.epoch)].setdefault(
                change.broker_id, f"logged becoming master on {change.node}"
            )
    return [
        Violation(
            2,
            name,
            f"masterEpoch {epoch} had {len(who)} writers: "
            + "; ".join(f"broker {b} {why}" for b, why in sorted(who.items())),
        )
        for (name, epoch), who in sorted(writers.items())
        if len(who) > 1
    ]


def check_replicas_identical(replicas: dict[str, list[ReplicaFiles]]) -> list[Violation]:
    """Invariant 3: every replica holds the master's bytes up to the master's confirmOffset; epochs agree."""
    out: list[Violation] = []
    for name, group in sorted(replicas.items()):
        masters = [r for r in group if r.is_master]
        if len(masters) != 1:
            out.append(Violation(3, name, f"{len(masters)} replicas are master after healing"))
            continue
        master = masters[0]
        confirm = master.confirm_offset
        start = max(r.min_offset for r in group)
        reference = master.log[start - master.min_offset : confirm - master.min_offset]
        for r in group:
            if r is master:
                continue
            end = r.min_offset + len(r.log)
            if end < confirm:
                out.append(
                    Violation(
                        3,
                        name,
                        f"broker {r.broker_id} on {r.node} holds {end} bytes, below the "
                        f"confirmOffset {confirm} of master {master.broker_id}",
                    )
                )
                continue
            mine = r.log[start - r.min_offset : confirm - r.min_offset]
            if mine != reference:
                first = next(i for i, (a, b) in enumerate(zip(mine, reference, strict=True)) if a != b)
                out.append(
                    Violation(
                        3,
                        name,
                        f"broker {r.broker_id} on {r.node} differs from master "
                        f"{master.broker_id} at offset {start + first} (confirmOffset "
                        f"{confirm})",
                    )
                )
        for i, a in enumerate(group):
            for b in group[i + 1 :]:
                ea, eb = dict(a.epochs), dict(b.epochs)
                for epoch in sorted(ea.keys() & eb.keys()):
                    if ea[epoch] != eb[epoch]:
                        out.append(
                            Violation(
                                3,
                                name,
                                f"epoch {epoch} starts at {ea[epoch]} on broker {a.broker_id} "
                                f"({a.node}) but at {eb[epoch]} on broker {b.broker_id} "
                                f"({b.node})",
                            )
                        )
    return out


def check_controller_monotonic(views: Iterable[ControllerView]) -> list[Violation]:
    """Invariant 4a: on each node, a set's masterEpoch and syncStateSetEpoch never go backwards."""
    out: list[Violation] = []
    series: dict[tuple[str, str, str], list[ControllerView]] = defaultdict(list)
    for v in views:
        series[(v.node, v.broker_set, v.source)].append(v)
    for (node, name, source), items in sorted(series.items()):
        items.sort(key=lambda v: v.seq)
        for prev, cur in itertools.pairwise(items):
            for what, before, after in (
                ("masterEpoch", prev.master_epoch, cur.master_epoch),
                ("syncStateSetEpoch", prev.sync_state_set_epoch, cur.sync_state_set_epoch),
            ):
                if after < before:
                    out.append(
                        Violation(
                            4,
                            name,
                            f"{what} went back from {before} to {after} on controller {node} "
                            f"({source} {prev.seq:g} → {cur.seq:g})",
                        )
                    )
    return out


def _state_of(v: ControllerView) -> tuple[int, int, int | None, tuple[int, ...]]:
    return v.master_epoch, v.sync_state_set_epoch, v.master_id, tuple(sorted(v.sync_state_set))


def check_controllers_agree(states: dict[str, dict[str, ControllerView]]) -> list[Violation]:
    """Invariant 4b: after healing every controller node holds the same state for every set."""
    out: list[Violation] = []
    names = sorted({name for per_node in states.values() for name in per_node})
    for name in names:
        seen = {node: _state_of(per_node[name]) if name in per_node else None for node, per_node in states.items()}
        if len(set(seen.values())) > 1:
            shown = "; ".join(
                f"{node}: "
                + (
                    "no such set"
                    if s is None
                    else f"masterEpoch {s[0]}, syncStateSetEpoch {s[1]}, master {s[2]}, SyncStateSet {list(s[3])}"
                )
                for node, s in sorted(seen.items())
            )
            out.append(Violation(4, name, f"controller nodes disagree after healing: {shown}"))
    return out


def check_seen_kept(seen: Iterable[Seen], final_logs: dict[str, FinalLog]) -> list[Violation]:
    """Invariant 5: whatever a consumer read is still at the same queue offset in the final log."""
    out: list[Violation] = []
    for s in seen:
        final = final_logs.get(s.broker_set)
        found = final.at_queue_offset.get((s.queue_id, s.queue_offset)) if final else None
        if found != s.payload:
            now = f"now holds {found}" if found else "no longer exists"
            out.append(
                Violation(
                    5,
                    s.broker_set,
                    f"a consumer read {s.payload} at queue {s.queue_id} offset "
                    f"{s.queue_offset} from {s.node}; that offset {now}",
                )
            )
    return out


def check_lease_answers(answers: Iterable[LeaseAnswer]) -> list[Violation]:
    """Invariant 6: per set, an answer to a question asked after another answer was received shows at least that
    answer's masterEpoch (answers that overlap in time may come in either order)."""
    out: list[Violation] = []
    by_set: dict[str, list[LeaseAnswer]] = defaultdict(list)
    for a in answers:
        by_set[a.broker_set].append(a)
    for name, items in sorted(by_set.items()):
        done = sorted(items, key=lambda a: a.answered_at)
        answered = [a.answered_at for a in done]
        newest: list[LeaseAnswer] = []  # newest[i]: the highest masterEpoch among done[: i + 1]
        for a in done:
            newest.append(a if not newest or a.master_epoch > newest[-1].master_epoch else newest[-1])
        start = min(a.asked_at for a in items)
        for b in sorted(items, key=lambda a: a.asked_at):
            before = bisect_left(answered, b.asked_at)  # done[:before] were answered before b was asked
            prior = newest[before - 1] if before else None
            if prior is not None and prior.master_epoch > b.master_epoch:
                out.append(
                    Violation(
                        6,
                        name,
                        f"controller {b.node} answered masterEpoch {b.master_epoch} (master {b.master_id}) to a "
                        f"question asked at {b.asked_at - start:.3f} s, after controller {prior.node} had answered "
                        f"masterEpoch {prior.master_epoch} (master {prior.master_id}) "
                        f"at {prior.answered_at - start:.3f} s",
                    )
                )
    return out


def per_copy(ledger: consumer_ledger.Ledger, delayed: set[str]) -> consumer_ledger.Ledger:
    """The ledger with every delivery, change and ack of a `delayed` payload named by its copy instead
    (``payload@queue:offset``, from the receipt handle). A failover inside a delivery put stores a delayed message
    twice (docs/storage.md, "Delayed messages"), and the group then rightly gets the second copy after it acked the
    first, with attempt 1 again; the ledger's checks, which take a payload for one message, would call that a
    redelivery. By copy they still hold each copy to "an ack is final" and "attempts rise"; invariant 8 bounds how
    many copies there may be. No delayed payload is in ``sent`` (the drain does not wait for them)."""

    def named(payload: str, handle: str) -> str:
        if payload not in delayed:
            return payload
        h = decode(handle)
        return f"{payload}@{h.queue_id}:{h.queue_offset}"

    out = consumer_ledger.Ledger(sent=list(ledger.sent), ambiguous=set(ledger.ambiguous))
    out.record(
        *(dataclasses.replace(d, payload=named(d.payload, d.handle)) for d in ledger.deliveries),
        *(dataclasses.replace(h, payload=named(h.payload, h.handle)) for h in ledger.hidden),
        *(dataclasses.replace(a, payload=named(a.payload, a.handle)) for a in ledger.acks),
    )
    return out


def check_consumer_groups(
    groups: dict[str, consumer_ledger.Ledger], states: dict[str, ConsumerState], delayed: Iterable[str] = ()
) -> list[Violation]:
    """Invariant 7: per set, the client's view (``consumer_ledger.check_all``, `delayed` payloads by copy: see
    `per_copy`) and the rebuilt state's (by queue offset already)."""
    out: list[Violation] = []
    by_copy = set(delayed)
    for name, ledger in sorted(groups.items()):
        out += [Violation(7, name, text) for text in consumer_ledger.check_all(per_copy(ledger, by_copy))]
        told = consumer_ledger.told(ledger)
        if name not in states:
            if told:
                out.append(Violation(7, name, "no final master's consumer state to check the group's answers"))
            continue
        out += [Violation(7, name, f"rebuilt state: {text}") for text in violations(told, states[name])]
    return out


def copies_of(payloads: Iterable[str], final_logs: dict[str, FinalLog]) -> dict[str, list[tuple[str, int, int]]]:
    """Each of `payloads` → the (set, queue id, queue offset) of its copies in the topic on the final masters: in its
    own set, or in another where an acting replica of its set escaped it (docs/decisions.md, RIP-32)."""
    out: dict[str, list[tuple[str, int, int]]] = {p: [] for p in payloads}
    for name, log in sorted(final_logs.items()):
        for (queue_id, offset), payload in sorted(log.at_queue_offset.items()):
            if payload in out:
                out[payload].append((name, queue_id, offset))
    return out


def master_changes(role_changes: Iterable[RoleChange]) -> Counter[str]:
    """Per set, how many times a new masterEpoch got a writer (the epochs some broker logged becoming master in, but
    the first)."""
    epochs: dict[str, set[int]] = defaultdict(set)
    for change in role_changes:
        if change.role == "master":
            epochs[change.broker_set].add(change.epoch)
    return Counter({name: len(e) - 1 for name, e in epochs.items()})


def check_delayed(
    delayed: Iterable[DelayedSend], final_logs: dict[str, FinalLog], role_changes: Iterable[RoleChange]
) -> list[Violation]:
    """Invariant 8: every PUT_OK delayed payload is in the topic on a final master (its set's, or the escape
    master's set); no copy of a delayed payload (acknowledged or not) was stored before its due time; per set, the
    copies beyond each payload's first are at most ``timer.BATCH`` × its master changes (a failover repeats at most
    the one delivery put it cut; an escaped delivery is taken back by the set's next master, never repeated).

    No tolerance on the time: the master reads its clock once per delivery pass, picks what is due at that
    reading and stores the copies with it as their store timestamp (``ConsumerService.deliver_due``, ``re_put``);
    a send whose time has already come is stored at once with the timestamp its due check used (``to_timer``).
    Producer and brokers share the machine's clock."""
    sends = list(delayed)
    copies = copies_of((d.payload for d in sends), final_logs)
    changes = master_changes(role_changes)
    out: list[Violation] = []
    extra: dict[str, list[str]] = defaultdict(list)  # set → the payload of each copy beyond a payload's first
    for d in sends:
        final = final_logs.get(d.broker_set)
        if final is None:
            if d.acked:
                out.append(Violation(8, d.broker_set, f"no final master to check delayed payload {d.payload}"))
            continue
        found = copies[d.payload]
        if d.acked and not found:
            out.append(
                Violation(
                    8,
                    d.broker_set,
                    f"delayed payload {d.payload} (PUT_OK, due at {d.due_ms}) is not in the topic on "
                    f"{final.master_node}",
                )
            )
        for where, queue_id, offset in found:
            log = final_logs[where]
            stored = log.stored_ms.get((queue_id, offset))
            if stored is None or stored < d.due_ms:
                when = "with no store timestamp" if stored is None else f"at {stored}, {d.due_ms - stored} ms early"
                of = log.master_node if where == d.broker_set else f"{log.master_node} ({where})"
                out.append(
                    Violation(
                        8,
                        d.broker_set,
                        f"delayed payload {d.payload} (due at {d.due_ms}) was stored at queue {queue_id} offset "
                        f"{offset} of {of} {when}",
                    )
                )
        extra[d.broker_set] += [d.payload for _ in found[1:]]
    for name, more in sorted(extra.items()):
        if len(more) > BATCH * changes[name]:
            out.append(
                Violation(
                    8,
                    name,
                    f"{len(more)} extra copies of delayed payloads, above {BATCH} per master change "
                    f"({changes[name]} master changes), e.g. of {sorted(set(more))[:5]}",
                )
            )
    return out


def check_transactions(history: History) -> list[Violation]:
    """Invariant 9 over the transactional sends and the ends asked, what the consumers were told during the run
    (the reads, the group's deliveries), the final masters' topics and what they listed open after healing."""
    copies = copies_of((t.payload for t in history.transactions), history.final_logs)
    first_commit: dict[str, TransactionEnd] = {}
    for e in sorted(history.transaction_ends, key=lambda e: e.asked_ms):
        if e.commit:
            first_commit.setdefault(e.payload, e)
    seen: dict[str, list[Seen]] = defaultdict(list)
    for item in history.seen:
        seen[item.payload].append(item)
    delivered: dict[str, list[tuple[str, consumer_ledger.Delivered]]] = defaultdict(list)
    for name, ledger in history.groups.items():
        for d in ledger.deliveries:
            delivered[d.payload].append((name, d))
    out: list[Violation] = []
    extra: dict[str, list[str]] = defaultdict(list)  # set → each copy beyond a committed payload's first
    for t in history.transactions:
        found = copies[t.payload]
        reads = [f"read at {s.broker_set} queue {s.queue_id} offset {s.queue_offset} from {s.node}"
                 for s in seen[t.payload]]  # fmt: skip
        deliveries = [f"delivered to the group on {name}" for name, _ in delivered[t.payload]]
        stored = [f"stored at {s} queue {q} offset {o}" for s, q, o in found]
        if not (t.acked and t.commit):
            what = "rolled-back" if t.acked else "unacknowledged (so rolled-back)"
            out += [Violation(9, t.broker_set, f"{what} transaction {t.payload} was {x}")
                    for x in stored + reads + deliveries]  # fmt: skip
            continue
        if not found:
            out.append(Violation(9, t.broker_set, f"committed transaction {t.transaction_id} ({t.payload}) is not "
                                 "in the topic on the final masters"))  # fmt: skip
        extra[t.broker_set] += [f"{t.payload} ({'; '.join(stored)})" for _ in found[1:]]
        first = first_commit.get(t.payload)
        early = [x for (s, q, o), x in zip(found, stored, strict=True)
                 if first is None or history.final_logs[s].stored_ms.get((q, o), 0) < first.asked_ms]  # fmt: skip
        early += [x for s, x in zip(seen[t.payload], reads, strict=True) if first is None or s.at < first.asked_at]
        early += [x for (_, d), x in zip(delivered[t.payload], deliveries, strict=True)
                  if first is None or d.answered_ms < first.asked_ms]  # fmt: skip
        when = (
            "before any commit of it was asked" if first is None else f"before its commit was asked at {first.asked_ms}"
        )
        out += [Violation(9, t.broker_set, f"transaction {t.payload} was {x}, {when}") for x in early]
    changes = master_changes(history.role_changes)
    for name, more in sorted(extra.items()):
        if len(more) > changes[name]:
            out.append(Violation(9, name, f"{len(more)} extra copies of committed transactions, above one per master "
                                 f"change ({changes[name]} master changes): {more[:5]}"))  # fmt: skip
    for name, ids in sorted(history.open_transactions.items()):
        out += [Violation(9, name, f"transaction {i} is still open after healing and the check bound") for i in ids]
    return out


def check_all(history: History) -> list[Violation]:
    return [
        *check_acked_present(history.acks, history.final_logs),
        *check_single_writer(history.acks, history.role_changes),
        *check_replicas_identical(history.replicas),
        *check_controller_monotonic(history.controller_views),
        *check_controllers_agree(history.controller_states),
        *check_seen_kept(history.seen, history.final_logs),
        *check_lease_answers(history.lease_answers),
        *check_consumer_groups(history.groups, history.consumer_states, (d.payload for d in history.delayed)),
        *check_delayed(history.delayed, history.final_logs, history.role_changes),
        *check_transactions(history),
    ]
