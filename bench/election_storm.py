"""Election storm: crash the masters of N broker sets at once; time until every set has a new master.

Each set has three registered replicas whose fake brokers stream heartbeats to
the leader (one HeartbeatStream each, 1 s beats); broker 1 is master and the
SyncStateSet is {1,2,3}. All masters' streams are cancelled together (the
crash), which makes the leader trigger one election per set. Measured from
the moment the cancelling starts:

- notified: when the surviving brokers of a set got the RoleChangeNotification
  (median and last set);
- committed: the last "elected ..." line in the leader's log (ms clock);
- visible: GetSyncStateData through ControllerClient (polling the sets not
  yet done) shows a new master for every set. The target is judged on this.
"""

from __future__ import annotations

import re
import time
from datetime import datetime
from pathlib import Path

from _brokers import BrokerFleet, broker_sets, register_sets
from _common import (
    ControllerClient,
    LoopThread,
    Sandbox,
    leader_node,
    log_summary,
    machine_note,
    metadata,
    ms,
    ok,
    parse_args,
    pb,
    percentile,
    print_table,
    sandbox,
)

TARGET_S = 1.0


class LeaderChanged(RuntimeError):
    """The controller leader moved before the crash: the streams no longer reach the leader."""


ELECTED = re.compile(r"^(\S+ \S+) INFO \[\w+\] controller\.daemon: elected (\S+) master (\d+)")


def last_commit_in_log(log_file: str, prefix: str, since_wall: float) -> tuple[float, int]:
    """(latest 'elected' log time - since_wall, count of such lines after since_wall) for sets named prefix*."""
    latest, count = float("nan"), 0
    for line in Path(log_file).read_text(errors="replace").splitlines():
        m = ELECTED.match(line)
        if not m or not m.group(2).startswith(prefix):
            continue
        wall = datetime.strptime(m.group(1), "%Y-%m-%d %H:%M:%S,%f").timestamp()
        if wall >= since_wall - 0.002:  # the log clock has 1 ms resolution
            count += 1
            latest = wall - since_wall if count == 1 else max(latest, wall - since_wall)
    return latest, count


def max_term(sb: Sandbox) -> int:
    terms = [m.raft.term for n in sb.controllers() if (m := metadata(n.address, timeout=5.0)) is not None]
    return max(terms, default=-1)


def storm(n: int) -> list[str]:
    with sandbox(3) as sb, LoopThread() as runner:
        leader = leader_node(sb)
        fleet = BrokerFleet(runner, leader.address, interval_s=1.0, per_channel=200)
        client = ControllerClient([leader.address] + [c.address for c in sb.controllers()], timeout=10.0)
        try:
            prefix = f"storm{n}-"
            sets = broker_sets(f"storm{n}", prefix, n)
            timings: dict[str, float] = {}
            epochs = register_sets(fleet, sets, timings)
            resp = ok(client.call("GetSyncStateData", pb.GetSyncStateDataRequest(cluster_name=f"storm{n}")), "get")
            ready = [i for i in resp.replicas_info if i.master_broker_id == 1 and len(i.in_sync_replicas) == 3]
            if len(ready) != n:
                raise RuntimeError(f"only {len(ready)} of {n} sets have master 1 and SSS {{1,2,3}}")
            phases = ", ".join(f"{k} {v:.1f} s" for k, v in timings.items())
            print(f"N={n}: {3 * n} brokers registered, streaming, masters elected ({phases})", flush=True)
            time.sleep(1.0)
            if leader_node(sb).id != leader.id:
                raise LeaderChanged("the controller leader changed during setup")
            term0, index0 = max_term(sb), metadata(leader.address, timeout=5.0)
            remaining = {s[0].name for s in sets}
            seen: dict[str, tuple[float, int, int]] = {}
            wall0 = time.time()
            t0, t_cancelled = fleet.crash(s[0].key for s in sets)
            polls = 0
            while remaining and time.perf_counter() < t0 + 30.0 and polls < 100_000:
                polls += 1
                req = pb.GetSyncStateDataRequest(broker_names=sorted(remaining))
                now_resp = ok(client.call("GetSyncStateData", req), "GetSyncStateData")
                now = time.perf_counter() - t0
                for info in now_resp.replicas_info:
                    if info.HasField("master_broker_id") and info.master_broker_id != 1:
                        seen[info.broker_name] = (now, info.master_broker_id, info.master_epoch)
                        remaining.discard(info.broker_name)
                time.sleep(0.005)
            if remaining:
                raise RuntimeError(f"{len(remaining)} of {n} sets had no new master 30 s after the crash")
            index1 = metadata(leader.address, timeout=5.0)
            visible = [v[0] for v in seen.values()]
            wrong = [k for k, v in seen.items() if v[1] not in (2, 3) or v[2] != epochs[k][0] + 1]
            notified = []
            for s in sets:
                times = [tn for b in s[1:] for tn, note in fleet.notes[b.key] if note.master_broker_id != 1]
                notified.append(min(times) - t0 if times else float("nan"))
            log_s, log_count = last_commit_in_log(leader.logFile, prefix, wall0)
            entries = index1.raft.commit_index - index0.raft.commit_index if index0 and index1 else -1
            print(
                f"  cancel took {ms(t_cancelled - t0)} ms; {polls} polls; {log_count} elections logged; "
                f"{len(wrong)} sets with an unexpected master or epoch; broker reconnects: {fleet.reconnects}\n"
                f"  {log_summary(sb)}",
                flush=True,
            )
            done = max(visible)
            return [
                str(n),
                str(3 * n),
                ms(percentile(notified, 50)),
                ms(max(notified)),
                ms(log_s),
                ms(done),
                str(entries),
                str(max_term(sb) - term0),
                "yes" if done < TARGET_S else "no",
            ]
        finally:
            client.close()
            fleet.close()


def main() -> None:
    args = parse_args(__doc__)
    sizes = (100,) if args.quick else (100, 100, 100, 1000, 1000, 1000)
    rows = []
    for n in sizes:
        for attempt in (1, 2):
            try:
                rows.append(storm(n))
                break
            except LeaderChanged as exc:
                print(f"  N={n}: {exc}; {'retrying' if attempt == 1 else 'giving up'}", flush=True)
    print(f"\nmachine: {machine_note()}; 3 controller nodes, default Raft timings; brokers stream to the leader")
    print_table(
        "Election storm: all masters crash at once (ms from the crash)",
        ["sets", "brokers", "p50 notified", "all notified", "all committed (log)", "all visible (poll)",
         "Raft entries", "leader changes", f"< {TARGET_S:g} s"],
        rows,
    )  # fmt: skip


if __name__ == "__main__":
    main()
