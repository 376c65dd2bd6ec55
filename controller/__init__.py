"""The RIP-44 controller (``mqcontroller``): broker-set metadata replicated with Raft, served over gRPC.

Functional core: ``model``, ``events``, ``requests``, ``codes``, ``election``, ``state``, ``codec``,
``heartbeat``. Shell: ``config``, ``raft`` (the only pysyncobj importer), ``proposer``, ``liveness``,
``convert``, ``service`` (gRPC), ``daemon`` (composition root).
"""
