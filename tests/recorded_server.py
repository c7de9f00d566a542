"""A local HTTP server on 127.0.0.1 that serves recorded responses (for retrieval tests).

Routes map a path to a list of responses served in turn (the last one repeats), so a test can
script "429, then 200". Every request is logged (method, path, query, headers, body)."""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit


@dataclass
class Reply:
    status: int = 200
    body: bytes | str = b""
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0
    chunked: bool = False


@dataclass
class Seen:
    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: bytes


class RecordedServer:
    def __init__(self) -> None:
        self.routes: dict[str, list[Reply]] = {}
        self.log: list[Seen] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def _serve(self) -> None:
                parts = urlsplit(self.path)
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(length) if length else b""
                server.log.append(
                    Seen(
                        self.command,
                        parts.path,
                        parse_qs(parts.query),
                        {k.lower(): v for k, v in self.headers.items()},
                        body,
                    )
                )
                replies = server.routes.get(parts.path)
                if not replies:
                    self.send_response(404)
                    self.send_header("content-length", "0")
                    self.end_headers()
                    return
                reply = replies.pop(0) if len(replies) > 1 else replies[0]
                if reply.delay_s:
                    time.sleep(reply.delay_s)
                data = reply.body.encode() if isinstance(reply.body, str) else reply.body
                self.send_response(reply.status)
                for key, value in reply.headers.items():
                    self.send_header(key, value)
                if reply.chunked:
                    self.send_header("transfer-encoding", "chunked")
                    self.end_headers()
                    step = 65536
                    with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                        for i in range(0, len(data), step):
                            chunk = data[i : i + step]
                            self.wfile.write(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
                        self.wfile.write(b"0\r\n\r\n")
                    return
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    self.wfile.write(data)

            do_GET = _serve
            do_POST = _serve

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self._thread = threading.Thread(target=self.httpd.serve_forever, args=(0.05,), daemon=True)

    def route(self, path: str, *replies: Reply) -> None:
        self.routes[path] = list(replies)

    def json(self, path: str, payload: Any, status: int = 200) -> None:
        self.route(
            path,
            Reply(status, json.dumps(payload), {"content-type": "application/json"}),
        )

    def hits(self, path: str) -> int:
        return sum(1 for s in self.log if s.path == path)

    def start(self) -> RecordedServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@contextmanager
def recorded_server() -> Iterator[RecordedServer]:
    server = RecordedServer().start()
    try:
        yield server
    finally:
        server.stop()
