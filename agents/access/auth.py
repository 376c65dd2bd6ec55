"""Who may call the access point: the client id every call must carry, and (``aclEnable``) the RocketMQ 5
signature ``authorization: MQv2-HMAC-SHA1 Credential=<ak>, SignedHeaders=x-mq-date-time, Signature=<hex>``, the
HMAC-SHA1 of the ``x-mq-date-time`` header under the secret key of one of the agent's credentials. Pure.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from collections.abc import Mapping

from agents.access.codes import Code
from agents.access.validation import Problem

CLIENT_ID = "x-mq-client-id"
DATE_TIME = "x-mq-date-time"
AUTHORIZATION = "authorization"
_SIGNATURE = re.compile(r"MQv2-HMAC-SHA1\s+Credential=([^,\s]*),\s*SignedHeaders=([^,\s]*),\s*Signature=([0-9a-fA-F]*)")


def call_problem(headers: Mapping[str, str], secrets: Mapping[str, str] | None) -> Problem | None:
    """Why a call with `headers` is refused, or None. `secrets`: access key → secret key when the agent checks
    credentials (aclEnable), None when it does not (the header, which clients always send, is then ignored)."""
    if not headers.get(CLIENT_ID, "").strip():
        return Problem(Code.CLIENT_ID_REQUIRED, f"client id is required: set the {CLIENT_ID} header")
    if secrets is None:
        return None
    found = _SIGNATURE.fullmatch(headers.get(AUTHORIZATION, "").strip())
    if found is None:
        return Problem(Code.UNAUTHORIZED, "no valid MQv2-HMAC-SHA1 authorization header: give the client credentials")
    access_key, signed, signature = found.groups()
    if signed.lower() != DATE_TIME:
        return Problem(Code.UNAUTHORIZED, f"SignedHeaders must be {DATE_TIME}, got {signed!r}")
    secret = secrets.get(access_key)
    if secret is None:
        return Problem(Code.UNAUTHORIZED, f"unknown access key {access_key!r}")
    expected = hmac.new(secret.encode(), headers.get(DATE_TIME, "").encode(), hashlib.sha1).hexdigest()
    if not hmac.compare_digest(expected, signature.lower()):
        return Problem(Code.UNAUTHORIZED, f"the signature of access key {access_key!r} does not match")
    return None
