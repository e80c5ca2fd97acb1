# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""Every request lancedb-cpp sends to S3 carries an AWS Signature Version 4 that botocore (the
AWS SDK for Python) computes the same from the request as sent: the test server does not check
signatures, so the check is here (its optional check, INITIAL_NO_AUTH_ACTION_COUNT, refuses
boto3's own listings as well: it decodes the %2F of `delimiter=/` before checking). libcurl
signs (CURLOPT_AWS_SIGV4); the proxy records the requests (method, path with query,
headers)."""

import re

import numpy as np
import pyarrow as pa
import pytest

import lancedb_cpp
from s3_proxy import FaultProxy
from s3_server import ACCESS_KEY, REGION, SECRET_KEY, s3, s3_server  # noqa: F401

import botocore  # noqa: E402
from botocore.auth import S3SigV4Auth  # noqa: E402
from botocore.awsrequest import AWSRequest  # noqa: E402
from botocore.credentials import Credentials  # noqa: E402

AUTH = re.compile(
    r"AWS4-HMAC-SHA256 Credential=(?P<key>[^/]+)/(?P<date>\d{8})/(?P<region>[^/]+)/s3/"
    r"aws4_request, ?SignedHeaders=(?P<headers>[^,]+), ?Signature=(?P<signature>[0-9a-f]{64})$"
)


def expected_signature(endpoint, method, path, headers, signed, token):
    lower = {k.lower(): v for k, v in headers.items()}
    request = AWSRequest(method=method, url=endpoint + path,
                         headers={h: lower[h] for h in signed if h != "host"})
    request.context["timestamp"] = lower["x-amz-date"]
    auth = S3SigV4Auth(Credentials(ACCESS_KEY, SECRET_KEY, token), "s3", REGION)
    canonical = auth.canonical_request(request)
    return auth.signature(auth.string_to_sign(request, canonical), request)


@pytest.mark.parametrize("token", [None, "session-token/with+odd=chars"])
def test_every_request_is_signed_as_the_aws_sdk_signs_it(s3, token):
    with FaultProxy(s3.server.endpoint, record=True) as proxy:
        options = dict(s3.options, aws_endpoint=proxy.endpoint,
                       multipart_part_size=str(5 << 20))
        if token:
            options["aws_session_token"] = token
        db = lancedb_cpp.connect(s3.uri("db/with space+plus"), storage_options=options)
        t = db.create_table("t", pa.table({"id": [1, 2, 3]}))
        t.add(pa.table({"id": [4]}))
        t.delete("id = 2")
        assert sorted(t.to_arrow()["id"].to_pylist()) == [1, 3, 4]
        big = db.create_table("big", pa.table({"x": np.arange(1 << 20, dtype=np.int64)}))
        assert big.count_rows() == 1 << 20  # an 8 MiB data file: a multipart upload
        assert db.table_names() == ["big", "t"]
        db.drop_table("t")
        requests = list(proxy.recorded)
    methods = {method for method, _, _ in requests}
    assert {"GET", "PUT", "HEAD", "DELETE", "POST"} <= methods
    assert any("?" in path for _, path, _ in requests)  # listings: signed query strings
    for method, path, headers in requests:
        match = AUTH.match(headers["Authorization"])
        assert match, headers["Authorization"]
        assert (match["key"], match["region"]) == (ACCESS_KEY, REGION)
        signed = match["headers"].split(";")
        assert {"host", "x-amz-date", "x-amz-content-sha256"} <= set(signed)
        if token:
            assert headers["x-amz-security-token"] == token
            assert "x-amz-security-token" in signed
        assert match["signature"] == expected_signature(
            proxy.endpoint, method, path, headers, signed, token), (method, path)
