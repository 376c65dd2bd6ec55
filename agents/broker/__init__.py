"""The broker agent: ReplicasManager per hosted broker, the agent gRPC API, and the mqagent process."""
