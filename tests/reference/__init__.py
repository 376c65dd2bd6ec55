"""The reference: the differential test against the real Java RocketMQ 5 (tests/harness/java_cluster.py)."""
