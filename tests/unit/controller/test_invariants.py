"""Random request sequences against random liveness: the invariants of controller/model.py hold after every step.

A "follower" applies the same committed events (after a trip through the log codec) and must end in an
equal state: apply is deterministic and reads nothing but the state and the event.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from controller.codec import decode_events, encode_events
from controller.events import Event
from controller.model import ControllerState, LiveInfo
from controller.requests import Request
from controller.state import apply_event, apply_events, compute
from tests.harness.controller_invariants import (
    ALIVE,
    IDS,
    KEYS,
    LIKELY,
    LIVE_INFOS,
    NAMES,
    REQUESTS,
    Spec,
    check_registered,
    check_result,
    check_state,
    check_transition,
    materialize,
)
from tests.harness.controller_state import two_sets_of_three


class ControllerMachine(RuleBasedStateMachine):
    """A leader deciding requests one at a time, and a follower replaying the committed log."""

    def __init__(self) -> None:
        super().__init__()
        self.state = ControllerState()
        self.follower = ControllerState()
        self.alive: dict[tuple[str, int], LiveInfo] = {}

    @initialize(registered=st.booleans(), alive=ALIVE)
    def start(self, registered: bool, alive: dict[tuple[str, int], LiveInfo]) -> None:
        if registered:
            self.state = self.follower = two_sets_of_three()
        self.alive = dict(alive)

    @rule(name=NAMES, broker_id=IDS, up=LIKELY, info=LIVE_INFOS)
    def liveness_changes(self, name: str, broker_id: int, up: bool, info: LiveInfo) -> None:
        if up:
            self.alive[(name, broker_id)] = info
        else:
            self.alive.pop((name, broker_id), None)

    @rule(drawn=REQUESTS, unclean=st.booleans(), preferred=st.booleans(), grace=st.booleans())
    def request_is_decided_and_committed(
        self, drawn: Request | Spec, unclean: bool, preferred: bool, grace: bool
    ) -> None:
        before = self.state
        request = materialize(drawn, before, self.alive)
        switches = {"allow_unclean": unclean, "preferred_master": preferred, "master_grace": grace}
        result = compute(before, request, self.alive, **switches)
        assert compute(before, request, dict(self.alive), **switches) == result
        check_result(request, result)
        self.state = apply_events(before, result.events)
        self.follower = apply_events(self.follower, decode_events(encode_events(result.events)))
        check_transition(before, self.state)
        check_registered(request, result, self.state)

    @invariant()
    def state_invariants_hold(self) -> None:
        check_state(self.state)

    @invariant()
    def follower_state_equals_leader_state(self) -> None:
        assert self.follower == self.state


TestControllerMachine = ControllerMachine.TestCase
TestControllerMachine.settings = settings(max_examples=150, stateful_step_count=40, deadline=None)


@settings(max_examples=150, deadline=None)
@given(data=st.data(), registered=st.booleans(), alive=ALIVE)
def test_invariants_hold_when_events_are_computed_on_a_stale_state(
    data: st.DataObject, registered: bool, alive: dict[tuple[str, int], LiveInfo]
) -> None:
    """A leader change between compute and commit: events decided up to 3 events ago keep the invariants."""
    start = two_sets_of_three() if registered else ControllerState()
    history, follower = [start], start
    alive = dict(alive)
    for _ in range(data.draw(st.integers(min_value=1, max_value=40), label="steps")):
        for key, up, info in data.draw(st.lists(st.tuples(st.sampled_from(KEYS), LIKELY, LIVE_INFOS), max_size=2)):
            if up:
                alive[key] = info
            else:
                alive.pop(key, None)
        lag = data.draw(st.integers(min_value=0, max_value=min(3, len(history) - 1)), label="lag")
        decided_on = history[-1 - lag]
        request = materialize(data.draw(REQUESTS, label="request"), decided_on, alive)
        result = compute(
            decided_on,
            request,
            alive,
            allow_unclean=data.draw(st.booleans(), label="unclean"),
            preferred_master=data.draw(st.booleans(), label="preferred"),
            master_grace=data.draw(st.booleans(), label="grace"),
        )
        check_result(request, result)
        committed: list[Event] = decode_events(encode_events(result.events))
        for event in committed:
            before = history[-1]
            after = apply_event(before, event)
            check_transition(before, after)
            check_state(after)
            history.append(after)
        follower = apply_events(follower, committed)
        assert follower == history[-1]
