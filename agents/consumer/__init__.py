"""Consumer state in the replicated log: offsets and POP events as system records, the table they rebuild.

Pure: bytes in, bytes out, no files, threads or clock. The broker writes each change as a message of the system
topic ``rmq_sys_CONSUMER_STATE`` (so HA replication and confirmOffset cover it), snapshots the table it rebuilds,
and after a restart or a failover rebuilds it from the latest snapshot plus the records after it
(docs/storage.md, "Consumer state records").
"""
