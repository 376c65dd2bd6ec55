"""The ``mqadmin`` admin toolkit: CLI, controller client, local sandbox, and the shared gRPC protos."""

__version__ = "0.1.0"
