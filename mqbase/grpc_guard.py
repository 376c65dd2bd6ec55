"""Requests whose bytes are not a protobuf of their method's type: refused with ``INVALID_ARGUMENT``, on every server.

Left alone, grpcio answers such a request itself, before any of our code runs, and not the same way twice: UNKNOWN
"Unexpected DecodeError…" on a grpc.aio server (the controller), INTERNAL "Exception deserializing request!" on a
threaded one (the agent), and a stream read with ``context.read()`` (``HeartbeatStream``) ends with OK. The
interceptors here wrap each handler's ``request_deserializer`` so that a ``DecodeError`` becomes an ``Undecodable``
value instead of an exception, and wrap the handler so that such a value aborts the call with ``INVALID_ARGUMENT``
and ``undecodable_details`` before the handler (or an interceptor inside this one) sees it; a stream aborts at the
first message that does not parse. Every method of every service whose descriptor is loaded is covered, ours and
grpc's own (health, reflection); a method without a known request type is left as grpcio serves it.

Place the interceptor outside the access check (``security.ServerGuard``/``AioServerGuard``: an undecodable
request has no body whose signature could be checked) and inside the controller's request metrics (a refusal is
counted with ``code="error"``, as any aborted call).
"""

from __future__ import annotations

import functools
import inspect
import logging
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import grpc
from google.protobuf import descriptor_pool  # type: ignore[import-untyped]
from google.protobuf.message import DecodeError  # type: ignore[import-untyped]

log = logging.getLogger(__name__)


class Undecodable:
    """What a wrapped deserializer returns for bytes that do not parse: the details of the refusal."""

    __slots__ = ("details",)

    def __init__(self, details: str) -> None:
        self.details = details


@functools.cache
def request_type(method: str) -> str | None:
    """The full name of the request type of `method` (a gRPC path, ``/pkg.Service/Method``); None when unknown.

    Cached: the interceptors ask only for methods the server has a handler for.
    """
    service, _, name = method.lstrip("/").rpartition("/")
    try:
        return str(descriptor_pool.Default().FindMethodByName(f"{service}.{name}").input_type.full_name)
    except KeyError:
        return None


def undecodable_details(method: str, type_name: str) -> str:
    """The details of the refusal of a request to `method` that is not a `type_name` protobuf."""
    return (
        f"{method}: the request is not a valid {type_name} protobuf; the caller may speak another version of the "
        "API: check that the client and the server run matching versions"
    )


def tolerant(deserializer: Callable[[bytes], Any], details: str) -> Callable[[bytes], Any]:
    """`deserializer` returning ``Undecodable(details)`` for bytes that do not parse, instead of raising."""

    def decode(data: bytes) -> Any:
        try:
            return deserializer(data)
        except DecodeError:
            return Undecodable(details)

    return decode


_CONSTRUCTORS = {
    (False, False): grpc.unary_unary_rpc_method_handler,
    (False, True): grpc.unary_stream_rpc_method_handler,
    (True, False): grpc.stream_unary_rpc_method_handler,
    (True, True): grpc.stream_stream_rpc_method_handler,
}


def _rebuilt(handler: Any, method: str, behavior: Callable[..., Any]) -> Any:
    """`handler` running `behavior` and deserializing tolerantly."""
    details = undecodable_details(method, request_type(method) or "?")
    return _CONSTRUCTORS[handler.request_streaming, handler.response_streaming](
        behavior,
        request_deserializer=tolerant(handler.request_deserializer, details),
        response_serializer=handler.response_serializer,
    )


def _inner(handler: Any) -> Callable[..., Any]:
    return handler.stream_stream or handler.stream_unary or handler.unary_stream or handler.unary_unary  # type: ignore[no-any-return]


def _covered(handler: Any, method: str) -> bool:
    return handler is not None and handler.request_deserializer is not None and request_type(method) is not None


def _refused(method: str, context: Any, request: Any) -> str | None:
    """The details to abort with when `request` did not parse (logged), else None."""
    if not isinstance(request, Undecodable):
        return None
    log.warning("refused %s from %s: the request does not parse", method, context.peer())
    return request.details


class DecodeGuard(grpc.ServerInterceptor):  # type: ignore[misc]
    """Undecodable requests end with ``INVALID_ARGUMENT`` on a synchronous grpc server (the agent)."""

    def intercept_service(self, continuation: Callable[[Any], Any], details: Any) -> Any:
        handler = continuation(details)
        method = details.method
        if not _covered(handler, method):
            return handler
        inner = _inner(handler)

        def check(context: Any, request: Any) -> None:
            refusal = _refused(method, context, request)
            if refusal is not None:
                context.abort(grpc.StatusCode.INVALID_ARGUMENT, refusal)  # raises

        def checked_requests(requests: Iterator[Any], context: Any) -> Iterator[Any]:
            for request in requests:
                check(context, request)
                yield request

        def checked(request: Any, context: Any) -> Any:
            if handler.request_streaming:
                return inner(checked_requests(request, context), context)
            check(context, request)
            return inner(request, context)

        return _rebuilt(handler, method, checked)


class _CheckedReads:
    """A grpc.aio servicer context whose ``read()`` aborts at a message that does not parse."""

    def __init__(self, context: Any, method: str) -> None:
        self._context = context
        self._method = method

    def __getattr__(self, name: str) -> Any:
        return getattr(self._context, name)

    async def read(self) -> Any:
        request = await self._context.read()
        refusal = _refused(self._method, self._context, request)
        if refusal is not None:
            await self._context.abort(grpc.StatusCode.INVALID_ARGUMENT, refusal)
        return request


class AioDecodeGuard(grpc.aio.ServerInterceptor):  # type: ignore[misc]
    """Undecodable requests end with ``INVALID_ARGUMENT`` on a grpc.aio server (the controller)."""

    async def intercept_service(self, continuation: Callable[[Any], Any], details: Any) -> Any:
        handler = await continuation(details)
        method = details.method
        if not _covered(handler, method):
            return handler
        inner = _inner(handler)
        generator = inspect.isasyncgenfunction(inner)
        if not (generator or inspect.iscoroutinefunction(inner)):
            return handler  # a synchronous behavior (grpc.aio runs it in a thread): not ours, left as served

        async def check(context: Any, request: Any) -> None:
            refusal = _refused(method, context, request)
            if refusal is not None:
                await context.abort(grpc.StatusCode.INVALID_ARGUMENT, refusal)  # raises

        async def checked_requests(requests: AsyncIterator[Any], context: Any) -> AsyncIterator[Any]:
            async for request in requests:
                await check(context, request)
                yield request

        async def arguments(request: Any, context: Any) -> tuple[Any, Any]:
            if handler.request_streaming:
                return checked_requests(request, context), _CheckedReads(context, method)
            await check(context, request)
            return request, context

        if generator:

            async def checked_generator(request: Any, context: Any) -> AsyncIterator[Any]:
                async for response in inner(*await arguments(request, context)):
                    yield response

            return _rebuilt(handler, method, checked_generator)

        async def checked(request: Any, context: Any) -> Any:
            return await inner(*await arguments(request, context))

        return _rebuilt(handler, method, checked)
