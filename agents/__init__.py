"""The broker side: commit-log store and epoch file (``store``), AutoSwitch HA frames (``protocol``) and
replication (``ha``), sockets (``net``), the agent process around them (``broker``: ReplicasManager, the
agent gRPC API, the ``mqagent`` container), the topics and groups a broker learnt from the controllers
(``metadata``), and POP consumption's pure rules (``pop``), which no broker serves yet.
"""
