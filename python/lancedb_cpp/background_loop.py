# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""``lancedb.background_loop``: an asyncio event loop on a daemon thread, for running a
coroutine to completion from synchronous code without touching the caller's own loop.
lancedb_cpp's synchronous API does not need it (the engine is synchronous underneath); it is
here for code written against LanceDB that uses ``LOOP.run(...)``."""

import asyncio
import threading
from typing import Any, Coroutine


class BackgroundEventLoop:
    """An event loop running forever on its own daemon thread."""

    def __init__(self):
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(
            target=self.loop.run_forever, name="LanceDBBackgroundEventLoop", daemon=True
        )
        self.thread.start()

    def run(self, future: Coroutine) -> Any:
        """Run `future` on the loop and return its result (or raise its exception); the
        coroutine is cancelled when the wait is interrupted."""
        pending = asyncio.run_coroutine_threadsafe(future, self.loop)
        try:
            return pending.result()
        except BaseException:
            pending.cancel()
            raise


LOOP = BackgroundEventLoop()
