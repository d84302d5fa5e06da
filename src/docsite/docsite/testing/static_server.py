"""A small static file server for the built site (tests and the benchmark).

Serves a folder on 127.0.0.1 (a free port) with the MIME types Pyodide needs
(``application/wasm``, JavaScript for ``.mjs``) and records every request path with the
number of bytes sent, so callers can check what a page loaded and when. With
``precompressed=True`` it behaves like a host set up to serve precompressed files: a request
for ``NAME`` from a client that accepts ``br`` gets ``NAME.br`` (``Content-Encoding: br``,
the type of ``NAME``) when that file exists, even where ``NAME`` itself does not. With
``gzip=True`` it behaves like a host that compresses on the fly and knows nothing of brotli
(GitHub Pages and many others): a text response (pages, scripts, styles, JSON) goes out
gzip-compressed to a client that accepts gzip; other types, such as the build's ``.gz``
copies, go out as they are. With ``gz_labelled=True`` it behaves like a host that labels the
build's ``.gz`` copies ``Content-Encoding: gzip``, so that the browser inflates them.

Example:
    >>> with StaticServer(Path("site")) as server:  # doctest: +SKIP
    ...     print(server.url)
"""

from __future__ import annotations

import functools
import gzip as gzip_module
import http.server
import io
import os
import sys
import threading
from pathlib import Path
from types import TracebackType
from typing import ClassVar

MIME_TYPES = {
    ".wasm": "application/wasm",
    ".mjs": "text/javascript",
    ".js": "text/javascript",
    ".json": "application/json",
    ".whl": "application/octet-stream",
    ".zip": "application/zip",
}


#: What a compressing host compresses on the fly: text and the formats made of text.
COMPRESSIBLE = ("text/", "application/json", "application/javascript", "image/svg+xml")


def _accepts(header: str, coding: str) -> bool:
    return coding in [token.split(";")[0].strip() for token in header.split(",")]


class _Handler(http.server.SimpleHTTPRequestHandler):
    extensions_map: ClassVar[dict[str, str]] = {
        **http.server.SimpleHTTPRequestHandler.extensions_map,
        **MIME_TYPES,
    }
    server: _Server
    no_store = False  # send "Cache-Control: no-store" and no Last-Modified
    precompressed = False  # serve NAME.br for NAME to clients that accept br
    gzip = False  # compress text responses on the fly for clients that accept gzip
    gz_labelled = False  # label .gz files "Content-Encoding: gzip"
    _encoded: str | None = None  # the plain file's path while NAME.br is being served

    def send_head(self):  # type: ignore[no-untyped-def]
        self._encoded = None
        accepted = self.headers.get("Accept-Encoding", "")
        if self.precompressed:
            path = super().translate_path(self.path)
            if os.path.isfile(path + ".br") and _accepts(accepted, "br"):
                self._encoded = path
        if self.gzip and _accepts(accepted, "gzip"):
            return self._gzipped()
        return super().send_head()

    def _gzipped(self):  # type: ignore[no-untyped-def]
        """The response compressed on the fly, when the file is text (else as it is)."""
        path = self.translate_path(self.path)
        if os.path.isdir(path):
            if not self.path.split("?", 1)[0].endswith("/"):
                return super().send_head()  # the redirect to the folder's address
            path = os.path.join(path, "index.html")
        kind = self.guess_type(path)
        if not os.path.isfile(path) or not kind.startswith(COMPRESSIBLE):
            return super().send_head()
        with open(path, "rb") as source:
            body = gzip_module.compress(source.read(), compresslevel=6)
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Vary", "Accept-Encoding")
        self.end_headers()
        return io.BytesIO(body)

    def translate_path(self, path: str) -> str:
        return self._encoded + ".br" if self._encoded else super().translate_path(path)

    def guess_type(self, path: str | os.PathLike[str]) -> str:
        return super().guess_type(self._encoded or path)

    def send_header(self, keyword: str, value: str) -> None:
        if not (self.no_store and keyword.lower() == "last-modified"):
            super().send_header(keyword, value)

    def end_headers(self) -> None:
        if self.no_store:
            super().send_header("Cache-Control", "no-store")
        if self.precompressed:
            super().send_header("Vary", "Accept-Encoding")
        if self._encoded:
            super().send_header("Content-Encoding", "br")
        elif self.gz_labelled and self.path.split("?", 1)[0].endswith(".gz"):
            super().send_header("Content-Encoding", "gzip")
        super().end_headers()

    def log_message(self, format: str, *args: object) -> None:
        pass

    def copyfile(self, source, outputfile) -> None:  # type: ignore[no-untyped-def]
        data = source.read()
        outputfile.write(data)
        self.server.record(self.path, len(data))


class _Server(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.log: list[tuple[str, int]] = []
        self.log_file: Path | None = None
        self._lock = threading.Lock()

    def handle_error(self, request: object, client_address: object) -> None:
        """A client that hangs up early (a page closed, a download given up) is no error."""
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)  # type: ignore[arg-type]

    def record(self, path: str, size: int) -> None:
        with self._lock:
            self.log.append((path, size))
            if self.log_file:
                with open(self.log_file, "a", encoding="utf-8") as log:
                    log.write(f"{path}\t{size}\n")


class StaticServer:
    """Serve ``root`` on ``http://127.0.0.1:<free port>/`` in a background thread.

    Args:
        root: The folder to serve (the built site).
        mime_types: Extra or replacement ``{".ext": "type"}`` entries.
        no_store: Let the browser keep nothing: every response says ``Cache-Control:
            no-store`` and has no ``Last-Modified`` (the worst case for a later visit).
        precompressed: Serve a file's ``.br`` copy, where there is one, to clients that
            accept brotli (as a host set up for precompressed files does).
        gzip: Compress text responses on the fly for clients that accept gzip (as most
            hosts do).
        gz_labelled: Label ``.gz`` files ``Content-Encoding: gzip`` (as some hosts do): the
            browser inflates them.
        port: The port to listen on (``0``: a free one).
        log_file: A file to append each served ``path<TAB>bytes`` to, besides :attr:`log`
            (for readers in other processes).

    Raises:
        OSError: ``port`` is taken.
    """

    def __init__(
        self,
        root: Path,
        *,
        mime_types: dict[str, str] | None = None,
        no_store: bool = False,
        precompressed: bool = False,
        gzip: bool = False,
        gz_labelled: bool = False,
        port: int = 0,
        log_file: Path | None = None,
    ) -> None:
        handler_cls: type[_Handler] = _Handler
        overrides: dict[str, object] = {
            "no_store": no_store,
            "precompressed": precompressed,
            "gzip": gzip,
            "gz_labelled": gz_labelled,
        }
        if mime_types:  # e.g. a wrong wasm type, to test the widget's load timeout
            overrides["extensions_map"] = {**_Handler.extensions_map, **mime_types}
        handler_cls = type("_OverrideHandler", (_Handler,), overrides)
        self.root = root
        handler = functools.partial(handler_cls, directory=str(root))
        self._server = _Server(("127.0.0.1", port), handler)
        self._server.log_file = log_file
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        """Base URL, with a trailing slash."""
        return f"http://127.0.0.1:{self._server.server_address[1]}/"

    @property
    def log(self) -> list[tuple[str, int]]:
        """``(path, bytes)`` of every file served so far."""
        with self._server._lock:
            return list(self._server.log)

    def clear_log(self) -> None:
        """Forget the requests served so far."""
        with self._server._lock:
            self._server.log.clear()

    def __enter__(self) -> StaticServer:
        self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)
