"""A loopback HTTP(S) origin for the stream tests (#51): serves a folder the way a CDN would (ranges, keep-alive, the
usual Content-Types), logs every request so a test can count what vtrim fetched, and misbehaves on demand (faults per
path glob) so retries, refusals and truncation can be tested without a network. Standard library only.

    with Origin(folder) as origin:
        origin.fault("*/seg003.ts", status=503, retry_after=1)      # the next request for it gets a 503
        ... run vtrim on origin.base + "/ts/index.m3u8" ...
        assert origin.largest_range() <= 256 * 1024
"""
import atexit
import fnmatch
import http.server
import mimetypes
import os
import shutil
import socket
import ssl
import struct
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

# Streaming types are not in every mimetypes table, and the tests must not depend on the host's /etc/mime.types.
CONTENT_TYPES = {
    ".m3u8": "application/vnd.apple.mpegurl",
    ".mpd": "application/dash+xml",
    ".ts": "video/mp2t",
    ".m4s": "video/mp4",
    ".mp4": "video/mp4",
    ".m4a": "audio/mp4",
    ".mov": "video/quicktime",
    ".mkv": "video/x-matroska",
}

# The fault kinds `Origin.fault` accepts (each a keyword argument; several may be combined in one fault).
FAULT_KINDS = {"status", "retry_after", "stall", "stall_mid", "reset_after", "truncate_to", "ignore_range",
               "content_length", "redirect", "require_header", "content_type"}

CHUNK = 64 * 1024


class Origin:
    """An HTTP server on 127.0.0.1 (a free port) over `folder`, run on a thread of this process.

    `log` holds one dict per request, added when its headers arrive and completed as it is answered:
    method, path (unquoted, without the query), query, range (the Range header or None), status, bytes_sent (body bytes
    handed to the socket), headers (the request's), fault (the fault that applied, or None), done (answered, or
    given up), error (when the connection failed while answering)."""

    def __init__(self, folder, tls=False, cors=False):
        self.folder = os.path.realpath(folder)
        self.tls = tls
        # As CDNs serving HLS do: every answer allows any page to read it (browsers' HLS players fetch with CORS).
        self.cors = cors
        self.log = []
        self.errors = []  # exceptions raised in handler threads (TLS handshakes a client refused, resets…)
        self.base = self.port = None
        self.cafile = None  # with tls: the self-signed certificate, for clients that should trust it
        self._lock = threading.Lock()
        self._faults = []  # [{"glob", "count", kinds…}] in the order given; the first active match applies
        self._redirects = {}  # path → (url, status), applied to every request
        self._connections = set()
        self._stopping = threading.Event()
        self._server = None
        self._thread = None

    # -- life cycle

    def start(self):
        self._stopping.clear()
        server = _Server(("127.0.0.1", 0), _Handler)
        server.origin = self
        if self.tls:
            certfile, keyfile = _certificate()
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(certfile, keyfile)
            # No handshake in accept(): it would run on the serving thread, and one client that never speaks TLS would
            # block every other. The handler thread's first read does it instead.
            server.socket = context.wrap_socket(server.socket, server_side=True, do_handshake_on_connect=False)
            self.cafile = certfile
        self._server = server
        self.port = server.server_address[1]
        self.base = f"{'https' if self.tls else 'http'}://127.0.0.1:{self.port}"
        self._thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05},
                                        name=f"origin-{self.port}", daemon=True)
        self._thread.start()
        return self

    def stop(self):
        if self._server is None:
            return
        self._stopping.set()  # wakes stalled handlers
        self._server.shutdown()
        # Idle keep-alive connections would keep their threads reading until the client goes: end them here.
        with self._lock:
            connections = list(self._connections)
        for connection in connections:
            try:
                connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        self._server.server_close()
        self._thread.join(5)
        self._server = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    def url(self, path):
        """The URL of `path` (relative to the folder), e.g. origin.url("ts/index.m3u8")."""
        return self.base + "/" + path.lstrip("/")

    # -- misbehaviour

    def fault(self, glob, count=1, **kind):
        """Misbehave on the next `count` requests whose path matches `glob` (fnmatch; "/ts/seg003.ts", "ts/seg003.ts"
        and "*seg003*" all match /ts/seg003.ts). count=None: on every such request. Kinds:
          status=503 [retry_after=s]  answer that status with a short body (and a Retry-After)
          stall=s                     sleep s seconds before sending the headers, then answer normally
          stall_mid=s                 send the headers and half the body, sleep s seconds, then the rest
          reset_after=n               send the headers and n body bytes, then reset the connection (RST)
          truncate_to=n               send the full Content-Length header but only n body bytes, then close
          ignore_range=True           answer a ranged request with 200 and the whole file
          content_length=N            claim Content-Length N, send the real bytes, then close
          redirect="URL"              302 to URL
          require_header=(name, value) 401 unless the request carries that header with that value
          content_type="text/html"    a wrong Content-Type
        Every matching request uses up one of the count, whether or not the fault changed its answer (a require_header
        request that has the header too). Faults stack: given twice for one path, the first applies to its count of
        requests, then the second."""
        unknown = set(kind) - FAULT_KINDS
        if unknown or not kind:
            raise ValueError(f"fault kinds are {sorted(FAULT_KINDS)}; got {sorted(kind)}")
        if count is not None and count < 1:
            raise ValueError("count must be at least 1, or None for always")
        with self._lock:
            self._faults.append(dict(kind, glob=glob, count=count))

    def clear_faults(self):
        with self._lock:
            self._faults.clear()

    def faults_left(self, glob=None):
        """The faults still active (matching `glob` as written when given), with their remaining counts."""
        with self._lock:
            return [dict(f) for f in self._faults if glob is None or f["glob"] == glob]

    def redirect(self, path, to, status=302):
        """Always answer `path` (as requested, e.g. "/old/index.m3u8") with `status` and Location `to`."""
        with self._lock:
            self._redirects["/" + path.lstrip("/")] = (to, status)

    # -- the log

    def requests(self, glob=None):
        """Copies of the log entries whose path matches `glob` (all when None), in arrival order."""
        with self._lock:
            return [dict(e) for e in self.log if glob is None or _matches(e["path"], glob)]

    def bytes_sent(self, glob=None):
        """Body bytes sent in the responses to requests matching `glob`."""
        return sum(e["bytes_sent"] for e in self.requests(glob))

    def largest_range(self, glob=None):
        """The most body bytes sent in one response (0 if none): bounds what a client asked for at once."""
        return max((e["bytes_sent"] for e in self.requests(glob)), default=0)

    def clear(self):
        with self._lock:
            self.log.clear()
            self.errors.clear()

    # -- used by the handler

    def _take_fault(self, path):
        """The fault that applies to this request (consuming one of its count), or None."""
        with self._lock:
            for fault in self._faults:
                if _matches(path, fault["glob"]):
                    if fault["count"] is not None:
                        fault["count"] -= 1
                        if fault["count"] == 0:
                            self._faults.remove(fault)
                    return {k: v for k, v in fault.items() if k != "count"}
        return None

    def _sleep(self, seconds):
        self._stopping.wait(seconds)


def _matches(path, glob):
    return fnmatch.fnmatchcase(path, glob) or fnmatch.fnmatchcase(path.lstrip("/"), glob)


class _Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False  # stop() ends connections itself; never wait on a client that keeps one open
    allow_reuse_address = False  # port 0: nothing to reuse, and never share a port with a stale test's server
    # A CDN's listen queue (nginx: 511), not socketserver's 5: vtrim opens up to six connections at once (two tracks,
    # three fetches each), and a full queue makes the kernel retry a connection after a second.
    request_queue_size = 128

    def handle_error(self, request, client_address):
        # Clients hanging up mid-body (as the tests make them) are normal here: record, never print a traceback.
        self.origin.errors.append(repr(sys.exc_info()[1]))


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as a CDN; every answer has a Content-Length
    server_version = "vtrim-test-origin"
    timeout = 30  # an idle keep-alive connection ends after this

    def setup(self):
        super().setup()
        with self.server.origin._lock:
            self.server.origin._connections.add(self.connection)

    def finish(self):
        with self.server.origin._lock:
            self.server.origin._connections.discard(self.connection)
        try:
            super().finish()
        except OSError:
            pass

    def log_message(self, format, *args):
        pass  # the origin's own log is the record; stderr stays quiet

    def do_GET(self):
        self._answer(head=False)

    def do_HEAD(self):
        self._answer(head=True)

    # -- one request

    def _answer(self, head):
        origin = self.server.origin
        split = urllib.parse.urlsplit(self.path)
        path = urllib.parse.unquote(split.path)
        self.entry = {"method": self.command, "path": path, "query": split.query, "range": self.headers.get("Range"),
                      "status": None, "bytes_sent": 0, "headers": dict(self.headers.items()), "fault": None,
                      "done": False, "started": time.monotonic(), "ended": None}
        with origin._lock:
            origin.log.append(self.entry)
        try:
            self._respond(origin, path, head)
        except (ConnectionError, TimeoutError, ssl.SSLError) as error:
            # The client went away (or was sent away): this connection is over.
            self.entry["error"] = repr(error)
            self.close_connection = True
        finally:
            self.entry["ended"] = time.monotonic()
            self.entry["done"] = True

    def _respond(self, origin, path, head):
        with origin._lock:
            mapped = origin._redirects.get(path)
        if mapped:
            return self._reply(mapped[1], b"", {"Location": mapped[0]}, head)
        fault = origin._take_fault(path)
        self.entry["fault"] = fault
        fault = fault or {}

        if "require_header" in fault:
            name, value = fault["require_header"]
            if self.headers.get(name) != value:
                return self._reply(401, b"unauthorized\n", {"WWW-Authenticate": "Bearer"}, head)
        if "status" in fault:
            extra = {"Retry-After": str(fault["retry_after"])} if "retry_after" in fault else {}
            return self._reply(fault["status"], f"fault {fault['status']}\n".encode(), extra, head)
        if "redirect" in fault:
            return self._reply(302, b"", {"Location": fault["redirect"]}, head)
        if "stall" in fault:
            origin._sleep(fault["stall"])

        file = self._file(origin, path)
        if file is None:
            return self._reply(404, b"not found\n", {}, head)
        total = os.path.getsize(file)
        content_type = fault.get("content_type") or _content_type(file)
        ranged = self._range(total) if self.entry["range"] and not fault.get("ignore_range") else None
        if ranged == "unsatisfiable":
            return self._reply(416, b"", {"Content-Range": f"bytes */{total}"}, head)
        if ranged:
            start, end = ranged
            status, headers = 206, {"Content-Range": f"bytes {start}-{end}/{total}"}
        else:
            start, end = 0, total - 1
            status, headers = 200, {}
        length = end - start + 1
        headers.update({"Content-Type": content_type, "Accept-Ranges": "bytes",
                        "Content-Length": str(fault.get("content_length", length))})
        self._headers(status, headers)
        if head:
            return

        # How much of the body to send, and what happens after.
        send = length
        if "reset_after" in fault:
            send = min(length, fault["reset_after"])
        elif "truncate_to" in fault:
            send = min(length, fault["truncate_to"])
        with open(file, "rb") as handle:
            handle.seek(start)
            if "stall_mid" in fault:
                self._copy(handle, send // 2)
                self.wfile.flush()
                origin._sleep(fault["stall_mid"])
                self._copy(handle, send - send // 2)
            else:
                self._copy(handle, send)
        self.wfile.flush()
        if "reset_after" in fault:
            self._reset()
        elif "truncate_to" in fault or "content_length" in fault:
            self.close_connection = True  # a short body can only end by closing: the client sees EOF early

    def _file(self, origin, path):
        """The regular file under the folder that `path` names, or None (never anything outside it)."""
        candidate = os.path.realpath(os.path.join(origin.folder, path.lstrip("/")))
        if os.path.commonpath([candidate, origin.folder]) != origin.folder or not os.path.isfile(candidate):
            return None
        return candidate

    def _range(self, total):
        """(start, end) inclusive for a single `bytes=` range, "unsatisfiable", or None to ignore the header (as RFC
        9110 allows for syntax it does not understand, and as this origin does for multiple ranges)."""
        value = self.entry["range"].strip()
        if not value.startswith("bytes=") or "," in value:
            return None
        first, dash, last = value[len("bytes="):].strip().partition("-")
        try:
            if not dash:
                return None
            if first == "":  # -n: the last n bytes
                n = int(last)
                if n <= 0 or total == 0:
                    return "unsatisfiable"
                return max(0, total - n), total - 1
            start = int(first)
            end = int(last) if last else None
        except ValueError:
            return None
        if start < 0 or (end is not None and end < start):
            return None
        if start >= total:
            return "unsatisfiable"
        return start, total - 1 if end is None else min(end, total - 1)

    def _headers(self, status, headers):
        self.entry["status"] = status
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        if self.server.origin.cors:
            self.send_header("Access-Control-Allow-Origin", "*")
        self.end_headers()

    def _reply(self, status, body, headers, head):
        self._headers(status, dict(headers, **{"Content-Type": "text/plain", "Content-Length": str(len(body))}))
        if body and not head:
            self.entry["bytes_sent"] += len(body)
            self.wfile.write(body)

    def _copy(self, handle, count):
        while count > 0:
            data = handle.read(min(CHUNK, count))
            if not data:
                break
            # Counted before the write: once a client has the bytes, the log has them too (a test reads it as soon as
            # the client is done). A client hanging up mid-chunk may have missed some of the last chunk counted.
            self.entry["bytes_sent"] += len(data)
            self.wfile.write(data)
            count -= len(data)

    def _reset(self):
        """Close with SO_LINGER 0, so the kernel sends RST rather than FIN: the client sees a reset, not an EOF. The fd
        is detached and closed here because socketserver would first shutdown(SHUT_WR), which sends a FIN."""
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        os.close(self.connection.detach())
        self.close_connection = True


def _content_type(file):
    extension = os.path.splitext(file)[1].lower()
    return CONTENT_TYPES.get(extension) or mimetypes.guess_type(file)[0] or "application/octet-stream"


_certificate_lock = threading.Lock()
_certificate_paths = None


def _certificate():
    """(certfile, keyfile) of a self-signed certificate for 127.0.0.1, made once per process (RSA key generation
    takes a noticeable fraction of a second) and removed at exit."""
    global _certificate_paths
    with _certificate_lock:
        if _certificate_paths is None:
            folder = tempfile.mkdtemp(prefix="vtrim-origin-tls-")
            atexit.register(shutil.rmtree, folder, True)
            certfile, keyfile = os.path.join(folder, "cert.pem"), os.path.join(folder, "key.pem")
            subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=127.0.0.1",
                            "-addext", "subjectAltName=IP:127.0.0.1", "-days", "1",
                            "-keyout", keyfile, "-out", certfile],
                           check=True, capture_output=True)
            _certificate_paths = certfile, keyfile
        return _certificate_paths
