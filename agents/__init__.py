"""The broker agent (``mqagent``): commit-log store, epoch file, AutoSwitch HA replication, ReplicasManager.

Arrives with the data-plane and agent issues; the controller side it talks to is in ``controller/``.
"""
