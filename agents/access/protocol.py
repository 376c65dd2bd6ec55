"""The RocketMQ 5 gRPC protocol as ``rocketmq-python-client`` 5.1.2 generates it: the one module that imports it.

Importing ``rocketmq.grpc_protocol`` imports the whole client (grpc.aio, opentelemetry), so only an agent that
starts an access point imports this module (``agents.access.server``, loaded lazily), never ``mqadmin``.
"""

from __future__ import annotations

from rocketmq.grpc_protocol import definition_pb2, service_pb2, service_pb2_grpc

v2 = definition_pb2
"""Messages, resources, settings, ``Code`` and the other enums (``definition.proto``)."""
service = service_pb2
"""Requests and responses of ``MessagingService`` (``service.proto``)."""
stubs = service_pb2_grpc
"""``MessagingServiceServicer`` and its registration."""
SERVICE_NAME = "apache.rocketmq.v2.MessagingService"
