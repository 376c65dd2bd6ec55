"""The broker side: commit-log store and epoch file (``store``), AutoSwitch HA frames (``protocol``) and
replication (``ha``), sockets (``net``). The agent process (``mqagent``, ReplicasManager) comes next.
"""
