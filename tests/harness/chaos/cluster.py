"""The cluster under chaos: 3 controllers and 3 agents on loopback, every peer link through a ``ProxyHub`` link.

Addresses (all on 127.0.0.0/8, ports chosen by ``unused_port``):

| host | what listens there |
|---|---|
| 127.0.0.1 | the agents: container and broker gRPC ports, the HA ports (bound on ``brokerIP1``) |
| 127.0.0.4 | the link proxies in front of controller Raft ports and of controller gRPC ports (one per agent) |
| 127.0.0.5 | the controllers: gRPC, and the Raft address each node calls itself (pysyncobj binds 0.0.0.0) |
| 127.0.0.6 | the HA proxies: each broker advertises ``brokerIP2=127.0.0.6`` as its HA host |

**Raft links.** pysyncobj keeps one connection per pair of nodes, opened by the node whose own address
sorts higher, which then names itself with that address. So each node's ``controllerPeers`` differs: the
initiating node of a pair lists its partner at a proxy on 127.0.0.4 (which sorts lower, so it still
initiates), the other lists the initiator at its real address (which it never dials). One proxy per pair
makes every Raft link separately breakable. **Redirects.** The gRPC port in the other nodes' entries is an
address where nothing listens, so a NOT_LEADER redirect can never reach a controller around an agent's
proxy: clients fall back to their configured (proxied) addresses. **gRPC links.** Agent *a* reaches
controller *k* only through its own proxy, so cutting an agent's three proxies partitions it from the
controller group. **HA links.** Slaves reach a master through the proxy in front of its HA port, so cutting
it partitions the master from all its slaves.

Every process is started by this module and stopped by pid (``close``), also when a test fails.
"""

from __future__ import annotations

import json
import pickle
import re
import struct
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import grpc

from agents.consumer import snapshot
from agents.consumer.records import from_message
from agents.consumer.state import ConsumerState
from agents.store.epoch_file import EpochFile
from agents.store.layout import CONSUMER_SNAPSHOT, STORE_DIR
from agents.store.record import Message, blank_size_at, decode_at
from controller.codec import decode_events, decode_state
from controller.model import ControllerState
from controller.state import apply_events
from mqbase.client import ControllerClient
from mqbase.errors import MqError
from mqbase.proto import agent_pb2 as pb
from mqbase.proto import controller_pb2 as cpb
from tests.harness.agents import FAST, AgentProcess
from tests.harness.chaos.history import ControllerView, ReplicaFiles, RoleChange
from tests.harness.chaos.proxy import Link, Mode, ProxyHub
from tests.harness.controllers import CONTROLLER_CONFIG
from tests.harness.processes import ChildProcess, unused_port

AGENT_HOST = "127.0.0.1"
PROXY_HOST = "127.0.0.4"
CONTROLLER_HOST = "127.0.0.5"
HA_PROXY_HOST = "127.0.0.6"
CLUSTER = "E2ECluster"  # AgentProcess's cluster name
FSYNC_DELAY_ENV = "MQAGENT_TEST_FSYNC_DELAY_MS"
ROLE_LINE = re.compile(
    r"(?P<cluster>[^\s/]+)/(?P<set>\S+): broker (?P<id>\d+) is (?P<role>master|slave|fenced) "
    r"in epoch (?P<epoch>\d+)"
)


TRANSACTIONS = {"transactionTimeOut": "1000", "transactionCheckInterval": "1000", "transactionCheckMax": "100"}
"""A half message is checked back 1 s after it was stored, then every second, and dropped only after 100 checks:
the run's faults never last that long, so a drop would be a bug (invariant 9), not the workload's."""


class ControllerProc(ChildProcess):
    """One ``mqcontroller`` process with its own peer list (see the module docstring)."""

    def __init__(self, directory: Path, node_id: str, peers: str, extra: dict[str, str]) -> None:
        super().__init__(directory / node_id, "controller.log")
        self.id = node_id
        self.store = directory / "store"
        self.conf = self.dir / "controller.conf"
        values = {
            "controllerGroup": "chaos",
            "controllerPeers": peers,
            "controllerSelfId": node_id,
            "controllerStorePath": str(self.store),
            **CONTROLLER_CONFIG,
            **extra,
        }
        self.conf.write_text("".join(f"{k}={v}\n" for k, v in values.items()))

    @property
    def node_store(self) -> Path:
        return self.store / self.id

    def start(self) -> None:
        self.spawn(["-m", "mqadmin_py.mqcontroller", "-c", str(self.conf)], {"GRPC_VERBOSITY": "ERROR"})

    def signal(self, sig: int) -> None:
        """Send `sig` if it runs: a fault's heal may come after another fault killed the node."""
        if self.running():
            super().signal(sig)


@dataclass(frozen=True, slots=True)
class Links:
    """Names of the proxy links, by what they connect."""

    raft: dict[frozenset[str], str]
    grpc: dict[tuple[str, str], str]
    """(agent, controller id) → link."""
    ha: dict[tuple[str, str], str]
    """(agent, broker set) → link in front of that replica's HA port."""


class ChaosCluster:
    """3 controllers, 3 agents hosting one replica of each broker set, and the proxies between them."""

    def __init__(
        self,
        directory: Path,
        broker_sets: list[str],
        broker_config: dict[str, str] | None = None,
        controller_config: dict[str, str] | None = None,
    ) -> None:
        """`broker_config` and `controller_config` override keys of every broker / controller node."""
        self.dir = directory
        self.sets = broker_sets
        self.acting_enabled = (broker_config or {}).get("enableSlaveActingMaster") == "true"
        self.hub = ProxyHub()
        self.controllers: dict[str, ControllerProc] = {}
        self.agents: list[AgentProcess] = []
        self.slow_disk: dict[str, int] = {}
        """agent name → fsync delay (ms) it runs with now."""
        ids = ["n0", "n1", "n2"]
        raft = {i: unused_port() for i in ids}
        grpc_port = {i: unused_port() for i in ids}
        self_addr = {i: f"{CONTROLLER_HOST}:{raft[i]}" for i in ids}
        raft_links: dict[frozenset[str], str] = {}
        peers_of: dict[str, list[str]] = {i: [f"{i}-{self_addr[i]}:{grpc_port[i]}"] for i in ids}
        for a in ids:
            for b in ids:
                if a >= b:
                    continue
                caller, callee = (a, b) if self_addr[a] > self_addr[b] else (b, a)
                link = self.hub.add(
                    f"raft {caller}->{callee}", (PROXY_HOST, unused_port()), (CONTROLLER_HOST, raft[callee])
                )
                raft_links[frozenset((a, b))] = link.name
                peers_of[caller].append(f"{callee}-{PROXY_HOST}:{link.listen[1]}:{unused_port()}")
                peers_of[callee].append(f"{caller}-{self_addr[caller]}:{unused_port()}")
        extra = {"raftLogCompactionMinEntries": "2000", **(controller_config or {})}
        for i in ids:
            self.controllers[i] = ControllerProc(directory / "controllers", i, ";".join(peers_of[i]), extra)
        self.controller_addresses = {i: f"{CONTROLLER_HOST}:{grpc_port[i]}" for i in ids}
        grpc_links: dict[tuple[str, str], str] = {}
        ha_links: dict[tuple[str, str], str] = {}
        for n in range(3):
            name = f"agent{n}"
            via: list[str] = []
            for i in ids:
                link = self.hub.add(f"grpc {name}->{i}", (PROXY_HOST, unused_port()), (CONTROLLER_HOST, grpc_port[i]))
                grpc_links[(name, i)] = link.name
                via.append(link.address)
            brokers: dict[str, dict[str, str]] = {}
            for set_name in broker_sets:
                ha = unused_port()
                link = self.hub.add(f"ha {name}/{set_name}", (HA_PROXY_HOST, ha), (AGENT_HOST, ha))
                ha_links[(name, set_name)] = link.name
                brokers[set_name] = {
                    **FAST,
                    **TRANSACTIONS,
                    **(broker_config or {}),
                    "haListenPort": str(ha),
                    "brokerIP2": HA_PROXY_HOST,
                }
            self.agents.append(AgentProcess(directory / "agents", name, ";".join(via), brokers))
        self.links = Links(raft_links, grpc_links, ha_links)
        self.client = ControllerClient(list(self.controller_addresses.values()), timeout=1.5)

    # --- life cycle ------------------------------------------------------------------------------

    def start(self) -> None:
        for c in self.controllers.values():
            c.start()
        for a in self.agents:
            a.start()

    def close(self) -> None:
        """Stop every process (agents first) by pid and close the proxies; safe to call twice."""
        for a in self.agents:
            a.close()
        for c in self.controllers.values():
            c.stop()
        self.client.close()
        self.hub.close()

    def agent(self, name: str) -> AgentProcess:
        return next(a for a in self.agents if a.name == name)

    def start_agent(self, agent: AgentProcess, fsync_delay_ms: int = 0) -> None:
        """Start `agent`, with a slow disk when `fsync_delay_ms` > 0 (``MQAGENT_TEST_FSYNC_DELAY_MS``)."""
        self.slow_disk.pop(agent.name, None)
        if fsync_delay_ms:
            self.slow_disk[agent.name] = fsync_delay_ms
        agent.start({FSYNC_DELAY_ENV: str(fsync_delay_ms)} if fsync_delay_ms else None)

    # --- views -----------------------------------------------------------------------------------

    def set_mode(self, link: str, mode: Mode) -> None:
        self.hub.set_mode(link, mode)

    def link(self, name: str) -> Link:
        return self.hub.links[name]

    def raft_links_of(self, node_id: str) -> list[str]:
        """The Raft links between `node_id` and its peers: cutting them partitions it from the group."""
        return [name for pair, name in self.links.raft.items() if node_id in pair]

    def leader(self, among: Iterable[str] | None = None) -> str | None:
        """The controller id that serves as leader now, asked of every running node (of `among`) directly.

        A node cut off from its peers may still say so (see ``raft_links_of``): pass `among` to ask only some.
        """
        for node_id, c in self.controllers.items():
            if not c.running() or (among is not None and node_id not in among):
                continue
            try:
                meta = self.client.metadata(self.controller_addresses[node_id])
            except MqError:
                continue
            if meta.is_leader and meta.raft.ready:
                return node_id
        return None

    def sync_state(self) -> dict[str, cpb.ReplicasInfo]:
        """GetSyncStateData of every set (through the leader); raises MqError when no leader answers."""
        reply: cpb.GetSyncStateDataResponse = self.client.call(
            "GetSyncStateData", cpb.GetSyncStateDataRequest(broker_names=self.sets)
        )
        return {info.broker_name: info for info in reply.replicas_info}

    def agent_at(self, broker_set: str, address: str) -> AgentProcess | None:
        """The agent whose replica of `broker_set` has the broker address `address`."""
        for a in self.agents:
            if f"{AGENT_HOST}:{a.broker_ports[broker_set]}" == address:
                return a
        return None

    def acting_replica(self, broker_set: str) -> AgentProcess | None:
        """The agent whose replica of `broker_set` acts as its master (RIP-32), as the agents list it; None at once
        when acting is off, so the random schedule's clients never wait on a paused agent here."""
        if not self.acting_enabled:
            return None
        for a in self.agents:
            if a.proc is None or a.proc.poll() is not None:
                continue
            try:
                listed = a.stub().ListBrokers(pb.ListBrokersRequest(), timeout=0.5).brokers
            except grpc.RpcError:
                continue
            if any(b.broker_name == broker_set and b.acting_master for b in listed):
                return a
        return None

    def masters(self) -> dict[str, AgentProcess]:
        """Set → the agent hosting its master, as the controller leader says (sets without one left out)."""
        out: dict[str, AgentProcess] = {}
        for name, info in self.sync_state().items():
            if info.HasField("master_address"):
                agent = self.agent_at(name, info.master_address)
                if agent is not None:
                    out[name] = agent
        return out

    def role_changes(self) -> list[RoleChange]:
        """Every role change the agents logged, over all their restarts."""
        out = []
        for a in self.agents:
            path = a.dir / "agent.log"
            if not path.exists():
                continue
            for line in path.read_text(errors="replace").splitlines():
                if m := ROLE_LINE.search(line):
                    out.append(RoleChange(m["set"], int(m["id"]), m["role"], int(m["epoch"]), a.name))
        return out

    # --- offline reads (after the processes stopped) ---------------------------------------------

    def replica_root(self, agent: AgentProcess, broker_set: str) -> Path:
        return agent.dir / broker_set

    def replica_files(
        self, agent: AgentProcess, broker_set: str, broker_id: int, is_master: bool, confirm: int
    ) -> ReplicaFiles:
        root = self.replica_root(agent, broker_set)
        epochs = EpochFile(root / "epochFileCheckpoint").load()
        min_offset, data = read_commit_log(root / "store" / "commitlog")
        end = last_boundary(data)
        return ReplicaFiles(
            agent.name,
            broker_id,
            is_master,
            confirm,
            min_offset,
            bytes(data[:end]),
            tuple((e.epoch, e.start_offset) for e in epochs.entries),
        )

    def controller_history(self, node_id: str, last_index: int) -> list[tuple[int, ControllerState]]:
        """(Raft index, state) after each entry up to `last_index`, rebuilt from a stopped node's store."""
        return read_controller_history(self.controllers[node_id].node_store, last_index)


def read_commit_log(directory: Path) -> tuple[int, bytearray]:
    """The first offset and the bytes of all segments (named by their first offset), in order."""
    segments = sorted((int(p.name), p) for p in directory.iterdir() if p.name.isdigit())
    if not segments:
        return 0, bytearray()
    data = bytearray()
    for start, path in segments:
        if start != segments[0][0] + len(data):
            raise AssertionError(f"{directory}: segment {path.name} does not follow on at {segments[0][0] + len(data)}")
        data += path.read_bytes()
    return segments[0][0], data


def last_boundary(data: bytes | bytearray) -> int:
    """Where the intact records (and the blanks that close segments) end."""
    pos = 0
    while pos < len(data):
        found = decode_at(data, pos)
        if found is not None:
            pos += found[1]
            continue
        blank = blank_size_at(data, pos)
        if not blank:
            break
        pos += blank
    return pos


def records(data: bytes | bytearray, base: int) -> dict[int, Message]:
    """Commit-log offset → every message record in `data` (which starts at offset `base`)."""
    out: dict[int, Message] = {}
    pos = 0
    while pos < len(data):
        found = decode_at(data, pos)
        if found is not None:
            out[base + pos] = found[0]
            pos += found[1]
            continue
        blank = blank_size_at(data, pos)
        if not blank:
            break
        pos += blank
    return out


def consumer_state(root: Path, log: bytes, base: int) -> ConsumerState:
    """The consumer state a replica's files rebuild to, as its broker rebuilds it when it becomes master: the
    snapshot (if any) and the consumer-state records of `log` (starting at `base`) after the snapshot's cut."""
    path = root / STORE_DIR / CONSUMER_SNAPSHOT
    cut = snapshot.decode(path.read_bytes()) if path.exists() else None
    start = cut.covered if cut is not None else 0
    stored = (from_message(m) for offset, m in sorted(records(log, base).items()) if offset >= start)
    return snapshot.rebuild(cut, (r for carried in stored for r in carried))


_JOURNAL_LAST_RECORD_AT = 24 + 8 + 4
"""pysyncobj's FileJournal header: app name (24 bytes), version (8), format (4), then the end of the records."""
_JOURNAL_FIRST_RECORD = _JOURNAL_LAST_RECORD_AT + 4
_REGULAR_COMMAND = b"\x00"


def journal_entries(path: Path) -> list[tuple[bytes, int, int]]:
    """(command, Raft index, term) of every record of a pysyncobj journal file (read only)."""
    data = path.read_bytes()
    (end,) = struct.unpack_from("<I", data, _JOURNAL_LAST_RECORD_AT)
    out = []
    pos = _JOURNAL_FIRST_RECORD
    while pos < end:  # each record: u32 size, u64 index, u64 term, command, u32 size
        (size,) = struct.unpack_from("<I", data, pos)
        index, term = struct.unpack_from("<QQ", data, pos + 4)
        out.append((data[pos + 20 : pos + 4 + size], index, term))
        pos += size + 8
    return out


def read_controller_history(node_store: Path, last_index: int) -> list[tuple[int, ControllerState]]:
    """Replay a stopped controller's snapshot and journal up to `last_index`: the state after each entry.

    A regular journal command is a type byte and the pickled ``(method id, (blob,))`` of the one replicated
    method, ``RaftNode._apply(blob)``; the blob is our JSON event list (``controller.codec``).
    """
    state = ControllerState()
    snapshot_index = 0
    out: list[tuple[int, ControllerState]] = []
    snapshot = node_store / "raft.snapshot"
    if snapshot.exists():
        doc = json.loads(snapshot.read_text())
        state = decode_state(json.dumps(doc["state"]).encode())
        snapshot_index = int(doc["raft"]["lastEntry"][1])
        out.append((snapshot_index, state))
    for command, index, _term in journal_entries(node_store / "raft.journal"):
        if index <= snapshot_index or index > last_index or command[:1] != _REGULAR_COMMAND:
            continue
        _method, (blob,) = pickle.loads(command[1:])  # our own node's file
        state = apply_events(state, decode_events(blob))
        out.append((index, state))
    return out


def views_of(node: str, state: ControllerState, seq: float, source: str) -> list[ControllerView]:
    return [
        ControllerView(
            node,
            name,
            bs.master_epoch,
            bs.sync_state_set_epoch,
            bs.master_id,
            tuple(sorted(bs.sync_state_set)),
            seq,
            source,
        )
        for name, bs in state.broker_sets.items()
    ]
