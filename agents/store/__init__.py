"""The broker store: commit log and epoch file (the replication history replicas compare at the HA handshake)."""
