"""Names under a broker's ``storePathRootDir``, shared by the replica that writes them and readers in place.

``<storePathRootDir>/brokerIdentity`` (``agents.identity``), ``<storePathRootDir>/epochFileCheckpoint`` (and its
``.bak``), and the message store in ``<storePathRootDir>/store/`` (commit log, consume queues, checkpoint).
"""

from __future__ import annotations

EPOCH_FILE = "epochFileCheckpoint"
STORE_DIR = "store"
"""The MessageStore's folder."""
CONSUMER_SNAPSHOT = "consumerStateSnapshot"
"""The consumer-state snapshot (``agents.consumer.snapshot``), in the MessageStore's folder beside the log it covers."""
