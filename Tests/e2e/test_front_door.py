"""The front door: every request head on a plain-HTTP port is read and checked (RFC 9112)
before libwebsockets sees it. Each test here is a request libwebsockets 4.1 alone left
unanswered (hung or dropped), sent as raw bytes over loopback, plus the bounds on clients
that never finish their head."""
import socket
import subprocess
import time

import pytest

from conftest import KilnServer


@pytest.fixture(scope="module")
def door():
    s = KilnServer("--header-timeout", "1", "--max-waiting-connections", "8").start()
    yield s
    s.stop()


def exchange(server, data, timeout=5, half_close=False):
    """Sends raw bytes; returns (everything answered until the server closed, seconds taken)."""
    started = time.time()
    with socket.create_connection(("127.0.0.1", server.port), timeout=timeout) as sock:
        sock.sendall(data)
        if half_close:
            sock.shutdown(socket.SHUT_WR)
        out = b""
        try:
            while chunk := sock.recv(65536):
                out += chunk
        except (socket.timeout, ConnectionResetError):
            pass
    return out, time.time() - started


def status_of(answer):
    line = answer.split(b"\r\n", 1)[0]
    return int(line.split()[1]) if line.startswith(b"HTTP/1.1 ") else None


def test_connect_gets_501_at_once(door):
    answer, took = exchange(door, b"CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n")
    assert status_of(answer) == 501 and b"proxies" in answer and took < 1, (answer[:100], took)
    answer, _ = exchange(door, b"TRACE / HTTP/1.1\r\nHost: a\r\n\r\n")
    assert status_of(answer) == 501


def test_large_heads_get_431_and_long_targets_414(door):
    big = b"".join(b"X-Filler-%d: %s\r\n" % (i, b"v" * 900) for i in range(40))   # 36 KiB of fields
    answer, took = exchange(door, b"GET /healthz HTTP/1.1\r\nHost: a\r\n" + big + b"\r\n")
    assert status_of(answer) == 431 and took < 1, (answer[:100], took)
    many = b"".join(b"X-%d: 1\r\n" % i for i in range(150))
    assert status_of(exchange(door, b"GET /healthz HTTP/1.1\r\nHost: a\r\n" + many + b"\r\n")[0]) == 431
    answer, _ = exchange(door, b"GET /" + b"a" * 9000 + b" HTTP/1.1\r\nHost: a\r\n\r\n")
    assert status_of(answer) == 414
    # Below the limits the same kinds of request are served.
    fields = b"".join(b"X-Filler-%d: %s\r\n" % (i, b"v" * 900) for i in range(15))   # 13.5 KiB
    answer, _ = exchange(door, b"GET /healthz HTTP/1.1\r\nHost: a\r\n" + fields + b"\r\n")
    assert status_of(answer) == 200 and answer.endswith(b"ok\n"), answer[:200]
    answer, _ = exchange(door, b"GET /healthz?" + b"a" * 8000 + b" HTTP/1.1\r\nHost: a\r\n\r\n")
    assert status_of(answer) == 200, answer[:200]


def test_bad_lengths_with_body_bytes_get_400(door):
    for length in (b"abc", b"-5", b"18446744073709551616", b"5, 7"):
        answer, took = exchange(door, b"POST /compile HTTP/1.1\r\nHost: a\r\nContent-Length: " + length + b"\r\n\r\nhello world")
        assert status_of(answer) == 400 and took < 1, (length, answer[:100], took)
    answer, _ = exchange(door, b"POST /compile HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\nhello")
    assert status_of(answer) == 400


def test_malformed_heads_get_400_or_505(door):
    cases = {
        b"GET / HTTP/1.1\r\n\r\n": 400,                              # HTTP/1.1 without Host
        b"GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n": 400,
        b"GET / HTTP/1.1\r\nHost : a\r\n\r\n": 400,                  # space before the colon
        b"GET / HTTP/1.1\r\nHost: a\r\nX: 1\r\n  folded\r\n\r\n": 400,
        b"GET / HTTP/1.1\r\nHost: a\x00\r\n\r\n": 400,
        b"GET / HTTP/3.0\r\nHost: a\r\n\r\n": 505,
        b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\r\n\r\n": 400,   # TLS on the plain port
    }
    for head, expected in cases.items():
        answer, _ = exchange(door, head)
        assert status_of(answer) == expected, (head[:40], answer[:100])


def test_the_answer_survives_unread_body_bytes(door):
    """A refusal with body bytes still unread must not become a reset (RFC 9112 §9.6):
    the front door half-closes and drains them."""
    body = b"x" * 200_000
    answer, _ = exchange(door, b"POST /compile HTTP/1.1\r\nHost: a\r\nContent-Length: abc\r\n\r\n" + body)
    assert status_of(answer) == 400, answer[:100]


def test_every_request_passes_the_front_door(door):
    """Plain requests are handed to libwebsockets with `Connection: close`, so a second
    request on the connection never reaches libwebsockets' parser unchecked."""
    answer, took = exchange(door, b"GET /healthz HTTP/1.1\r\nHost: a\r\n\r\nCONNECT example.com:443 HTTP/1.1\r\nHost: x\r\n\r\n")
    assert status_of(answer) == 200 and b"connection: close" in answer.lower(), answer[:300]
    assert answer.count(b"HTTP/1.1 ") == 1 and took < 2, (answer, took)
    # Static files (written by libwebsockets) say so too.
    answer, _ = exchange(door, b"GET / HTTP/1.1\r\nHost: a\r\n\r\n")
    assert status_of(answer) == 200 and b"\r\nconnection: close\r\n" in answer.split(b"\r\n\r\n")[0] + b"\r\n", answer[:300]
    # Clients that reuse connections simply open new ones: curl fetching three URLs.
    result = subprocess.run(["curl", "-sS", "-o", "/dev/null", "-o", "/dev/null", "-o", "/dev/null", "-w", "%{http_code} ",
                             door.http + "/healthz", door.http + "/shaders", door.http + "/"], capture_output=True, timeout=20)
    assert result.stdout.split() == [b"200", b"200", b"200"], result


def test_absolute_form_targets_are_served(door):
    answer, _ = exchange(door, b"GET http://127.0.0.1:%d/healthz HTTP/1.1\r\nHost: ignored\r\n\r\n" % door.port)
    assert status_of(answer) == 200 and answer.endswith(b"ok\n"), answer[:200]


def test_silent_and_dribbling_clients_are_bounded(door):
    """--header-timeout 1: a client that never finishes its head gets 408 (or, if it sent
    nothing, a plain close) after a second; --max-waiting-connections 8: the ninth waiting
    client is refused at once with 503."""
    started = time.time()
    answer, took = exchange(door, b"GET /healthz HTTP/1.1\r\nHost: a\r\n")
    assert status_of(answer) == 408 and 0.8 < took < 3, (answer[:80], took)
    silent = [socket.create_connection(("127.0.0.1", door.port)) for _ in range(8)]
    try:
        time.sleep(0.2)
        answer, took = exchange(door, b"GET /healthz HTTP/1.1\r\nHost: a\r\n\r\n")
        assert status_of(answer) == 503 and b"maxWaitingConnections" in answer and took < 1, answer[:200]
        for sock in silent:
            sock.settimeout(5)
            assert sock.recv(100) == b""          # closed without a word after the timeout
        assert time.time() - started < 6
    finally:
        for sock in silent:
            sock.close()
    # Room again.
    assert status_of(exchange(door, b"GET /healthz HTTP/1.1\r\nHost: a\r\n\r\n")[0]) == 200


def test_websocket_and_body_requests_still_work(door, wave_source):
    status = subprocess.run(["curl", "-sS", "-o", "/dev/null", "-w", "%{http_code}", "--data-binary", "@-",
                             door.http + "/compile"], input=wave_source.encode(), capture_output=True, timeout=20).stdout
    assert status == b"200"
    import asyncio
    import websockets

    async def go():
        async with websockets.connect(door.ws) as ws:
            await ws.send(wave_source)
            return await asyncio.wait_for(ws.recv(), 10)
    assert asyncio.run(go()).startswith(b"KILNLIB\0")


def test_a_body_is_read_by_its_route_and_what_follows_is_not_served(door, wave_source):
    """The body stays in the socket for libwebsockets to read (sent at once with the head,
    or later); a request pipelined behind it is not answered."""
    body = wave_source.encode()
    head = b"POST /compile HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: %d\r\n\r\n" % len(body)
    answer, took = exchange(door, head + body)
    assert status_of(answer) == 200 and b"KILNLIB" in answer and took < 3, (answer[:200], took)
    answer, took = exchange(door, head + body + b"CONNECT example.com:443 HTTP/1.1\r\nHost: x\r\n\r\n")
    assert status_of(answer) == 200 and answer.count(b"HTTP/1.1 ") == 1 and took < 3, (answer[:200], took)
    with socket.create_connection(("127.0.0.1", door.port), timeout=5) as sock:
        sock.sendall(head)
        time.sleep(0.2)
        sock.sendall(body)
        assert status_of(sock.recv(200)) == 200
