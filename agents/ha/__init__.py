"""AutoSwitch HA: the master's SyncStateSet bookkeeping and the replication sessions."""
