"""What every consumer request is checked against before it touches the state: names, the topic as this set serves
it, the group's POP policy; and `Refused`, the answer a broker gives instead of acting."""

from __future__ import annotations

from agents.errors import AgentError
from agents.metadata import Group, MetadataTable, Topic
from agents.pop.errors import PopCode
from agents.pop.model import GroupPolicy
from mqbase.codes import ResponseCode
from mqbase.metadata import GROUP_MAX_LENGTH, TOPIC_MAX_LENGTH, TOPIC_START_GROUP, group_problem


class Refused(AgentError, ValueError):
    """A request the broker answers with `code` and a remark instead of acting on it."""

    def __init__(self, code: int, remark: str, pop_code: PopCode = PopCode.BAD_REQUEST) -> None:
        super().__init__(remark)
        self.code = code
        self.pop_code = pop_code


def name_problem(kind: str, name: str, limit: int) -> str | None:
    if not name:
        return f"{kind} is empty"
    if len(name) > limit:
        return f"{kind} is longer than {limit} characters"
    return None


def served_topic(table: MetadataTable, broker_name: str, name: str) -> Topic:
    """The topic `name` as set `broker_name` serves it; `Refused` when it does not, or before the first read."""
    if problem := name_problem("topic", name, TOPIC_MAX_LENGTH):
        raise Refused(ResponseCode.MESSAGE_ILLEGAL, problem)
    if table.version < 0:  # just started: "no such topic" would be a lie, the default policy too
        raise Refused(
            ResponseCode.SERVICE_NOT_AVAILABLE,
            "this broker has not read the topics and groups from the controllers since it started; retry",
        )
    topic = table.topics.get(name)
    if topic is None or broker_name not in topic.broker_names:
        raise Refused(
            ResponseCode.TOPIC_NOT_EXIST,
            f"topic[{name}] not exist on broker set {broker_name}, create it first: mqadmin updateTopic -t {name}",
        )
    return topic


def group_policy(table: MetadataTable, name: str) -> GroupPolicy:
    """The group's POP policy: a group the controller does not know is consumed with Java's defaults (as Java's
    ``autoCreateSubscriptionGroup=true`` creates it); a disabled one is refused."""
    if problem := name_problem("group", name, GROUP_MAX_LENGTH) or (name == TOPIC_START_GROUP and group_problem(name)):
        raise Refused(ResponseCode.MESSAGE_ILLEGAL, problem)
    group: Group | None = table.groups.get(name)
    if group is None:
        return GroupPolicy()
    if not group.consume_enable:
        raise Refused(ResponseCode.NO_PERMISSION, f"subscription group [{name}] has consumeEnable=false")
    return GroupPolicy(group.consume_orderly, group.retry_max_times, group.retry_policy)
