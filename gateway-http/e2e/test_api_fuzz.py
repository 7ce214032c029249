"""API fuzzing of the Bourse HTTP gateway against its own OpenAPI document (schemathesis).

Run by ApiFuzzTest (gateway-http), which starts a node and a gateway and passes BOURSE_URL. Every request is signed
(HMAC-SHA256 over timestamp, method, path with query, body) with an admin key for admin paths and a trading key
for the rest, so the fuzzer reaches the handlers rather than stopping at 401. Checks: no 5xx, documented status
codes and content types, and every response body valid against its schema.
"""
import hashlib
import hmac
import os
import time

import requests
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (content_type_conformance, response_schema_conformance,
                                               status_code_conformance)

BASE_URL = os.environ["BOURSE_URL"]
TRADER = (os.environ["BOURSE_TRADER_KEY"], os.environ["BOURSE_TRADER_SECRET"])
ADMIN = (os.environ["BOURSE_ADMIN_KEY"], os.environ["BOURSE_ADMIN_SECRET"])
EXAMPLES = int(os.environ.get("BOURSE_FUZZ_EXAMPLES", "40"))

schema = schemathesis.openapi.from_url(BASE_URL + "/api/openapi.json")
schema.config.update(base_url=BASE_URL)
# Valid and invalid inputs both: malformed bodies, wrong types and unknown fields must be 4xx problems, never 5xx.
schema.config.generation.update(modes=["positive", "negative"])


class Signed(requests.auth.AuthBase):
    def __call__(self, request):
        key, secret = ADMIN if request.path_url.startswith("/api/v1/admin") else TRADER
        body = request.body or b""
        if isinstance(body, str):
            body = body.encode()
        timestamp = str(int(time.time() * 1000))
        message = timestamp.encode() + request.method.encode() + request.path_url.encode() + body
        request.headers["X-Bourse-Key"] = key
        request.headers["X-Bourse-Timestamp"] = timestamp
        request.headers["X-Bourse-Signature"] = hmac.new(secret.encode(), message, hashlib.sha256).hexdigest()
        return request


session = requests.Session()
session.auth = Signed()


@schema.parametrize()
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
def test_api(case):
    case.call_and_validate(session=session, checks=[not_a_server_error, status_code_conformance,
                                                    content_type_conformance, response_schema_conformance])
