"""The HTTP connection under the ``openai`` client: one deadline per request, a cap on the bytes
read, and cancellation.

httpx2's timeouts bound each read, not a request: a server that sends one byte a second keeps a
request open for as long as it likes. This transport owns its sockets (through ``http.client``),
so a watchdog thread can shut a request's socket down the moment its deadline passes or the audit
is cancelled, whatever the request is doing (sending, waiting for the status line or the headers,
reading the body). It stops reading a body after ``max_bytes`` (counted after decompression, and
it asks for uncompressed bodies anyway); ``http.client`` already bounds the status line and the
headers.

Each request gets its own connection (``Connection: close``). ``HTTP_PROXY``, ``HTTPS_PROXY`` and
``NO_PROXY`` are honoured, loopback addresses are never proxied, and TLS uses httpx2's default
context (so ``SSL_CERT_FILE`` and ``SSL_CERT_DIR`` work as they do for httpx2).

What the limits did to a request is left on its ``Watch`` (``fired``: "deadline" or "cancelled";
``cut``: the body passed the cap), so the caller can name the outcome whatever exception the
``openai`` layers wrapped it in.
"""

from __future__ import annotations

import base64
import http.client
import ipaddress
import socket
import threading
import time
import urllib.parse
import urllib.request
import zlib
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Iterator

import httpx2

POLL_S = 0.05  # how often the watchdog looks at the clock and the cancel event
CHUNK = 64 * 1024
_SKIPPED_HEADERS = {b"connection", b"keep-alive", b"proxy-connection", b"accept-encoding", b"te", b"upgrade"}


@dataclass
class Limits:
    deadline_s: float = 120.0  # wall-clock time for the whole request, body included
    max_bytes: int = 4 * 1024 * 1024  # body bytes read at most (decompressed)
    cancel: threading.Event | None = None  # set: the request is abandoned at once
    keep_partial: bool = False  # at the cap, end the body early (a streamed reply) instead of failing


class DeadlinePassed(httpx2.ReadTimeout):
    """The request did not complete within its deadline."""


class RequestCancelled(httpx2.NetworkError):
    """The request was abandoned because the audit was cancelled."""


class ReplyTooLarge(httpx2.NetworkError):
    """The body passed the cap; the rest of it was not read."""


class Watch:
    """One request in flight under its limits, and what the limits did to it."""

    def __init__(self, limits: Limits):
        self.limits = limits
        self.started = time.monotonic()
        self.deadline = self.started + max(0.0, limits.deadline_s)
        self.fired = ""  # "deadline" or "cancelled" once the watchdog has shut the socket down
        self.cut = False  # the body passed ``limits.max_bytes``
        self.read = 0  # body bytes handed on (decompressed)
        self._sock: socket.socket | None = None
        self._lock = threading.Lock()
        self._done = threading.Event()
        self._thread: threading.Thread | None = None

    def remaining(self) -> float:
        return max(0.0, self.deadline - time.monotonic())

    def elapsed(self) -> float:
        return time.monotonic() - self.started

    def start(self) -> None:
        if self._thread is None and not self._done.is_set():
            self._thread = threading.Thread(target=self._run, name="testjack-llm-watchdog", daemon=True)
            self._thread.start()

    def stop(self) -> None:
        self._done.set()

    def attach(self, sock: socket.socket | None) -> None:
        with self._lock:
            self._sock = sock
            fired = self.fired
        if fired and sock is not None:
            _shutdown(sock)

    def detach(self) -> None:
        with self._lock:
            self._sock = None

    def check(self, request: httpx2.Request | None = None) -> None:
        """Raise what the watchdog decided, if it has."""
        if self.fired:
            raise self.error(None, request)

    def error(self, exc: BaseException | None, request: httpx2.Request | None, phase: str = "read") -> Exception:
        """The httpx2 exception for ``exc`` (or for the watchdog's decision alone)."""
        kw: dict[str, Any] = {"request": request}
        if self.fired == "cancelled":
            return RequestCancelled("the request was abandoned: the audit was cancelled", **kw)
        timed_out = isinstance(exc, (TimeoutError, socket.timeout))
        if self.fired == "deadline" or (timed_out and self.remaining() <= POLL_S):
            return DeadlinePassed(
                f"no complete reply within the deadline of {self.limits.deadline_s:g} s "
                f"(request abandoned after {self.elapsed():.1f} s)", **kw
            )
        text = f"{type(exc).__name__}: {exc}" if exc is not None else "connection failed"
        if phase == "connect":
            return (httpx2.ConnectTimeout if timed_out else httpx2.ConnectError)(text, **kw)
        if timed_out:
            return httpx2.ReadTimeout(text, **kw)
        if isinstance(exc, http.client.HTTPException):
            return httpx2.RemoteProtocolError(text, **kw)
        return httpx2.ReadError(text, **kw)

    def _run(self) -> None:
        cancel = self.limits.cancel
        while True:
            if cancel is not None and cancel.is_set():
                reason = "cancelled"
                break
            left = self.deadline - time.monotonic()
            if left <= 0:
                reason = "deadline"
                break
            if self._done.wait(min(POLL_S, left)):
                return
        with self._lock:
            if self._done.is_set():
                return
            self.fired = reason
            sock = self._sock
        if sock is not None:
            _shutdown(sock)


def _shutdown(sock: socket.socket) -> None:
    # shutdown (not close) wakes a read blocked in another thread; the owner closes the socket.
    # The plain socket method, so that an SSL socket's state is not touched from this thread.
    try:
        socket.socket.shutdown(sock, socket.SHUT_RDWR)
    except OSError:
        pass


class BoundedTransport(httpx2.BaseTransport):
    """An httpx2 transport whose requests obey ``Limits``: give it to ``httpx2.Client(transport=...)``."""

    def __init__(self, defaults: Limits | None = None):
        self.defaults = defaults or Limits()
        self._local = threading.local()
        self._ssl_context: Any = None

    @contextmanager
    def watch(self, limits: Limits) -> Iterator[Watch]:
        """Requests this thread sends inside the block obey ``limits``, under one deadline (a redirect
        does not restart it); the ``Watch`` says afterwards what the limits did."""
        watch = Watch(limits)
        previous = getattr(self._local, "watch", None)
        self._local.watch = watch
        try:
            yield watch
        finally:
            self._local.watch = previous
            watch.stop()

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        watch = getattr(self._local, "watch", None)
        own = watch is None  # a request outside ``watch()``: the defaults, its own watchdog
        if own:
            watch = Watch(self.defaults)
        watch.start()
        conn: http.client.HTTPConnection | None = None
        phase = "connect"
        try:
            watch.check(request)
            conn, target, extra = self._connection(request.url, watch)
            conn.connect()
            watch.attach(conn.sock)
            phase = "send"
            self._send(conn, target, extra, request)
            phase = "read"
            resp = conn.getresponse()
            watch.check(request)
            return self._response(request, conn, resp, watch, own)
        except BaseException as exc:
            watch.detach()
            if conn is not None:
                conn.close()
            if own:
                watch.stop()
            if isinstance(exc, (OSError, http.client.HTTPException)):
                raise watch.error(exc, request, phase) from exc
            raise

    # -------------------------------------------------------------- connecting and sending

    def _connection(
        self, url: httpx2.URL, watch: Watch
    ) -> tuple[http.client.HTTPConnection, str, list[tuple[str, str]]]:
        scheme = url.scheme
        if scheme not in ("http", "https"):
            raise httpx2.UnsupportedProtocol(f"unsupported URL scheme {scheme!r}")
        host = url.host
        port = url.port or (443 if scheme == "https" else 80)
        target = url.raw_path.decode("ascii") or "/"
        timeout = watch.remaining()
        if timeout <= 0:
            raise DeadlinePassed(f"the deadline of {watch.limits.deadline_s:g} s passed before the request")
        extra: list[tuple[str, str]] = []
        proxy = _proxy_for(scheme, host)
        conn: http.client.HTTPConnection
        if proxy is None:
            if scheme == "https":
                conn = http.client.HTTPSConnection(host, port, timeout=timeout, context=self._tls())
            else:
                conn = http.client.HTTPConnection(host, port, timeout=timeout)
            return conn, target, extra
        p_host, p_port, auth = proxy
        auth_headers = {"Proxy-Authorization": auth} if auth else {}
        if scheme == "https":  # CONNECT tunnel through the proxy, TLS to the server
            conn = http.client.HTTPSConnection(p_host, p_port, timeout=timeout, context=self._tls())
            conn.set_tunnel(host, port, headers=auth_headers)
            return conn, target, extra
        conn = http.client.HTTPConnection(p_host, p_port, timeout=timeout)
        return conn, str(url), list(auth_headers.items())  # a plain proxy takes the absolute URL

    def _tls(self) -> Any:
        if self._ssl_context is None:
            self._ssl_context = httpx2.create_ssl_context()
        return self._ssl_context

    def _send(
        self, conn: http.client.HTTPConnection, target: str, extra: list[tuple[str, str]], request: httpx2.Request
    ) -> None:
        conn.putrequest(request.method, target, skip_host=True, skip_accept_encoding=True)
        for name, value in request.headers.raw:
            if name.lower() not in _SKIPPED_HEADERS:
                conn.putheader(name, value)
        conn.putheader("Accept-Encoding", "identity")
        conn.putheader("Connection", "close")
        for name, value in extra:
            conn.putheader(name, value)
        body = request.read()
        conn.endheaders(body or None)

    # -------------------------------------------------------------- the response

    def _response(
        self,
        request: httpx2.Request,
        conn: http.client.HTTPConnection,
        resp: http.client.HTTPResponse,
        watch: Watch,
        own: bool,
    ) -> httpx2.Response:
        encoding = (resp.getheader("content-encoding") or "identity").strip().lower()
        if encoding in ("gzip", "x-gzip"):
            decoder: Any = zlib.decompressobj(16 + zlib.MAX_WBITS)
        elif encoding == "deflate":
            decoder = zlib.decompressobj()
        elif encoding == "identity":
            decoder = None
        else:
            raise httpx2.DecodingError(f"unsupported Content-Encoding {encoding!r}", request=request)
        length = resp.getheader("content-length")
        if decoder is None and not watch.limits.keep_partial and length and length.strip().isdigit():
            if int(length) > watch.limits.max_bytes:
                watch.cut = True
                raise ReplyTooLarge(
                    f"the reply announces {int(length)} bytes, more than the cap of {watch.limits.max_bytes}",
                    request=request,
                )
        # the body handed on is de-chunked and decoded, so those headers no longer describe it
        dropped = {"transfer-encoding", "content-encoding"} | ({"content-length"} if decoder else set())
        headers = [(k, v) for k, v in resp.getheaders() if k.lower() not in dropped]
        stream = _Body(request, conn, resp, watch, own, decoder)
        return httpx2.Response(
            resp.status,
            headers=headers,
            stream=stream,
            request=request,
            extensions={"http_version": b"HTTP/1.1", "reason_phrase": (resp.reason or "").encode("latin-1", "replace")},
        )


class _Body(httpx2.SyncByteStream):
    def __init__(self, request, conn, resp, watch: Watch, own: bool, decoder: Any):
        self._request = request
        self._conn = conn
        self._resp = resp
        self._watch = watch
        self._own = own
        self._decoder = decoder
        self._closed = False

    def __iter__(self) -> Iterator[bytes]:
        watch, cap = self._watch, self._watch.limits.max_bytes
        try:
            while True:
                watch.check(self._request)
                raw = self._resp.read1(CHUNK)
                if not raw:
                    watch.check(self._request)  # a socket shut down by the watchdog reads as EOF
                    if self._resp.length:  # fewer bytes than Content-Length said
                        raise httpx2.RemoteProtocolError(
                            f"the connection closed {self._resp.length} bytes before the end of the body",
                            request=self._request,
                        )
                    break
                for piece in self._pieces(raw, cap):
                    over = watch.read + len(piece) - cap
                    if over > 0:
                        piece = piece[: len(piece) - over]
                        watch.read = cap
                        watch.cut = True
                        if piece:
                            yield piece
                        if watch.limits.keep_partial:
                            return
                        raise ReplyTooLarge(
                            f"the reply is longer than the cap of {cap} bytes; the rest was not read",
                            request=self._request,
                        )
                    watch.read += len(piece)
                    if piece:
                        yield piece
        except (OSError, http.client.HTTPException) as exc:
            raise watch.error(exc, self._request) from exc
        except zlib.error as exc:
            raise httpx2.DecodingError(f"cannot decode the reply: {exc}", request=self._request) from exc

    def _pieces(self, raw: bytes, cap: int) -> Iterator[bytes]:
        if self._decoder is None:
            yield raw
            return
        data = raw
        while data:
            # never inflate more than one byte past the cap: enough to know the cap was passed
            room = max(1, cap - self._watch.read + 1)
            out = self._decoder.decompress(data, room)
            data = self._decoder.unconsumed_tail
            yield out

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._watch.detach()
        try:
            self._resp.close()
        finally:
            self._conn.close()
            if self._own:
                self._watch.stop()


# ------------------------------------------------------------------ proxies


def _proxy_for(scheme: str, host: str) -> tuple[str, int, str] | None:
    """(host, port, Proxy-Authorization value) of the proxy for ``scheme://host``, or None."""
    if _is_loopback(host):
        return None
    proxies = urllib.request.getproxies()
    url = proxies.get(scheme)
    if not url or urllib.request.proxy_bypass(host):
        return None
    if "://" not in url:
        url = "http://" + url
    parts = urllib.parse.urlsplit(url)
    if not parts.hostname:
        return None
    auth = ""
    if parts.username is not None:
        user = urllib.parse.unquote(parts.username)
        password = urllib.parse.unquote(parts.password or "")
        auth = "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode("ascii")
    return parts.hostname, parts.port or (443 if parts.scheme == "https" else 80), auth


def _is_loopback(host: str) -> bool:
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False
