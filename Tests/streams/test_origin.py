"""The test origin itself (origin.py), checked with http.client and urllib before any vtrim test relies on it: ranges,
HEAD, keep-alive, the request log, and that each fault does what the stream tests will say it does."""
import http.client
import random
import socket
import ssl
import time
import urllib.error
import urllib.request

import pytest

from .origin import Origin

SIZE = 100_000
DATA = random.Random(51).randbytes(SIZE)


@pytest.fixture
def server(tmp_path):
    """An origin over a small folder of known bytes (no ffmpeg needed)."""
    (tmp_path / "data.bin").write_bytes(DATA)
    (tmp_path / "hls").mkdir()
    for name in ("hls/index.m3u8", "hls/seg000.ts", "hls/seg000.m4s", "hls/init.mp4", "manifest.mpd"):
        (tmp_path / name).write_bytes(DATA[:1000])
    with Origin(tmp_path) as origin:
        yield origin


def connect(origin, timeout=5):
    if origin.tls:
        context = ssl.create_default_context(cafile=origin.cafile)
        return http.client.HTTPSConnection("127.0.0.1", origin.port, timeout=timeout, context=context)
    return http.client.HTTPConnection("127.0.0.1", origin.port, timeout=timeout)


def fetch(origin, path, method="GET", headers=None, connection=None, timeout=5):
    """(status, headers, body) of one request; a connection given is kept open (keep-alive)."""
    conn = connection or connect(origin, timeout)
    try:
        conn.request(method, path, headers=headers or {})
        response = conn.getresponse()
        return response.status, response.headers, response.read()
    finally:
        if connection is None:
            conn.close()


def partial_read(origin, path, headers=None):
    """(headers, the body bytes that arrived) of a response that ends early (http.client's IncompleteRead)."""
    conn = connect(origin)
    try:
        conn.request("GET", path, headers=headers or {})
        response = conn.getresponse()
        with pytest.raises(http.client.IncompleteRead) as raised:
            response.read()
        return response.headers, raised.value.partial
    finally:
        conn.close()


def wait_done(origin, glob, count=1, timeout=5):
    """The log entries for `glob` once `count` of them are answered (the handler finishes after the client has
    its bytes, so the log may lag the client by a moment)."""
    deadline = time.monotonic() + timeout
    while True:
        entries = origin.requests(glob)
        if sum(e["done"] for e in entries) >= count or time.monotonic() > deadline:
            return entries
        time.sleep(0.01)


# -- plain serving

@pytest.mark.parametrize("path, content_type", [
    ("/data.bin", "application/octet-stream"),
    ("/hls/index.m3u8", "application/vnd.apple.mpegurl"),
    ("/manifest.mpd", "application/dash+xml"),
    ("/hls/seg000.ts", "video/mp2t"),
    ("/hls/seg000.m4s", "video/mp4"),
    ("/hls/init.mp4", "video/mp4"),
])
def test_get_whole_file(server, path, content_type):
    status, headers, body = fetch(server, path)
    assert status == 200
    assert body == (DATA if path == "/data.bin" else DATA[:1000])
    assert headers["Content-Length"] == str(len(body))
    assert headers["Content-Type"] == content_type
    assert headers["Accept-Ranges"] == "bytes"
    assert "Content-Range" not in headers


@pytest.mark.parametrize("header, start, end", [
    ("bytes=0-99", 0, 99),
    ("bytes=1000-1999", 1000, 1999),
    ("bytes=99990-", 99990, SIZE - 1),            # a-: to the end
    ("bytes=-10", SIZE - 10, SIZE - 1),           # -n: the last n bytes
    ("bytes=99000-500000", 99000, SIZE - 1),      # an end past the file is clamped
    ("bytes=-500000", 0, SIZE - 1),               # a suffix longer than the file is all of it
    ("bytes=5-5", 5, 5),
])
def test_range(server, header, start, end):
    status, headers, body = fetch(server, "/data.bin", headers={"Range": header})
    assert status == 206
    assert headers["Content-Range"] == f"bytes {start}-{end}/{SIZE}"
    assert headers["Content-Length"] == str(end - start + 1)
    assert body == DATA[start:end + 1]


@pytest.mark.parametrize("header", ["bytes=100000-", "bytes=200000-300000", "bytes=-0"])
def test_unsatisfiable_range(server, header):
    status, headers, body = fetch(server, "/data.bin", headers={"Range": header})
    assert status == 416
    assert headers["Content-Range"] == f"bytes */{SIZE}"
    assert body == b""


@pytest.mark.parametrize("header", ["bytes=0-1,5-9", "items=0-5", "bytes=9-5", "bytes=x-y"])
def test_ranges_it_does_not_serve_are_ignored(server, header):
    # RFC 9110 lets a server ignore a Range it will not honour (multiple ranges) or cannot parse: 200, all of it.
    status, headers, body = fetch(server, "/data.bin", headers={"Range": header})
    assert (status, body) == (200, DATA)


def test_head(server):
    status, headers, body = fetch(server, "/data.bin", method="HEAD")
    assert (status, headers["Content-Length"], body) == (200, str(SIZE), b"")
    status, headers, body = fetch(server, "/data.bin", method="HEAD", headers={"Range": "bytes=10-19"})
    assert (status, headers["Content-Range"], headers["Content-Length"]) == (206, f"bytes 10-19/{SIZE}", "10")
    assert body == b""
    assert [e["bytes_sent"] for e in server.requests()] == [0, 0]
    assert [e["method"] for e in server.requests()] == ["HEAD", "HEAD"]


def test_keep_alive(server):
    conn = connect(server)
    try:
        assert fetch(server, "/data.bin", headers={"Range": "bytes=0-9"}, connection=conn)[2] == DATA[:10]
        first = conn.sock
        assert fetch(server, "/data.bin", headers={"Range": "bytes=10-19"}, connection=conn)[2] == DATA[10:20]
        assert fetch(server, "/nothing-here", connection=conn)[0] == 404
        assert fetch(server, "/data.bin", method="HEAD", connection=conn)[0] == 200
        assert conn.sock is first  # one connection throughout, errors included
    finally:
        conn.close()


@pytest.mark.parametrize("path", ["/nothing", "/hls", "/../../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd", "/hls/../../x"])
def test_missing_and_outside_paths_are_404(server, path):
    assert fetch(server, path)[0] == 404


def test_query_is_ignored_for_the_file_but_logged(server):
    status, _, body = fetch(server, "/data.bin?token=secret&x=1", headers={"Range": "bytes=0-3"})
    assert (status, body) == (206, DATA[:4])
    (entry,) = server.requests("/data.bin")
    assert (entry["path"], entry["query"], entry["range"]) == ("/data.bin", "token=secret&x=1", "bytes=0-3")


# -- the log

def test_log_counts_requests_and_bytes(server):
    fetch(server, "/data.bin", headers={"Range": "bytes=0-999", "X-Test": "one"})
    fetch(server, "/data.bin", headers={"Range": "bytes=1000-"})
    fetch(server, "/hls/seg000.ts")
    fetch(server, "/missing.ts")
    entries = wait_done(server, None, count=4)
    assert [(e["path"], e["status"], e["bytes_sent"]) for e in entries] == [
        ("/data.bin", 206, 1000), ("/data.bin", 206, SIZE - 1000), ("/hls/seg000.ts", 200, 1000),
        ("/missing.ts", 404, len(b"not found\n"))]
    assert entries[0]["headers"]["X-Test"] == "one"
    assert entries[0]["range"] == "bytes=0-999" and entries[2]["range"] is None
    assert all(e["done"] and e["fault"] is None for e in entries)
    assert len(server.requests("*.ts")) == 2
    assert len(server.requests("hls/*")) == 1  # globs match with or without the leading slash
    assert server.bytes_sent("/data.bin") == SIZE
    assert server.bytes_sent() == SIZE + 1000 + 10
    assert server.largest_range() == SIZE - 1000
    assert server.largest_range("*.ts") == 1000
    server.clear()
    assert server.requests() == [] and server.bytes_sent() == 0 and server.largest_range() == 0


def test_log_is_safe_under_concurrent_requests(server):
    import concurrent.futures
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        results = list(pool.map(lambda i: fetch(server, f"/data.bin?n={i}", headers={"Range": f"bytes={i}-{i + 99}"}),
                                range(40)))
    assert all(status == 206 for status, _, _ in results)
    assert len(server.requests()) == 40 and server.bytes_sent() == 4000


# -- faults

def test_status_fault_counts_down(server):
    server.fault("*/data.bin", count=2, status=503, retry_after=3)
    for left in (1, 0):
        status, headers, body = fetch(server, "/data.bin")
        assert (status, headers["Retry-After"], body) == (503, "3", b"fault 503\n")
        assert [f["count"] for f in server.faults_left()] == ([left] if left else [])
    assert fetch(server, "/data.bin")[0] == 200
    assert fetch(server, "/hls/seg000.ts")[0] == 200  # other paths were never affected
    assert [e["status"] for e in server.requests()] == [503, 503, 200, 200]
    assert server.requests()[0]["fault"]["status"] == 503


def test_fault_with_count_none_is_permanent(server):
    server.fault("*.ts", count=None, status=404)
    assert [fetch(server, "/hls/seg000.ts")[0] for _ in range(3)] == [404] * 3
    assert fetch(server, "/hls/seg000.m4s")[0] == 200
    server.clear_faults()
    assert fetch(server, "/hls/seg000.ts")[0] == 200


def test_faults_stack_in_order(server):
    server.fault("/data.bin", status=503)
    server.fault("/data.bin", status=500)
    assert [fetch(server, "/data.bin")[0] for _ in range(3)] == [503, 500, 200]


def test_a_status_fault_keeps_the_connection(server):
    server.fault("/data.bin", status=503)
    conn = connect(server)
    try:
        assert fetch(server, "/data.bin", connection=conn)[0] == 503
        sock = conn.sock
        assert fetch(server, "/data.bin", connection=conn)[0] == 200
        assert conn.sock is sock  # a retry can reuse the connection, as with a CDN's 503
    finally:
        conn.close()


def test_stall_before_headers(server):
    server.fault("/data.bin", stall=0.6)
    began = time.monotonic()
    status, _, body = fetch(server, "/data.bin")
    assert (status, body) == (200, DATA)
    assert time.monotonic() - began >= 0.6
    server.fault("/data.bin", stall=2)
    with pytest.raises(TimeoutError):  # a client with a shorter timeout gives up before any header arrives
        fetch(server, "/data.bin", timeout=0.3)


def test_stall_mid_body(server):
    server.fault("/data.bin", stall_mid=0.6)
    conn = connect(server)
    try:
        conn.request("GET", "/data.bin")
        response = conn.getresponse()
        assert response.status == 200
        assert response.read(SIZE // 2) == DATA[:SIZE // 2]
        half = time.monotonic()
        assert response.read() == DATA[SIZE // 2:]
        assert time.monotonic() - half >= 0.5  # the pause fell between the halves (load can only lengthen it)
    finally:
        conn.close()
    server.fault("/data.bin", stall_mid=2)
    conn = connect(server, timeout=0.3)
    try:
        conn.request("GET", "/data.bin")
        response = conn.getresponse()
        with pytest.raises(TimeoutError):
            response.read()
    finally:
        conn.close()


def test_reset_after(server):
    server.fault("/data.bin", reset_after=1000)
    with pytest.raises(ConnectionResetError):  # an RST, not an EOF: never mistaken for a short but clean body
        fetch(server, "/data.bin")
    (entry,) = wait_done(server, "/data.bin")
    assert (entry["status"], entry["bytes_sent"]) == (200, 1000)
    assert fetch(server, "/data.bin")[2] == DATA  # the next request is served


def test_reset_after_with_a_range(server):
    server.fault("/data.bin", reset_after=10)
    with pytest.raises(ConnectionResetError):
        fetch(server, "/data.bin", headers={"Range": "bytes=500-"})
    (entry,) = wait_done(server, "/data.bin")
    assert (entry["status"], entry["bytes_sent"]) == (206, 10)


def test_truncate_to(server):
    server.fault("/data.bin", truncate_to=1000)
    headers, body = partial_read(server, "/data.bin")
    assert headers["Content-Length"] == str(SIZE)  # the full length is claimed…
    assert body == DATA[:1000]                      # …and fewer bytes arrive before the close
    (entry,) = wait_done(server, "/data.bin")
    assert entry["bytes_sent"] == 1000


def test_truncate_a_range(server):
    server.fault("/data.bin", truncate_to=5)
    headers, body = partial_read(server, "/data.bin", headers={"Range": "bytes=100-199"})
    assert (headers["Content-Length"], headers["Content-Range"], body) == ("100", f"bytes 100-199/{SIZE}",
                                                                           DATA[100:105])


def test_ignore_range(server):
    server.fault("/data.bin", ignore_range=True)
    status, headers, body = fetch(server, "/data.bin", headers={"Range": "bytes=0-99"})
    assert (status, headers["Content-Length"], body) == (200, str(SIZE), DATA)
    assert "Content-Range" not in headers
    assert server.largest_range() == SIZE
    status, _, body = fetch(server, "/data.bin", headers={"Range": "bytes=0-99"})
    assert (status, body) == (206, DATA[:100])  # count 1: honoured again


def test_huge_content_length(server):
    server.fault("/data.bin", content_length=10 ** 10)
    headers, body = partial_read(server, "/data.bin")
    assert headers["Content-Length"] == str(10 ** 10)
    assert body == DATA  # the real bytes, then the close


def test_redirect_fault(server):
    server.fault("/data.bin", redirect="file:///etc/passwd")
    status, headers, body = fetch(server, "/data.bin")
    assert (status, headers["Location"], body) == (302, "file:///etc/passwd", b"")
    assert fetch(server, "/data.bin")[0] == 200


def test_permanent_redirect_is_followed(server):
    server.redirect("/old/index.m3u8", server.url("hls/index.m3u8"))
    for _ in range(2):
        assert fetch(server, "/old/index.m3u8")[0] == 302
    with urllib.request.urlopen(server.url("old/index.m3u8"), timeout=5) as response:
        assert (response.status, response.read(), response.url) == (200, DATA[:1000], server.url("hls/index.m3u8"))
    server.redirect("gone.ts", "/hls/seg000.ts", status=301)  # a relative Location, as servers may send
    status, headers, _ = fetch(server, "/gone.ts")
    assert (status, headers["Location"]) == (301, "/hls/seg000.ts")


def test_require_header(server):
    server.fault("*.m3u8", count=None, require_header=("Authorization", "Bearer x"))
    status, headers, _ = fetch(server, "/hls/index.m3u8")
    assert (status, headers["WWW-Authenticate"]) == (401, "Bearer")
    assert fetch(server, "/hls/index.m3u8", headers={"Authorization": "Bearer y"})[0] == 401
    status, _, body = fetch(server, "/hls/index.m3u8", headers={"Authorization": "Bearer x"})
    assert (status, body) == (200, DATA[:1000])
    assert server.requests()[-1]["headers"]["Authorization"] == "Bearer x"


def test_wrong_content_type(server):
    server.fault("*.m3u8", content_type="text/html")
    assert fetch(server, "/hls/index.m3u8")[1]["Content-Type"] == "text/html"


def test_unknown_fault_kind_is_refused(server):
    with pytest.raises(ValueError):
        server.fault("*", stal=1)
    with pytest.raises(ValueError):
        server.fault("*", count=0, status=503)


def test_stop_ends_idle_and_stalled_connections(tmp_path):
    (tmp_path / "f").write_bytes(b"x" * 10)
    origin = Origin(tmp_path).start()
    idle = connect(origin)
    fetch(origin, "/f", connection=idle)  # kept open by the client
    origin.fault("/f", stall=30)
    stalled = socket.create_connection(("127.0.0.1", origin.port))
    stalled.sendall(b"GET /f HTTP/1.1\r\nHost: x\r\n\r\n")
    time.sleep(0.2)
    began = time.monotonic()
    origin.stop()
    assert time.monotonic() - began < 3
    stalled.close()
    idle.close()


# -- TLS

def test_tls(tmp_path):
    (tmp_path / "data.bin").write_bytes(DATA)
    with Origin(tmp_path, tls=True) as origin:
        assert origin.base.startswith("https://127.0.0.1:")
        with pytest.raises(urllib.error.URLError) as raised:  # self-signed: refused by a verifying client
            urllib.request.urlopen(origin.url("data.bin"), timeout=5)
        assert isinstance(raised.value.reason, ssl.SSLCertVerificationError)
        status, headers, body = fetch(origin, "/data.bin", headers={"Range": "bytes=-5"})
        assert (status, headers["Content-Range"], body) == (206, f"bytes {SIZE - 5}-{SIZE - 1}/{SIZE}", DATA[-5:])
        assert len(origin.requests()) == 1  # the refused handshake never became a request
        origin.fault("/data.bin", reset_after=10)
        with pytest.raises(ConnectionResetError):
            fetch(origin, "/data.bin")


# -- the fixtures over the real media (makes it on first use: ~8 s on 2 cores, then cached)

def test_media_through_the_origin(origin, media_facts, ffprobe_json):
    ts = media_facts["hls"]["ts"]
    status, headers, body = fetch(origin, "/ts/index.m3u8")
    assert (status, headers["Content-Type"]) == (200, "application/vnd.apple.mpegurl")
    assert body.decode().count("#EXTINF:") == len(ts["segments"]) == 10
    segment = ts["segments"][5]
    status, headers, _ = fetch(origin, "/" + segment["path"], method="HEAD")
    assert (status, headers["Content-Length"], headers["Content-Type"]) == (200, str(segment["size"]), "video/mp2t")
    # ffprobe reads the whole HLS over loopback (the proxy settings say so), as the tests' reference will.
    probed = ffprobe_json(origin.url("ts/index.m3u8"), "-show_entries", "format=duration")
    assert abs(float(probed["format"]["duration"]) - 60) < 0.2
    assert origin.requests("/ts/index.m3u8") and origin.requests("/ts/seg000.ts")
    assert origin.base.startswith("http://127.0.0.1:")


def test_https_origin_fixture(https_origin, media_facts):
    init = media_facts["hls"]["fmp4"]["map"]
    status, headers, body = fetch(https_origin, "/" + init["path"], headers={"Range": "bytes=0-7"})
    assert (status, headers["Content-Range"], body[4:8]) == (206, f"bytes 0-7/{init['size']}", b"ftyp")
