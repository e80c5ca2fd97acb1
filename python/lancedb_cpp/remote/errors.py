# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""``lancedb.remote.errors``: the errors of LanceDB's remote client, which code written against
LanceDB catches (``except HttpError``). They carry the server's request id and HTTP status and
survive pickling with them (for errors raised in worker processes). The remote client
(client.py) raises them with LanceDB's messages."""

from typing import Optional


class LanceDBClientError(RuntimeError):
    """A request to a LanceDB server failed; `request_id` names it in the server's logs and
    `status_code` is the HTTP status when there was a response."""

    def __init__(self, message: str, request_id: str, status_code: Optional[int] = None):
        super().__init__(message)
        self.request_id = request_id
        self.status_code = status_code

    def __reduce__(self):
        return (type(self), (str(self), self.request_id, self.status_code))


class HttpError(LanceDBClientError):
    """The server answered with an error status (4xx or 5xx) that is not retried."""


class RetryError(LanceDBClientError):
    """A request failed too often: the counts of failures of each kind, and the limits of the
    client's RetryConfig that were reached."""

    def __init__(
        self,
        message: str,
        request_id: str,
        request_failures: int,
        connect_failures: int,
        read_failures: int,
        max_request_failures: int,
        max_connect_failures: int,
        max_read_failures: int,
        status_code: Optional[int] = None,
    ):
        super().__init__(message, request_id, status_code)
        self.request_failures = request_failures
        self.connect_failures = connect_failures
        self.read_failures = read_failures
        self.max_request_failures = max_request_failures
        self.max_connect_failures = max_connect_failures
        self.max_read_failures = max_read_failures

    def __reduce__(self):
        return (
            type(self),
            (str(self), self.request_id, self.request_failures, self.connect_failures,
             self.read_failures, self.max_request_failures, self.max_connect_failures,
             self.max_read_failures, self.status_code),
        )
