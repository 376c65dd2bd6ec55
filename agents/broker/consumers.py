"""One broker set's consumer side, composed: the ledger of its consumer state and the services over it.

Where each decision is made: ``consumer_checks`` (names, topics, groups), ``consumer_ledger`` (which state is served,
the write path of its records, process pauses), ``pop_service`` (receive, ack, invisibility), ``offsets_service``
(commits, resets, progress, deletions), ``delays`` (due delayed messages), ``transactions`` (ends and check-backs),
``escape`` (other sets' escaped changes), ``take_back`` (RIP-32's pre-online merge)."""

from __future__ import annotations

from agents.broker.consumer_ledger import ConsumerLedger, Host
from agents.broker.consumer_snapshots import SnapshotKeeper
from agents.broker.delays import TimerScan
from agents.broker.escape import EscapeIntake
from agents.broker.offsets_service import OffsetsService
from agents.broker.pop_service import PopService
from agents.broker.transactions import TransactionBook
from mqbase.clock import Clock


class Consumers:
    """The consumer groups of one broker set, served by this replica while it is master (or acts as one)."""

    def __init__(self, host: Host, snapshots: SnapshotKeeper, clock: Clock) -> None:
        self.ledger = ConsumerLedger(host, snapshots, clock)
        self.pop = PopService(self.ledger)
        self.offsets = OffsetsService(self.ledger)
        self.timers = TimerScan(self.ledger)
        self.transactions = TransactionBook(self.ledger)
        self.intake = EscapeIntake(self.ledger)
