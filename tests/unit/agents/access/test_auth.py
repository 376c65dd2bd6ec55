"""The client id every call needs, and the MQv2-HMAC-SHA1 signature with aclEnable."""

from __future__ import annotations

import hashlib
import hmac

from agents.access.auth import call_problem
from agents.access.codes import Code

DATE = "20261128T091500Z"


def headers(ak: str = "rocketmq2", sk: str = "12345678", signed: str = "x-mq-date-time") -> dict[str, str]:
    signature = hmac.new(sk.encode(), DATE.encode(), hashlib.sha1).hexdigest()
    return {
        "x-mq-client-id": "host@1@0@abc",
        "x-mq-date-time": DATE,
        "authorization": f"MQv2-HMAC-SHA1 Credential={ak}, SignedHeaders={signed}, Signature={signature}",
    }


def test_the_client_id_is_required() -> None:
    problem = call_problem({"x-mq-client-id": " "}, None)
    assert problem is not None and problem.code is Code.CLIENT_ID_REQUIRED
    assert call_problem({"x-mq-client-id": "c"}, None) is None


def test_without_acl_the_authorization_header_is_ignored() -> None:
    assert call_problem({**headers(), "authorization": "garbage"}, None) is None


def test_with_acl_the_signature_must_match_a_credential() -> None:
    secrets = {"rocketmq2": "12345678"}
    assert call_problem(headers(), secrets) is None
    for bad, text in [
        (headers(sk="wrong"), "the signature of access key 'rocketmq2' does not match"),
        (headers(ak="other"), "unknown access key 'other'"),
        (headers(signed="x-mq-request-id"), "SignedHeaders must be x-mq-date-time, got 'x-mq-request-id'"),
        (
            {**headers(), "authorization": ""},
            "no valid MQv2-HMAC-SHA1 authorization header: give the client credentials",
        ),
    ]:
        problem = call_problem(bad, secrets)
        assert problem is not None and (problem.code, problem.message) == (Code.UNAUTHORIZED, text)
