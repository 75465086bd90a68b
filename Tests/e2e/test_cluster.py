"""Two `kiln serve` instances behind a real HAProxy on loopback (docs/deploy.md), sharing
one database — PostgreSQL (the multi-host setup) and a SQLite file (one host): a permalink
made through one opens through the other; SIGTERM on the instance holding a session drains
it (HAProxy's health check takes it out), closes the session with 1001, and the client
reconnects through HAProxy to the other instance with its text; the history compiled
before the move is still there. Spectators of a session reach the instance holding it
through HAProxy's routing on the instance name in the watch link, and a client address's
share quota holds across the instances."""
import asyncio
import json
import pathlib
import shutil
import signal
import subprocess
import time
import urllib.request
import uuid

import pytest
import websockets
from websockets.exceptions import ConnectionClosed

from conftest import KilnServer, free_port, scratch_folder

HAPROXY_CONFIG = """
global
    maxconn 512
defaults
    mode http
    timeout connect 2s
    timeout client 30s
    timeout server 30s
    timeout tunnel 1h
    option http-server-close
frontend kiln
    bind 127.0.0.1:{port}
    default_backend instances
backend instances
    balance roundrobin
    option httpchk GET /healthz
    http-check expect status 200
    default-server inter 300ms fall 1 rise 1
    use-server a if {{ path_beg /w/a. }} || {{ url_param(watch) -m beg a. }}
    use-server b if {{ path_beg /w/b. }} || {{ url_param(watch) -m beg b. }}
    server a 127.0.0.1:{a} check
    server b 127.0.0.1:{b} check
"""

SOURCE = """#include <metal_stdlib>
using namespace metal;
[[ stitchable ]] half4 tint(float2 position, float time) {
    return half4(0.25, 0.5 + 0.5 * sin(position.x * 0.1 + time), 0.75, 1);
}
"""


def http(url, data=None):
    request = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"} if data else {})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def metric(server, name):
    status, body = http(server.http + "/metrics")
    for line in body.decode().splitlines():
        if line.startswith(name + " "):
            return int(float(line.split()[1]))
    return 0


def connections(server):
    return metric(server, "kiln_connections")


@pytest.fixture(params=["postgres", "sqlite"])
def cluster(request, postgres_url):
    if not shutil.which("haproxy"):
        pytest.skip("haproxy is not installed")
    data = scratch_folder("kiln-cluster-")
    if request.param == "postgres":
        schema = "e2e_" + uuid.uuid4().hex
        storage = ("--data-directory", "none", "--database", f"{postgres_url}&schema={schema}")
    else:
        storage = ("--data-directory", data)
    quota = ("--share-quota-bytes", "200000")         # room for the tests' shares; test_quota fills it
    a = KilnServer(*storage, *quota, "--instance-name", "a", "--drain-seconds", "1.5").start()
    b = KilnServer(*storage, *quota, "--instance-name", "b", "--drain-seconds", "1.5").start()
    port = free_port()
    config = pathlib.Path(data) / "haproxy.cfg"
    config.write_text(HAPROXY_CONFIG.format(port=port, a=a.port, b=b.port))
    proxy = subprocess.Popen(["haproxy", "-db", "-f", str(config)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    deadline = time.time() + 10
    while time.time() < deadline:
        try:
            if http(url + "/healthz")[0] == 200:
                break
        except OSError:
            time.sleep(0.1)
    else:
        proxy.kill()
        raise RuntimeError("haproxy did not come up: " + proxy.stdout.read().decode())
    yield a, b, url
    proxy.send_signal(signal.SIGTERM)
    proxy.wait(timeout=5)
    a.stop()
    b.stop()


def test_permalinks_and_history_from_any_instance_and_sessions_move(cluster):
    a, b, url = cluster
    # A permalink made through instance a opens through instance b (and through the proxy).
    status, body = http(a.http + "/share", json.dumps({"source": SOURCE, "function": "tint"}).encode())
    assert status == 201
    share = json.loads(body)["id"]
    status, state = http(b.http + f"/s/{share}?format=json")
    assert status == 200 and json.loads(state)["source"] == SOURCE
    assert http(url + f"/s/{share}?format=json")[0] == 200

    client = "cluster-client-0123456789"
    ws_url = url.replace("http", "ws") + "/"

    async def go():
        ws = await websockets.connect(ws_url, max_size=None)
        await ws.send(json.dumps({"type": "compile", "source": SOURCE, "client": client}))
        await ws.send(json.dumps({"type": "preview.start", "size": [32, 32], "fps": 30}))
        while not (isinstance(message := await ws.recv(), bytes) and message[:4] == b"KLNF"):
            pass
        holder, other = (a, b) if connections(a) == 1 else (b, a)
        assert connections(holder) == 1 and connections(other) == 0
        # SIGTERM the instance holding the session: it drains, then closes with 1001.
        holder.process.send_signal(signal.SIGTERM)
        with pytest.raises(ConnectionClosed) as closed:
            while True:
                await asyncio.wait_for(ws.recv(), timeout=10)
        assert closed.value.rcvd.code == 1001
        assert holder.process.wait(timeout=10) == 0
        # The client reconnects through the proxy — to the other instance — with its text.
        edited = SOURCE.replace("0.25", "0.5")
        ws = await websockets.connect(ws_url, max_size=None)
        await ws.send(json.dumps({"type": "compile", "source": edited, "client": client}))
        while not (isinstance(message := await ws.recv(), str) and json.loads(message)["type"] == "compiled"):
            pass
        assert json.loads(message)["ok"]
        assert connections(other) == 1
        await ws.close()

    asyncio.run(go())
    # The history holds the version compiled on the stopped instance and the one after.
    deadline = time.time() + 5
    while True:                                   # the server keeps a version after answering
        status, body = http(url + f"/history/{client}")
        if status == 200 and len(json.loads(body)["versions"]) == 2 or time.time() > deadline:
            break
        time.sleep(0.1)
    assert status == 200 and len(json.loads(body)["versions"]) == 2, body


def test_spectators_reach_the_instance_holding_the_session(cluster):
    a, b, url = cluster
    ws_url = url.replace("http", "ws") + "/"

    async def text(ws, *types):
        while True:
            message = await asyncio.wait_for(ws.recv(), timeout=10)
            if isinstance(message, str) and json.loads(message)["type"] in types:
                return json.loads(message)

    async def go():
        editor = await websockets.connect(ws_url, max_size=None)
        await editor.send(json.dumps({"type": "compile", "source": SOURCE}))
        await editor.send(json.dumps({"type": "watch"}))
        token = (await text(editor, "watching"))["token"]
        holder = a if connections(a) == 1 else b
        assert token.startswith("a." if holder is a else "b."), token
        # Round robin alone would send every other request to the instance without the session.
        for _ in range(3):
            assert http(url + f"/w/{token}")[0] == 200
            spectator = await websockets.connect(ws_url + f"?watch={token}", max_size=None)
            await spectator.send(json.dumps({"type": "spectate", "token": token}))
            joined = await text(spectator, "spectating", "error")
            assert joined["type"] == "spectating", joined
            assert joined["files"][0]["text"] == SOURCE
            await spectator.close()
        await editor.close()

    asyncio.run(go())


def test_a_share_quota_holds_across_instances(cluster):
    """The quota is counted in the shared database: shares through HAProxy alternate
    between the instances, and the address runs out on whichever serves the one too many."""
    a, b, url = cluster
    statuses = []
    for n in range(6):
        body = json.dumps({"source": f"// {n} " + "q" * 45000, "function": "f"}).encode()
        statuses.append(http(url + "/share", body)[0])
    assert statuses[:4] == [201] * 4 and statuses[4:] == [429, 429], statuses
    # Both instances stored some of the four (round robin), so neither counted alone.
    stored = [metric(server, "kiln_shares_total") for server in (a, b)]
    assert all(count > 0 for count in stored) and sum(stored) == 4, stored
