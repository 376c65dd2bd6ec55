"""The agent's gRPC API (agent.proto): sends, pulls, HA status, role pushes, config, and the RIP-31 container.

Every answer carries a RocketMQ ``code`` + ``remark``; gRPC status codes are left to transport failures. The
same servicer serves the agent's container port (broker-scoped requests name their broker) and each hosted
broker's own listen port (where an unnamed request means that broker). Its RPCs are in ``data_rpcs`` and
``admin_rpcs``, the scope of a request in ``rpc_scope``.
"""

from __future__ import annotations

from agents.broker.admin_rpcs import AdminRpcs
from agents.broker.data_rpcs import DataRpcs
from mqbase.proto import agent_pb2 as pb
from mqbase.proto import agent_pb2_grpc as pb_grpc
from mqbase.security import Role as CallerRole

SERVICE = pb.DESCRIPTOR.services_by_name["AgentService"]
_ADMIN, _MEMBER = frozenset({CallerRole.ADMIN}), frozenset({CallerRole.BROKER})
POLICY: dict[str, frozenset[CallerRole]] = {
    "UpdateBrokerConfig": _ADMIN,
    "ResetMasterFlushOffset": _ADMIN,
    "AddBroker": _ADMIN,
    "RemoveBroker": _ADMIN,
    "NotifyBrokerRoleChanged": _MEMBER,  # the controller's calls: cluster members sign with the broker credential
    "PrepareTransfer": _MEMBER,
    "ResumeWrites": _MEMBER,
    "ResetOffsetByTime": _ADMIN,
    "GetConsumerSnapshot": _MEMBER,  # a replica of the set asks: the consumer state is not for everyone
    "GetConsumerState": _MEMBER,  # RIP-32: brokers of the cluster escape and take back consumer state
    "EscapeChanges": _MEMBER,
    "GetEscaped": _MEMBER,
    "ReleaseEscaped": _MEMBER,
    "LockBatchMQ": _MEMBER,  # the set's coordinator asks (RIP-32's lock quorum)
    "UnlockBatchMQ": _MEMBER,
    "DeleteExpiredCommitLog": _ADMIN,
}
"""With aclEnable=true, the calls that need a credential of these roles. Reads stay open, and so does the data
plane (SendMessage, SendMessages, PullMessage): who may connect at all is TLS client authentication's job."""


class AgentServicer(DataRpcs, AdminRpcs, pb_grpc.AgentServiceServicer):
    """AgentService over a Host (``rpc_scope.Host``)."""
