"""The RocketMQ 5 gRPC access point (``apache.rocketmq.v2.MessagingService``): official clients talk to
any agent, which forwards each request to its broker set's master over the agent API ([clients.md])."""
