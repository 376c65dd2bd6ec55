"""The access point's in-process send: what the typed BrokerApi saves over the agent API's protobuf in between.

When the access point's own agent hosts the set's master it calls the broker in-process. Before the BrokerApi it
called a second copy of the agent API's servicer by method name, so each send was translated twice on the way in
(v2 message → ``agent_pb2.Message`` in a ``SendMessagesRequest`` → the broker's ``Message``) and once more on the
way out (the broker's answer → ``SendMessageResponse``). Now it is translated once (v2 → ``Message``) and the
answer (``SendAnswer``) is read as it is. This script times both, interleaved, in one process:

* ``before``: the old path's translations, rebuilt from today's functions (``to_broker`` + ``message_to_pb`` into
  a ``SendMessagesRequest``, ``message_of`` back, ``send_response`` for the answer);
* ``now``: ``to_broker`` alone;
* ``put``: for scale, one whole in-process send (``LocalBroker.send``) on a real master store of one replica in a
  temp directory (admission, born properties, the append and its flush), the cost both paths share.

N messages of 1 KiB with a tag, keys and 3 user properties (default 20 000; --quick: 2 000) per round, R rounds
(default 5; --quick: 1); the median per-send time of each. Timing is reported, not asserted.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from _common import machine_note, parse_args, print_table

from agents.access.messages import to_broker
from agents.access.protocol import v2
from agents.broker.api import SendAnswer
from agents.broker.convert import message_of, message_to_pb, send_response
from agents.broker.manager import ReplicasManager
from agents.store.message_store import Placement
from mqbase.clock import SYSTEM
from mqbase.proto import agent_pb2 as apb
from tests.harness.ha_master import become_master, manager_config, serve_topics

TOPIC = "Orders"


def v2_message(i: int) -> object:
    message = v2.Message(
        topic=v2.Resource(name=TOPIC),
        user_properties={"color": "red", "size": "L", "n": str(i)},
        body=bytes(1024),
    )
    system = message.system_properties
    system.message_id = f"01ABCDEF{i:012d}"
    system.tag = "TagA"
    system.keys.extend([f"k{i}", "order"])
    system.born_host = "10.0.0.1"
    system.born_timestamp.FromMilliseconds(1_700_000_000_000 + i)
    return message


ANSWER = SendAnswer(0, "", "PUT_OK", 1, 1, "127.0.0.1:10911", (Placement(3, 17, 4096),))


def before(message: object) -> int:
    request = apb.SendMessagesRequest(messages=[message_to_pb(to_broker(message))])
    [m] = [message_of(p) for p in request.messages]
    offset: int = send_response(ANSWER).results[0].queue_offset
    return len(m.body) + offset


def now(message: object) -> int:
    m = to_broker(message)
    return len(m.body) + ANSWER.placed[0].queue_offset


def per_send_us(step: Callable[[object], int], messages: list[object]) -> float:
    started = time.perf_counter()
    for m in messages:
        step(m)
    return (time.perf_counter() - started) / len(messages) * 1e6


def put_us(messages: list[object], root: Path) -> float:
    """One in-process send per message through a master's LocalBroker (a set of one, flushed)."""
    manager = ReplicasManager(manager_config(root), clock=SYSTEM)
    manager.open_replica(1)
    become_master(manager, members=frozenset({1}))
    serve_topics(manager, TOPIC)
    try:
        started = time.perf_counter()
        for m in messages:
            answer = manager.api.send([to_broker(m)], None)
            assert answer.code == 0, answer
        return (time.perf_counter() - started) / len(messages) * 1e6
    finally:
        assert manager.replica is not None
        manager.replica.close()


def options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--messages", type=int, help="messages per round (default 20000; --quick: 2000)")
    parser.add_argument("--rounds", type=int, help="interleaved rounds (default 5; --quick: 1)")


def main() -> None:
    args = parse_args(__doc__, options)
    n = args.messages or (2_000 if args.quick else 20_000)
    rounds = args.rounds or (1 if args.quick else 5)
    print(f"machine at the start: {machine_note()}", flush=True)
    messages = [v2_message(i) for i in range(n)]
    assert before(messages[0]) == now(messages[0])  # the same message comes out either way
    times: dict[str, list[float]] = {"before": [], "now": [], "put": []}
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(rounds):
            order = [("before", before), ("now", now)] if r % 2 == 0 else [("now", now), ("before", before)]
            for name, step in order:
                times[name].append(per_send_us(step, messages))
            times["put"].append(put_us(messages[: max(1, n // 10)], Path(tmp) / f"r{r}"))
    b, w, p = (statistics.median(times[k]) for k in ("before", "now", "put"))
    rows = [
        ["translations before (v2 → agent protobuf → message, answer → protobuf)", f"{b:.1f}", f"{b / w:.2f}"],
        ["translations now (v2 → message)", f"{w:.1f}", "1.00"],
        ["one in-process send on a master store, for scale", f"{p:.0f}", f"{p / w:.0f}"],
    ]
    print_table(f"{n} v2 messages of 1 KiB per round, {rounds} round(s), medians", ["path", "µs per send", "× now"],
                rows)  # fmt: skip
    print(f"saved per in-process send: {b - w:.1f} µs ({(b - w) / (p + b - w) * 100:.1f} % of a send the old way)")
    print(f"machine after: {machine_note()}")


if __name__ == "__main__":
    main()
