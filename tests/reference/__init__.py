"""The reference: the real Java RocketMQ 5 on loopback (java_cluster.py), and the differential test against it."""
