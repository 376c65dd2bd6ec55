"""A child process of replication.py: one slave replica, or one receiver of the plain-copy baseline.

Deployed replicas each live in their own agent process on their own host, so the benchmark gives every slave
(and, for a fair comparison, every plain-copy receiver) a process of its own instead of a thread sharing the
master's GIL. Protocol on stdin/stdout: the child sets up, prints ``ready``, waits for a line on stdin, does
its work, prints ``done <time.monotonic() at the end> <CPU seconds used since the go line>`` (CLOCK_MONOTONIC
is system-wide, so the parent compares the stamps with its own), and exits at the next line on stdin (a slave
stays connected until then, so the parent can read the CPU of the master's connection threads).

    _replica_child.py slave ROOT BROKER_ID MASTER_ADDRESS END_OFFSET SEGMENT_SIZE
    _replica_child.py receive PORT TOTAL_BYTES DEST_FILE_OR_-
"""

from __future__ import annotations

import os
import socket
import sys
import time
from pathlib import Path

from _common import ROOT  # noqa: F401  (puts the repo on sys.path for `agents`)

from agents.ha.config import HAConfig
from agents.ha.replica import Replica

CHUNK = 1 << 20
POLL_S = 0.002


def slave(root: str, broker_id: str, address: str, end: str, segment: str) -> None:
    """Follow the master until the local log ends where the master's does; the files stay for the parent."""
    replica = Replica(Path(root), int(broker_id), HAConfig(), int(segment))
    try:
        handshake()
        cpu = time.process_time()
        replica.change_to_slave(address, epoch=1)
        while replica.store.max_offset < int(end):
            time.sleep(POLL_S)
        report(cpu)
        sys.stdin.readline()
    finally:
        replica.close()


def receive(port: str, total: str, dest: str) -> None:
    """Receive `total` bytes into a reused buffer and write them to `dest` (or discard them for ``-``)."""
    buf = memoryview(bytearray(CHUNK))
    out = os.open(dest, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644) if dest != "-" else -1
    handshake()
    cpu = time.process_time()
    want = int(total)
    try:
        with socket.create_connection(("127.0.0.1", int(port)), timeout=60) as sock:
            got = 0
            while got < want:
                n = sock.recv_into(buf, min(CHUNK, want - got))
                if n == 0:
                    raise OSError(f"server closed after {got} of {want} bytes")
                written = 0
                while out >= 0 and written < n:
                    written += os.write(out, buf[written:n])
                got += n
    finally:
        if out >= 0:
            os.close(out)
    report(cpu)
    sys.stdin.readline()


def handshake() -> None:
    print("ready", flush=True)
    sys.stdin.readline()


def report(cpu_at_go: float) -> None:
    print(f"done {time.monotonic()} {time.process_time() - cpu_at_go}", flush=True)


if __name__ == "__main__":
    command, *args = sys.argv[1:]
    (slave if command == "slave" else receive)(*args)
