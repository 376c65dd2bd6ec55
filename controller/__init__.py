"""The RIP-44 controller (``mqcontroller``): broker-set metadata, topics and subscription groups replicated with
Raft, served over gRPC.

Functional core: ``model``, ``events``, ``requests``, ``election``, ``state``, ``metadata``, ``codec``, ``heartbeat``,
``reads``, ``transfer``, ``append_entries`` (response codes are the floor's ``mqbase.codes``). Shell: ``config``,
``raft`` (the only pysyncobj importer), ``proposer``, ``liveness``, ``transferer``, ``convert``, ``metrics``,
``service`` (gRPC), ``daemon`` (composition root), ``embedded`` (a node on its own thread, for an agent that
hosts one). docs/architecture.md has the module map.
"""
