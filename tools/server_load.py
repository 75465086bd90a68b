#!/usr/bin/env python3
"""Load and latency measurements for `kiln serve` (issue notes quote its output).

    python3 tools/server_load.py latency --size 512 --edits 200
    python3 tools/server_load.py editors --clients 20 --rate 10 --seconds 10
    python3 tools/server_load.py viewers --clients 50 --size 256 --fps 30 --seconds 10
    python3 tools/server_load.py idle --clients 1000
    python3 tools/server_load.py spectators --clients 50 --size 256 --fps 30 --seconds 10
    python3 tools/server_load.py attack --seconds 10
    python3 tools/server_load.py firstpixels --size 512 --edits 15
    python3 tools/server_load.py shares --clients 50 --per-client 20 [--database postgres://…]

Each starts its own `kiln serve` (KILN_BIN, default .build/release/kiln) on a free port
unless --url is given. Edit latency is measured from sending an edited source to receiving
the first frame that shows the edit: every edit changes the colour a shape shader returns,
and the client checks the frame's first pixel. `firstpixels` edits each benchmark shader
(bench/*.metal) while it previews and reports edit → first pixels (the first frame after
the `compiled` reply, coarse or not) and edit → first full frame. `shares` has 50 clients
create 1,000 permalinks at once over HTTP (POST /share), then opens every one
(GET /s/<id>?format=json) and reports latencies and whether any was lost, against a fresh
SQLite folder or, with --database, PostgreSQL.
"""
import argparse
import asyncio
import json
import os
import pathlib
import socket
import statistics
import struct
import subprocess
import sys
import time

import websockets

ROOT = pathlib.Path(__file__).resolve().parents[1]
HEADER = struct.Struct("<4sBBHIdIII")
# Frame header flags bit 8: a provisional frame, from the quick compile of an edit not yet
# answered (docs/protocol.md).
PROVISIONAL = 0x100

SHADER = """#include <metal_stdlib>
using namespace metal;
[[ stitchable ]] half4 tint(float2 position, float time) {
    float s = 0.5 + 0.5 * sin(position.x * 0.05 + time);
    return half4(%(red)s, s, 0.25, 1);
}
"""


def source(step):
    # Red channel levels 8, 16, … so each edit is visible in the first pixel.
    return SHADER % {"red": f"{(8 * (step % 31 + 1)) / 255:.6f}"}, 8 * (step % 31 + 1)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    def __init__(self, url, extra=()):
        self.process = None
        if url:
            self.url = url
            return
        port = free_port()
        binary = os.environ.get("KILN_BIN", str(ROOT / ".build" / "release" / "kiln"))
        self.process = subprocess.Popen([binary, "serve", "--port", str(port), "--max-connections", "4096", *extra],
                                        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.url = f"ws://127.0.0.1:{port}/"
        for _ in range(200):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.1).close()
                break
            except OSError:
                time.sleep(0.05)

    def rss_mib(self):
        if not self.process:
            return float("nan")
        for line in open(f"/proc/{self.process.pid}/status"):
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        return float("nan")

    def stop(self):
        if self.process:
            self.process.terminate()
            self.process.wait(timeout=10)


def percentile(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


async def wait_for_level(ws, level, deadline):
    while time.perf_counter() < deadline:
        message = await asyncio.wait_for(ws.recv(), timeout=deadline - time.perf_counter())
        if isinstance(message, bytes) and message[:4] == b"KLNF" and message[HEADER.size] == level:
            return True
    return False


async def editor(url, size, edits, rate, results, start_step=0):
    async with websockets.connect(url, max_size=None) as ws:
        text, level = source(start_step)
        await ws.send(json.dumps({"type": "compile", "source": text}))
        await ws.send(json.dumps({"type": "preview.start", "size": [size, size], "fps": 60}))
        await wait_for_level(ws, level, time.perf_counter() + 30)
        for step in range(start_step + 1, start_step + 1 + edits):
            text, level = source(step)
            began = time.perf_counter()
            await ws.send(json.dumps({"type": "compile", "source": text}))
            if await wait_for_level(ws, level, began + 5):
                results.append((time.perf_counter() - began) * 1000)
            if rate:
                await asyncio.sleep(max(0, 1 / rate - (time.perf_counter() - began)))


def report(name, values):
    if not values:
        print(f"{name}: no samples")
        return
    print(f"{name}: n={len(values)} p50={statistics.median(values):.2f} ms p99={percentile(values, 99):.2f} ms "
          f"max={max(values):.2f} ms")


async def latency(args):
    for size in args.sizes:
        results = []
        await editor(args.server.url, size, args.edits, 0, results)
        report(f"edit → first frame, 1 client, {size}²", results)


# The benchmark cases of `kiln bench`: file, function, content, second content, clock.
BENCH_CASES = [
    ("wave", "wave.metal", "wave", "rainbow", None, 1.0), ("color", "tint.metal", "tint", "rainbow", None, 1.0),
    ("layer9", "box9.metal", "box9", "rainbow", None, 1.0), ("melt", "melt.metal", "melt", "rainbow", "checker", 0.25),
    ("loop", "swirl.metal", "swirl", "rainbow", None, 1.0), ("raymarch", "raymarch.metal", "raymarch", "rainbow", None, 1.0),
    ("fbm", "fbm.metal", "clouds", "rainbow", None, 1.0), ("sdf2d", "sdf2d.metal", "sdf2d", "rainbow", None, 1.0),
]


async def first_pixels_case(url, case, size, edits):
    name, file, function, content, content2, clock = case
    text = (ROOT / "bench" / file).read_text()
    first, full, strides, renders = [], [], [], []
    async with websockets.connect(url, max_size=None) as ws:
        async def frames_until_full(began):
            """Times of the first frame of the edit — a provisional one (header bit 8: drawn
            from the edit's quick compile before its `compiled` reply) or any frame after that
            reply — and of the first full frame after the reply, the first frame's stride and
            its render time (ms, from its header)."""
            compiled, first_at, stride, render = False, None, 0, 0
            while True:
                message = await asyncio.wait_for(ws.recv(), timeout=60)
                if isinstance(message, str):
                    compiled = compiled or json.loads(message).get("type") == "compiled"
                    continue
                if message[:4] != b"KLNF":
                    continue
                fields = HEADER.unpack_from(message)
                if not compiled and not fields[3] & PROVISIONAL:
                    continue
                flags = fields[3] & 0xFF
                now = time.perf_counter()
                if first_at is None:
                    first_at, stride, render = now, flags, fields[8] / 1000
                if not flags and compiled:
                    return (first_at - began) * 1000, (now - began) * 1000, stride, render

        start = {"type": "preview.start", "function": function, "size": [size, size], "fps": 30, "content": content}
        if content2:
            start["content2"] = content2
        await ws.send(json.dumps({"type": "compile", "source": text}))
        await ws.send(json.dumps(start))
        await ws.send(json.dumps({"type": "clock", "action": "seek", "time": clock}))
        await frames_until_full(time.perf_counter())

        async def drain(seconds):
            """Reads frames for a while, then up to the next frame: the edit then goes out
            with nothing queued for this client (a page reads as frames come; a backlog of
            1-MB frames would be this script's latency, not the server's)."""
            deadline = time.perf_counter() + seconds
            while time.perf_counter() < deadline:
                await asyncio.wait_for(ws.recv(), timeout=60)
            await asyncio.wait_for(ws.recv(), timeout=60)

        await drain(0.3)              # the server's estimate is of this shader now
        for step in range(edits):
            began = time.perf_counter()
            await ws.send(json.dumps({"type": "compile", "source": text + f"\n// edit {step}\n"}))
            a, b, k, r = await frames_until_full(began)
            first.append(a), full.append(b), strides.append(k), renders.append(r)
            await drain(0.1)
    return first, full, strides, renders


async def first_pixels(args):
    print(f"edit → first pixels, {args.size}², {args.edits} edits per case (p50; stride = the coarse frame's, 0 = full)")
    print(f"{'case':<10} {'first pixels ms':>16} {'full frame ms':>14} {'stride':>7} {'its render ms':>14}")
    for case in BENCH_CASES:
        if args.cases and case[0] not in args.cases:
            continue
        first, full, strides, renders = await first_pixels_case(args.server.url, case, args.size, args.edits)
        print(f"{case[0]:<10} {statistics.median(first):>16.2f} {statistics.median(full):>14.2f} "
              f"{statistics.median(strides):>7.0f} {statistics.median(renders):>14.2f}")


async def editors(args):
    results = []
    await asyncio.gather(*(editor(args.server.url, args.size, int(args.seconds * args.rate), args.rate, results, start_step=i)
                           for i in range(args.clients)))
    report(f"edit → first frame, {args.clients} clients × {args.rate} edits/s, {args.size}²", results)


async def count_frames(ws, seconds):
    """Frames received on `ws` in the next `seconds`."""
    count, end = 0, time.perf_counter() + seconds
    while time.perf_counter() < end:
        try:
            message = await asyncio.wait_for(ws.recv(), timeout=max(0.01, end - time.perf_counter()))
        except asyncio.TimeoutError:
            break
        if isinstance(message, bytes) and message[:4] == b"KLNF":
            count += 1
    return count


async def viewers(args):
    counts = [0] * args.clients

    async def viewer(i):
        async with websockets.connect(args.server.url, max_size=None) as ws:
            await ws.send(json.dumps({"type": "compile", "source": source(0)[0]}))
            await ws.send(json.dumps({"type": "preview.start", "size": [args.size, args.size], "fps": args.fps}))
            counts[i] = await count_frames(ws, args.seconds)
    await asyncio.gather(*(viewer(i) for i in range(args.clients)))
    per_session = [c / args.seconds for c in counts]
    print(f"{args.clients} sessions at {args.size}²/{args.fps} fps for {args.seconds} s: total {sum(counts) / args.seconds:.0f} frames/s, "
          f"per session min {min(per_session):.1f} / median {statistics.median(per_session):.1f} / max {max(per_session):.1f} frames/s")


async def spectators(args):
    """The editor's frame rate alone, then with `--clients` spectators watching it (all
    reading), each over `--seconds`; and what the spectators got."""
    async with websockets.connect(args.server.url, max_size=None) as editor:
        await editor.send(json.dumps({"type": "compile", "source": source(0)[0]}))
        await editor.send(json.dumps({"type": "preview.start", "size": [args.size, args.size], "fps": args.fps}))
        await count_frames(editor, 1)                                   # warm up
        alone = await count_frames(editor, args.seconds) / args.seconds
        await editor.send(json.dumps({"type": "watch"}))
        token = None
        while token is None:
            message = await editor.recv()
            if isinstance(message, str) and json.loads(message).get("type") == "watching":
                token = json.loads(message)["token"]
        watchers = [await websockets.connect(args.server.url, max_size=None) for _ in range(args.clients)]
        for ws in watchers:
            await ws.send(json.dumps({"type": "spectate", "token": token}))
        await asyncio.gather(count_frames(editor, 1), *(count_frames(ws, 1) for ws in watchers))   # everyone joined
        counts = await asyncio.gather(count_frames(editor, args.seconds), *(count_frames(ws, args.seconds) for ws in watchers))
        watched = counts[0] / args.seconds
        per_watcher = [c / args.seconds for c in counts[1:]]
        for ws in watchers:
            await ws.close()
    print(f"editor at {args.size}²/{args.fps} fps: {alone:.1f} frames/s alone, {watched:.1f} with {args.clients} spectators "
          f"({100 * (watched - alone) / alone:+.1f} %); spectators min {min(per_watcher):.1f} / median "
          f"{statistics.median(per_watcher):.1f} / max {max(per_watcher):.1f} frames/s")


HEAVY = """[[ stitchable ]] half4 heavy(float2 p) {
    float s = p.x;
    for (int i = 0; i < 50; i++) for (int j = 0; j < 50; j++) for (int k = 0; k < 50; k++) s = s * 0.5 + 1.0;
    return half4(s * 0.1);
}
"""


async def bystander_fps(url, seconds, size, fps):
    """Frames per second a 256² previewer receives over `seconds` (after its first frame)."""
    async with websockets.connect(url, max_size=None) as ws:
        await ws.send(json.dumps({"type": "compile", "source": source(0)[0]}))
        await ws.send(json.dumps({"type": "preview.start", "size": [size, size], "fps": fps}))
        while True:
            message = await ws.recv()
            if isinstance(message, bytes) and message[:4] == b"KLNF":
                break
        return await count_frames(ws, seconds) / seconds


async def heavy_previewer(url, stop):
    """Previews a frame that needs minutes of work at 2048² and re-starts it whenever it is
    refused, as a client hammering the server would."""
    async with websockets.connect(url, max_size=None) as ws:
        await ws.send(json.dumps({"type": "compile", "source": HEAVY}))
        while not stop.is_set():
            await ws.send(json.dumps({"type": "preview.start", "size": [2048, 2048], "fps": 60}))
            try:
                while True:
                    message = await asyncio.wait_for(ws.recv(), timeout=0.5)
                    if isinstance(message, str) and json.loads(message).get("code") == "render_failed":
                        break
            except asyncio.TimeoutError:
                pass


async def http_renderer(url, stop):
    """POSTs 2048² renders of the heavy shader back to back."""
    http = url.replace("ws://", "http://").rstrip("/")
    while not stop.is_set():
        process = await asyncio.create_subprocess_exec(
            "curl", "-s", "-o", "/dev/null", "--data-binary", HEAVY, http + "/render?function=heavy&size=2048x2048",
            stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL)
        await process.wait()


async def attack(args):
    alone = await bystander_fps(args.server.url, args.seconds, args.size, args.fps)
    print(f"bystander alone ({args.size}², asks {args.fps:.0f} fps): {alone:.1f} frames/s")
    for name, make in [("2 heavy previewers", lambda stop: [heavy_previewer(args.server.url, stop) for _ in range(2)]),
                       ("2 clients POSTing heavy /render", lambda stop: [http_renderer(args.server.url, stop) for _ in range(2)])]:
        stop = asyncio.Event()
        attackers = [asyncio.create_task(a) for a in make(stop)]
        await asyncio.sleep(1)
        rate = await bystander_fps(args.server.url, args.seconds, args.size, args.fps)
        stop.set()
        await asyncio.gather(*attackers, return_exceptions=True)
        print(f"bystander beside {name}: {rate:.1f} frames/s ({100 * rate / alone:.0f}% of alone)")


async def idle(args):
    before = args.server.rss_mib()
    sockets = []
    for _ in range(args.clients):
        sockets.append(await websockets.connect(args.server.url))
    await asyncio.sleep(1)
    after = args.server.rss_mib()
    print(f"RSS: {before:.1f} MiB idle server, {after:.1f} MiB with {args.clients} idle connections "
          f"({(after - before) * 1024 / args.clients:.1f} KiB each)")
    for ws in sockets:
        await ws.close()


async def shares(args):
    import concurrent.futures
    import urllib.request
    base = args.server.url.replace("ws://", "http://").rstrip("/")

    def post(n):
        body = json.dumps({"source": SHADER % {"red": f"{n / 1e6:.6f}"}, "function": "tint", "args": {"n": n}}).encode()
        started = time.perf_counter()
        request = urllib.request.Request(base + "/share", data=body, headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=30) as response:
            answer = json.loads(response.read())
        return answer["id"], time.perf_counter() - started, n

    def get(item):
        share, n = item
        started = time.perf_counter()
        with urllib.request.urlopen(f"{base}/s/{share}?format=json", timeout=30) as response:
            state = json.loads(response.read())
        return state.get("args", {}).get("n") == n, time.perf_counter() - started

    total = args.clients * args.per_client
    with concurrent.futures.ThreadPoolExecutor(args.clients) as pool:
        started = time.perf_counter()
        made = list(pool.map(post, range(total)))
        create_seconds = time.perf_counter() - started
        opened = list(pool.map(get, [(share, n) for share, _, n in made]))
    create = [seconds * 1000 for _, seconds, _ in made]
    reads = [seconds * 1000 for _, seconds in opened]
    print(f"{total} permalinks from {args.clients} concurrent clients in {create_seconds:.2f} s "
          f"({total / create_seconds:.0f}/s); storage: {'PostgreSQL' if args.database else 'SQLite'}")
    print(f"  distinct ids {len({share for share, _, _ in made})}, opened with the stored state {sum(ok for ok, _ in opened)}, "
          f"lost {total - sum(ok for ok, _ in opened)}")
    print(f"  POST /share      p50 {statistics.median(create):6.2f} ms  p99 {percentile(create, 99):6.2f} ms")
    print(f"  GET /s/<id>      p50 {statistics.median(reads):6.2f} ms  p99 {percentile(reads, 99):6.2f} ms")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--url", help="use a running server instead of starting one")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("latency"); p.add_argument("--sizes", type=int, nargs="+", default=[256, 512]); p.add_argument("--edits", type=int, default=200)
    p = sub.add_parser("editors"); p.add_argument("--clients", type=int, default=20); p.add_argument("--rate", type=float, default=10)
    p.add_argument("--seconds", type=float, default=10); p.add_argument("--size", type=int, default=512)
    p = sub.add_parser("viewers"); p.add_argument("--clients", type=int, default=50); p.add_argument("--size", type=int, default=256)
    p.add_argument("--fps", type=float, default=30); p.add_argument("--seconds", type=float, default=10)
    p = sub.add_parser("idle"); p.add_argument("--clients", type=int, default=1000)
    p = sub.add_parser("spectators"); p.add_argument("--clients", type=int, default=50); p.add_argument("--size", type=int, default=256)
    p.add_argument("--fps", type=float, default=30); p.add_argument("--seconds", type=float, default=10)
    p = sub.add_parser("attack"); p.add_argument("--seconds", type=float, default=10); p.add_argument("--size", type=int, default=256)
    p.add_argument("--fps", type=float, default=30)
    p = sub.add_parser("firstpixels"); p.add_argument("--size", type=int, default=512); p.add_argument("--edits", type=int, default=15)
    p.add_argument("--cases", nargs="*")
    p = sub.add_parser("shares"); p.add_argument("--clients", type=int, default=50); p.add_argument("--per-client", type=int, default=20)
    p.add_argument("--database", help="a PostgreSQL URL (default: a fresh SQLite folder)")
    args = parser.parse_args()
    extra = ["--compiles-per-second", "1000"] if args.command in ("latency", "editors", "firstpixels") else []
    if args.command == "shares":
        import tempfile
        extra = ["--database", args.database] if args.database else ["--data-directory", tempfile.mkdtemp(prefix="kiln-shares-")]
    args.server = Server(args.url, extra)
    try:
        asyncio.run({"latency": latency, "editors": editors, "viewers": viewers, "idle": idle,
                     "attack": attack, "firstpixels": first_pixels, "spectators": spectators,
                     "shares": shares}[args.command](args))
    finally:
        args.server.stop()


if __name__ == "__main__":
    sys.exit(main())
