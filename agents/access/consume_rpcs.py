"""The access point's consumption RPCs: ReceiveMessage (long polling, with the push consumer's renewals),
AckMessage (per broker set the handles name), ChangeInvisibleDuration and ForwardMessageToDeadLetterQueue; each
through the ``Forwarder`` to the set's master, or the replica acting for it (RIP-32)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from agents.access import auth, timing
from agents.access.calls import Calls, status
from agents.access.codes import Code, consumer_code
from agents.access.messages import delivered
from agents.access.protocol import service
from agents.access.validation import Problem, group_problem
from agents.broker.api import AckRequest, ChangeInvisibleRequest, ReceiveRequest
from agents.pop.handle import ReceiptHandle
from mqbase.clock import wall_ms


class ConsumeRpcs(Calls):
    """Receives, acks, changes of invisibility and dead-letter forwards."""

    async def ReceiveMessage(self, request: Any, context: Any) -> AsyncIterator[Any]:
        def done() -> Any:
            end = service.ReceiveMessageResponse()
            end.delivery_timestamp.GetCurrentTime()
            return end

        problem = self._refused(context) or group_problem(request.group.name)
        topic = problem or await self._topic(request.message_queue.topic.name)
        if isinstance(topic, Problem):
            yield service.ReceiveMessageResponse(status=status(topic.code, topic.message))
            yield done()
            return
        broker_name = request.message_queue.broker.name
        if broker_name not in topic.broker_names:
            yield service.ReceiveMessageResponse(
                status=status(Code.BAD_REQUEST, f"broker set {broker_name!r} does not serve topic {topic.name}")
            )
            yield done()
            return
        invisible = timing.invisible_ms(request.auto_renew, request.invisible_duration.ToMilliseconds())

        def make(deadline: float) -> Any:
            polling = timing.long_polling_ms(
                request.long_polling_timeout.ToMilliseconds(), self._clock.monotonic(), deadline
            )
            return ReceiveRequest(
                request.group.name, topic.name, request.batch_size, invisible, request.filter_expression.expression,
                polling, request.attempt_id,
            )  # fmt: skip

        try:
            answer = await self._forward.receive(broker_name, make, self._deadline(context))
        except timing.GaveUp as exc:
            yield service.ReceiveMessageResponse(status=status(exc.problem.code, exc.problem.message))
            yield done()
            return
        code = consumer_code(answer.code, answer.pop_code)
        if code == Code.OK and not answer.messages:
            code = Code.MESSAGE_NOT_FOUND
        yield service.ReceiveMessageResponse(status=status(code, answer.remark or code.name))
        namespace = request.message_queue.topic.resource_namespace
        client_id = self._headers(context)[auth.CLIENT_ID]
        for received in answer.messages:
            if request.auto_renew:
                self._renewer.track(client_id, broker_name, request.group.name, topic.name, received.receipt_handle,
                                    received.invisible_until_ms)  # fmt: skip
            yield service.ReceiveMessageResponse(message=delivered(received, namespace))
        yield done()

    def _handle(self, text: str, group: str, topic: str) -> ReceiptHandle | Problem:
        handle = timing.receipt(text, wall_ms(self._clock))
        if isinstance(handle, ReceiptHandle) and (handle.group, handle.topic) != (group, topic):
            return Problem(Code.INVALID_RECEIPT_HANDLE, f"the receipt handle is for {handle.group}/{handle.topic}")
        return handle

    async def _one_handle(self, request: Any, context: Any) -> tuple[str, ReceiptHandle] | Problem:
        """A single-handle request's handle as the renewer holds it now (a push consumer's may have been renewed
        since the client read it), decoded and checked against the request's group and topic; or why not."""
        if problem := self._refused(context) or group_problem(request.group.name):
            return problem
        text = await self._renewer.take(request.receipt_handle)
        handle = self._handle(text, request.group.name, request.topic.name)
        return handle if isinstance(handle, Problem) else (text, handle)

    async def AckMessage(self, request: Any, context: Any) -> Any:
        if problem := self._refused(context) or group_problem(request.group.name):
            return service.AckMessageResponse(status=status(problem.code, problem.message))
        group, topic = request.group.name, request.topic.name
        results: dict[int, Any] = {}
        by_set: dict[str, list[int]] = {}
        current = [await self._renewer.take(entry.receipt_handle) for entry in request.entries]
        for i, text in enumerate(current):
            handle = self._handle(text, group, topic)
            if isinstance(handle, Problem):
                results[i] = status(handle.code, handle.message)
            else:
                by_set.setdefault(handle.broker_name, []).append(i)
        deadline = self._deadline(context)
        for broker_name, indexes in by_set.items():
            handles = [current[i] for i in indexes]
            ack = AckRequest(group, topic, tuple(handles))
            try:
                answer = await self._forward.ack(broker_name, ack, deadline)
            except timing.GaveUp as exc:
                results.update((i, status(exc.problem.code, exc.problem.message)) for i in indexes)
                continue
            for n, i in enumerate(indexes):
                if answer.code != 0 or n >= len(answer.results):
                    code = consumer_code(answer.code, 0)
                    results[i] = status(code, answer.remark or code.name)
                else:
                    r = answer.results[n]
                    code = consumer_code(r.code, r.pop_code)
                    results[i] = status(code, r.remark or code.name)
        entries = [
            service.AckMessageResultEntry(message_id=e.message_id, receipt_handle=e.receipt_handle, status=results[i])
            for i, e in enumerate(request.entries)
        ]
        codes = {results[i].code for i in results}
        if not codes:
            top = status(Code.BAD_REQUEST, "no receipt handle to ack")
        elif len(codes) == 1:
            top = entries[0].status
        else:
            top = status(Code.MULTIPLE_RESULTS, "the entries have different results")
        return service.AckMessageResponse(status=top, entries=entries)

    async def ChangeInvisibleDuration(self, request: Any, context: Any) -> Any:
        def refused(code: Code, message: str) -> Any:  # the client keeps the handle it gets back, refused too
            return service.ChangeInvisibleDurationResponse(
                status=status(code, message), receipt_handle=request.receipt_handle
            )

        found = await self._one_handle(request, context)
        if isinstance(found, Problem):
            return refused(found.code, found.message)
        text, handle = found
        change = ChangeInvisibleRequest(
            request.group.name, request.topic.name, text, request.invisible_duration.ToMilliseconds()
        )
        try:
            answer = await self._forward.change_invisible(handle.broker_name, change, self._deadline(context))
        except timing.GaveUp as exc:
            return refused(exc.problem.code, exc.problem.message)
        code = consumer_code(answer.code, answer.pop_code)
        return service.ChangeInvisibleDurationResponse(
            status=status(code, answer.remark or code.name),
            receipt_handle=answer.receipt_handle or request.receipt_handle,
        )

    async def ForwardMessageToDeadLetterQueue(self, request: Any, context: Any) -> Any:
        """A FIFO push consumer gives up a message: the master copies it into ``%DLQ%<group>`` and acks it."""

        def answer(code: Code, message: str) -> Any:
            return service.ForwardMessageToDeadLetterQueueResponse(status=status(code, message))

        found = await self._one_handle(request, context)
        if isinstance(found, Problem):
            return answer(found.code, found.message)
        text, handle = found
        ack = AckRequest(request.group.name, request.topic.name, (text,), dead_letter=True)
        try:
            done = await self._forward.ack(handle.broker_name, ack, self._deadline(context))
        except timing.GaveUp as exc:
            return answer(exc.problem.code, exc.problem.message)
        if done.code != 0 or not done.results:
            code = consumer_code(done.code, 0)
            return answer(code, done.remark or code.name)
        code = consumer_code(done.results[0].code, done.results[0].pop_code)
        return answer(code, done.results[0].remark or code.name)
