# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""A small HTTP proxy in front of the test S3 server that misbehaves on purpose: it can strip
``If-None-Match`` (a store that ignores conditional puts), answer every n-th request with 503,
or forward every n-th conditional put and then drop the connection before the reply or delay
the reply past the client's timeout (the client cannot know whether its commit landed). Runs in a thread of the test process."""

import http.client
import http.server
import threading
import time
import urllib.parse


class FaultProxy:
    def __init__(self, upstream: str, *, strip_if_none_match=False, fail_every=0,
                 drop_conditional_every=0, delay_conditional_every=0, delay_seconds=0.0,
                 record=False):
        self.upstream = urllib.parse.urlparse(upstream)
        self.strip_if_none_match = strip_if_none_match
        self.fail_every = fail_every
        self.drop_conditional_every = drop_conditional_every
        self.delay_conditional_every = delay_conditional_every
        self.delay_seconds = delay_seconds
        self.delayed = 0
        # With `record`: (method, path, headers) of every request, as the client sent them.
        self.recorded = [] if record else None
        self.requests = 0
        self.conditional_puts = 0
        self.failed = 0
        self.dropped = 0
        self._lock = threading.Lock()
        proxy = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def _handle(self):
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                conditional = self.command == "PUT" and "If-None-Match" in self.headers
                with proxy._lock:
                    proxy.requests += 1
                    if proxy.recorded is not None:
                        proxy.recorded.append((self.command, self.path, dict(self.headers)))
                    fail = proxy.fail_every and proxy.requests % proxy.fail_every == 0
                    drop = delay = False
                    if conditional:
                        proxy.conditional_puts += 1
                        drop = (
                            proxy.drop_conditional_every
                            and proxy.conditional_puts % proxy.drop_conditional_every == 0
                        )
                        delay = (
                            proxy.delay_conditional_every
                            and proxy.conditional_puts % proxy.delay_conditional_every == 0
                        )
                        proxy.delayed += bool(delay)
                    proxy.failed += bool(fail)
                    proxy.dropped += bool(drop)
                if fail:
                    message = b"<Error><Code>SlowDown</Code><Message>injected</Message></Error>"
                    self.send_response(503)
                    self.send_header("Content-Length", str(len(message)))
                    self.end_headers()
                    if self.command != "HEAD":
                        self.wfile.write(message)
                    return
                headers = {k: v for k, v in self.headers.items() if k.lower() != "host"}
                if proxy.strip_if_none_match:
                    headers.pop("If-None-Match", None)
                conn = http.client.HTTPConnection(proxy.upstream.hostname, proxy.upstream.port,
                                                  timeout=30)
                conn.request(self.command, self.path, body=body, headers=headers)
                reply = conn.getresponse()
                data = reply.read()
                conn.close()
                if delay:  # the store applied it; the reply comes after the client gave up
                    time.sleep(proxy.delay_seconds)
                if drop:  # the store applied it; the client never hears back
                    self.close_connection = True
                    return
                self.send_response(reply.status)
                head = self.command == "HEAD"
                for k, v in reply.getheaders():
                    skip = ("transfer-encoding", "connection") + (() if head else ("content-length",))
                    if k.lower() not in skip:
                        self.send_header(k, v)
                if not head:
                    self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(data)

            do_GET = do_PUT = do_POST = do_DELETE = do_HEAD = _handle

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.endpoint = f"http://127.0.0.1:{self.server.server_address[1]}"
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()
