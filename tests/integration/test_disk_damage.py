"""On-disk damage: a controller node's Raft journal and snapshot, a broker store whose disk fills up, and a
restarted mqagent whose broker store has a torn commit-log tail, a damaged checkpoint or a damaged epoch file.

A node with a damaged journal or snapshot must refuse to start (exit 1, naming the file and the way out) rather
than vote and serve on a log it misread; once the operator clears its store directory it catches up from its
peers. "Disk full" is made real without root: the store runs in a child process whose RLIMIT_FSIZE stops every
write past a byte limit with EFBIG (SIGXFSZ ignored), the error a full disk gives a write that needs new space.
A broker whose store cannot be trusted must not start (the agent keeps running and lists the broker with the
reason, as for any broker that cannot start) and must leave its files as they were.
"""

from __future__ import annotations

import os
import pickletools
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agents.store.layout import EPOCH_FILE, STORE_DIR
from mqadmin_py.sandbox import Sandbox
from mqbase.codes import ResponseCode
from mqbase.proto import agent_pb2 as apb
from mqbase.proto import controller_pb2 as pb
from mqbase.storelock import LOCK_FILE
from tests.harness.agents import AgentProcess, create_topic
from tests.harness.controllers import Client, followers, leader, metadata, node
from tests.harness.processes import ROOT
from tests.harness.wait import wait_until

pytestmark = [pytest.mark.integration]


def _apply(client: Client, broker_name: str, count: int) -> None:
    for broker_id in range(1, count + 1):
        request = pb.ApplyBrokerIdRequest(
            cluster_name="c",
            broker_name=broker_name,
            applied_broker_id=broker_id,
            register_check_code=f"127.0.0.1:{20000 + broker_id};1",
        )
        assert client.call("ApplyBrokerId", request).code == ResponseCode.SUCCESS


def _next_id(client: Client, broker_name: str) -> int:
    response = client.call("GetNextBrokerId", pb.GetNextBrokerIdRequest(cluster_name="c", broker_name=broker_name))
    return int(response.next_broker_id)


def _start_in_foreground(config_file: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mqadmin_py.mqcontroller", "-c", config_file],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
    )


def _tear(path: Path) -> None:
    """A torn journal: its header still claims records the file no longer holds in full.

    Cut within the records, not within the file: pysyncobj grows the file ahead of them, and a cut in that zeroed
    room would leave every record intact (the node would rightly start and serve)."""
    data = path.read_bytes()
    end = int.from_bytes(data[36:40], "little")  # the header's end of the records (u32 LE after name and version)
    assert 40 < end <= len(data), f"{path} holds no records to tear"
    path.write_bytes(data[: 40 + (end - 40) // 3])


def _flip_record_size(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[40] ^= 0x40  # the first record's size: pysyncobj alone would read other entries
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("damage", [_tear, _flip_record_size], ids=["torn", "bit-flip"])
def test_a_damaged_journal_stops_the_node_and_a_cleared_node_catches_up(
    sandbox: Sandbox, damage: Callable[[Path], None]
) -> None:
    addresses = [c.address for c in sandbox.controllers()]
    with Client(addresses, timeout=5) as client:
        _apply(client, f"before-{damage.__name__}", 5)
    victim = followers(sandbox, leader(sandbox).id)[0]
    sandbox.stop(victim.id)
    store = sandbox.dir / "store" / victim.id
    journal = store / "raft.journal"
    damage(journal)
    damaged = journal.read_bytes()

    result = _start_in_foreground(victim.configFile)
    assert result.returncode == 1, result.stderr
    assert f"the Raft journal {journal} is damaged" in result.stderr
    assert f"clear its store directory {store}" in result.stderr
    assert journal.read_bytes() == damaged, "the damaged file is left for the operator"

    shutil.rmtree(store)  # what the message tells the operator to do
    sandbox.start(victim.id)
    wait_until(lambda: _applied_everything(victim.address, addresses), 60, f"{victim.id} to catch up")
    _prove_it_holds_the_state(sandbox, victim.id, f"before-{damage.__name__}")


def _applied_everything(address: str, addresses: list[str]) -> bool:
    with Client(addresses, timeout=3) as client:
        mine = client.metadata(address).raft
        lead = client.metadata(client.metadata(address).controller_leader_address or address).raft
    return mine.last_applied >= lead.commit_index > 0 and mine.state == "follower"


def _prove_it_holds_the_state(sandbox: Sandbox, node_id: str, broker_name: str) -> None:
    """Only the rejoined node can then become leader: a write it acknowledged is missing from the other follower,
    which Raft never lets win. Its answers then come from what it caught up."""
    lead = leader(sandbox)
    other = next(c for c in followers(sandbox, lead.id) if c.id != node_id)
    sandbox.stop(other.id)
    with Client([lead.address, node(sandbox, node_id).address], timeout=5, leader_wait=30) as client:
        _apply(client, f"{broker_name}-acked", 1)  # needs the rejoined node's vote of the 2 left
    sandbox.stop(lead.id)
    sandbox.start(other.id)
    assert wait_until(lambda: sandbox.wait_for_leader(60) == node_id, 60, f"{node_id} to lead")
    with Client(node(sandbox, node_id).address, timeout=5) as client:
        assert _next_id(client, broker_name) == 6
        assert _next_id(client, f"{broker_name}-acked") == 2
    sandbox.start(lead.id)
    leader(sandbox)


def test_a_damaged_snapshot_names_the_file_and_the_store_directory(sandbox: Sandbox) -> None:
    victim = followers(sandbox, leader(sandbox).id)[0]
    sandbox.stop(victim.id)
    store = sandbox.dir / "store" / victim.id
    snapshot = store / "raft.snapshot"
    snapshot.write_text('{"state": {"v": 1, "brokerSets": [{"brokerName": 7}]}, "raft"')  # cut mid-write
    try:
        result = _start_in_foreground(victim.configFile)
        assert result.returncode == 1
        assert f"the Raft snapshot {snapshot} is damaged" in result.stderr and str(store) in result.stderr
    finally:
        shutil.rmtree(store)
        sandbox.start(victim.id)
    leader(sandbox)


def _flip_a_command(path: Path) -> None:
    """One bit of a broker name inside the last `_apply` call: pickle and JSON still read, as other data."""
    data = bytearray(path.read_bytes())
    end = int.from_bytes(data[36:40], "little")
    key = b'"broker_name":"'
    at = data.rfind(key, 40, end)
    assert at > 0, f"{path} holds no event with a broker name"
    data[at + len(key)] ^= 0x01  # b -> c
    path.write_bytes(bytes(data))


def _flip_the_term(path: Path) -> None:
    """The lowest bit of currentTerm in the pickle: pysyncobj alone reads another term, votedFor unchanged."""
    data = bytearray(path.read_bytes())
    ops = list(pickletools.genops(bytes(data)))
    at = next(i for i, (_op, arg, _pos) in enumerate(ops) if arg == "currentTerm")
    _op, _arg, pos = next(o for o in ops[at + 1 :] if o[0].name in ("BININT1", "BININT2", "BININT"))
    assert pos is not None, "genops over bytes gives every opcode's position"
    data[pos + 1] ^= 0x01
    path.write_bytes(bytes(data))


def _cut_in_half(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


@pytest.mark.parametrize(
    ("file_name", "damage", "message"),
    [
        ("raft.journal", _flip_a_command, "the Raft journal {} is damaged (the command of the record at byte"),
        ("raft.journal.meta", _cut_in_half, "the Raft term and vote file {} is damaged (not a readable pickle"),
        ("raft.journal.meta", _flip_the_term, "the Raft term and vote file {} is damaged (its CRC-32 does not match"),
    ],
    ids=["flipped-command", "vote-file-cut", "vote-file-term-flipped"],
)
def test_a_flipped_command_or_a_damaged_vote_file_stops_the_node_with_one_line(
    sandbox: Sandbox, file_name: str, damage: Callable[[Path], None], message: str
) -> None:
    """pysyncobj alone would apply the flipped command, or read the cut vote file as "no vote" (a second vote in
    the term). The node refuses to start; the damaged file stays for the operator."""
    addresses = [c.address for c in sandbox.controllers()]
    with Client(addresses, timeout=5) as client:
        _apply(client, f"before-{damage.__name__}", 2)
    lead = leader(sandbox)
    written = metadata(lead.address).raft.commit_index
    victim = followers(sandbox, lead.id)[0]
    wait_until(lambda: metadata(victim.address).raft.last_applied >= written, 60, f"{victim.id} to apply the writes")
    sandbox.stop(victim.id)
    path = sandbox.dir / "store" / victim.id / file_name
    intact = path.read_bytes()
    try:
        damage(path)
        damaged = path.read_bytes()
        result = _start_in_foreground(victim.configFile)
        assert result.returncode == 1, result.stderr
        assert "Traceback" not in result.stderr, result.stderr
        naming = [line for line in result.stderr.splitlines() if str(path) in line]
        assert len(naming) == 1, result.stderr
        assert naming[0].startswith(f"mqcontroller: cannot start: {message.format(path)}"), result.stderr
        assert path.read_bytes() == damaged, "the damaged file is left for the operator"
    finally:
        path.write_bytes(intact)
        sandbox.start(victim.id)
    leader(sandbox)


# --- a full disk -----------------------------------------------------------------------------------

CHILD = """
import os, resource, signal, sys
from agents.store.message_store import MessageStore
from agents.store.record import Message

root, limit = sys.argv[1], int(sys.argv[2])
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
store = MessageStore(root, 64 * 1024)
put = lambda n, size: store.put([Message("Full", 0, bytes([n]) * size, {}, n)])
put(0, 100)
store.flush()
end = store.max_offset
resource.setrlimit(resource.RLIMIT_FSIZE, (end + limit, resource.RLIM_INFINITY))
try:
    put(1, 4000)
except OSError as exc:
    print("refused", exc.errno, flush=True)
assert store.max_offset == end, (store.max_offset, end)
with open(os.path.join(root, "commitlog", "%020d" % 0), "rb") as f:
    f.seek(end)
    assert f.read(4096) == bytes(4096), "the failed append left bytes past the end"
store.flush()
store.set_confirm_offset(store.max_offset)
assert [m.body for _, m in store.consume("Full", 0, 0, 10)] == [bytes(100)]
resource.setrlimit(resource.RLIMIT_FSIZE, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
start = put(2, 4000).start
assert start == end, (start, end)
store.flush()
store.set_confirm_offset(store.max_offset)
print("resumed", [m.body[:1] for _, m in store.consume("Full", 0, 0, 10)], flush=True)
store.close()
"""


def test_a_full_disk_fails_the_append_cleanly_and_appends_resume_at_the_same_offset(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-c", CHILD, str(tmp_path / "store"), "1000"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert result.returncode == 0, result.stderr
    assert f"refused {27}" in result.stdout  # EFBIG, raised to the caller instead of SIGXFSZ killing it
    assert "resumed [b'\\x00', b'\\x02']" in result.stdout  # queue offsets 0 and 1: the failed put left no trace


# --- a restarted agent on a damaged broker store ---------------------------------------------------


def _started(proc: AgentProcess, broker_name: str) -> AgentProcess:
    proc.start()
    wait_until(lambda: proc.role(broker_name) == "master", 60, f"{broker_name} to become master")
    create_topic(proc.controllers, "Disk")
    return proc


def _send(proc: AgentProcess, broker_name: str, body: bytes) -> apb.SendResult:
    request = apb.SendMessageRequest(
        broker=apb.BrokerRef(broker_name=broker_name), message=apb.Message(topic="Disk", queue_id=0, body=body)
    )
    response = proc.stub().SendMessage(request, timeout=10)
    assert response.code == ResponseCode.SUCCESS, response.remark
    result: apb.SendResult = response.results[0]
    return result


def _bodies(proc: AgentProcess, broker_name: str) -> list[bytes]:
    request = apb.PullMessageRequest(
        broker=apb.BrokerRef(broker_name=broker_name), topic="Disk", queue_id=0, queue_offset=0, max_messages=32
    )
    return [m.message.body for m in proc.stub().PullMessage(request, timeout=10).messages]


def _hosted(proc: AgentProcess, broker_name: str) -> apb.HostedBroker:
    listed = proc.stub().ListBrokers(apb.ListBrokersRequest(), timeout=5).brokers
    hosted: apb.HostedBroker = next(b for b in listed if b.broker_name == broker_name)
    return hosted


def _aged(root: Path) -> dict[str, tuple[bytes, int]]:
    """Every file under `root`, given an old mtime first so that a rewrite shows: path → (content, mtime).

    The store lock is left out: each process that opens the store writes its pid there (``mqbase.storelock``).
    """
    files = [p for p in root.rglob("*") if p.is_file() and p != root / LOCK_FILE]
    for path in files:
        os.utime(path, ns=(10**18, 10**18))
    return {str(p.relative_to(root)): (p.read_bytes(), p.stat().st_mtime_ns) for p in files}


def _refused_start(proc: AgentProcess, broker_name: str, *expected: str) -> str:
    """Restart `proc`: it serves (ListBrokers answers) but lists the broker as not started, with `expected` in its
    error; its broker never becomes master. Returns the error."""
    proc.start()

    def not_started() -> apb.HostedBroker | None:
        hosted = _hosted(proc, broker_name)
        return hosted if hosted.error.startswith("cannot start") else None

    hosted = wait_until(not_started, 60, f"{broker_name} to be listed as not started")
    for text in expected:
        assert text in hosted.error, hosted.error
        assert text in proc.log_text()
    assert proc.role(broker_name) != "master" and proc.proc is not None and proc.proc.poll() is None
    assert "Traceback" not in proc.log_text()
    return str(hosted.error)


def test_a_torn_commit_log_tail_is_cut_at_restart_and_the_broker_serves(sandbox: Sandbox, tmp_path: Path) -> None:
    name = "torn-tail"
    proc = AgentProcess(tmp_path, "a0", sandbox.addresses(), {name: {}})
    try:
        _started(proc, name)
        sent = [_send(proc, name, bytes([65 + i]) * 300) for i in range(3)]
        end = proc.ha_status(name).max_offset
        proc.stop()
        # A crash in the middle of the next write: the first half of a record landed past the flushed end.
        segment = proc.dir / name / STORE_DIR / "commitlog" / f"{0:020d}"
        data = bytearray(segment.read_bytes())
        last = bytes(data[sent[-1].commit_log_offset : end])
        data[end : end + len(last) // 2] = last[: len(last) // 2]
        segment.write_bytes(bytes(data))

        _started(proc, name)
        assert proc.ha_status(name).max_offset == end  # the last complete record's end
        assert f"cutting a torn or corrupt tail: the last valid record ends at offset {end}" in proc.log_text()
        assert _send(proc, name, b"after").commit_log_offset == end
        assert _bodies(proc, name) == [b"A" * 300, b"B" * 300, b"C" * 300, b"after"]
    finally:
        proc.close()


def test_a_damaged_checkpoint_keeps_the_broker_from_starting_and_changes_nothing(
    sandbox: Sandbox, tmp_path: Path
) -> None:
    name = "bad-checkpoint"
    proc = AgentProcess(tmp_path, "a0", sandbox.addresses(), {name: {}})
    try:
        _started(proc, name)
        _send(proc, name, b"kept")
        proc.stop()
        checkpoint = proc.dir / name / STORE_DIR / "checkpoint"
        data = bytearray(checkpoint.read_bytes())
        data[12] ^= 0x01  # a bit of the flushed offset: the CRC no longer matches
        checkpoint.write_bytes(bytes(data))
        before = _aged(proc.dir / name)

        _refused_start(proc, name, str(checkpoint), "Move the file away")
        proc.stop()
        assert _aged(proc.dir / name) == before, "the damaged store is left as it was"

        checkpoint.rename(checkpoint.with_name("checkpoint.damaged"))  # what the message tells the operator to do
        _started(proc, name)
        assert _hosted(proc, name).error == ""
        _send(proc, name, b"again")
    finally:
        proc.close()


def _corrupt_epoch_file(path: Path) -> None:
    path.write_bytes(path.read_bytes()[:-2])  # the last line cut: a partial write


def test_a_damaged_epoch_file_is_read_from_its_backup(sandbox: Sandbox, tmp_path: Path) -> None:
    name = "epoch-bak"
    proc = AgentProcess(tmp_path, "a0", sandbox.addresses(), {name: {}})
    try:
        _started(proc, name)
        _send(proc, name, b"kept")
        epochs = [(e.epoch, e.start_offset) for e in _epoch_list(proc, name)]
        proc.stop()
        epoch_file = proc.dir / name / EPOCH_FILE
        backup = epoch_file.with_name(EPOCH_FILE + ".bak")
        shutil.copyfile(epoch_file, backup)  # an intact backup holding what the main file held
        _corrupt_epoch_file(epoch_file)

        _started(proc, name)
        assert f"epoch file {epoch_file} is unusable" in proc.log_text()
        assert f"using its backup {backup}" in proc.log_text()
        now = [(e.epoch, e.start_offset) for e in _epoch_list(proc, name)]
        assert now[: len(epochs)] == epochs and len(now) == len(epochs) + 1  # the backup's history, then the new epoch
        assert _bodies(proc, name)[0] == b"kept"
    finally:
        proc.close()


def test_a_damaged_epoch_file_and_backup_keep_the_broker_from_starting(sandbox: Sandbox, tmp_path: Path) -> None:
    name = "epoch-both"
    proc = AgentProcess(tmp_path, "a0", sandbox.addresses(), {name: {}})
    try:
        _started(proc, name)
        _send(proc, name, b"kept")
        proc.stop()
        epoch_file = proc.dir / name / EPOCH_FILE
        backup = epoch_file.with_name(EPOCH_FILE + ".bak")
        shutil.copyfile(epoch_file, backup)
        _corrupt_epoch_file(epoch_file)
        backup.write_bytes(b"\xff\xfe")
        before = _aged(proc.dir / name)

        _refused_start(proc, name, f"{epoch_file} is unusable", f"its backup {backup} is unusable")
        proc.stop()
        assert _aged(proc.dir / name) == before, "the damaged files and the store are left as they were"
    finally:
        proc.close()


def _epoch_list(proc: AgentProcess, broker_name: str) -> list[Any]:
    request = apb.GetBrokerEpochCacheRequest(broker_name=broker_name)
    return list(proc.stub().GetBrokerEpochCache(request, timeout=5).epoch_list)
