"""Fixtures for the end-to-end tests: a real `kiln serve` on loopback.

The tests talk to it with clients nobody here wrote: Python `websockets`, `curl`, and
(in test_browser.py) headless Chromium. KILN_BIN points at the binary (default: the
release build, then the debug build).
"""
import atexit
import os
import pathlib
import shutil
import signal
import socket
import subprocess
import tempfile
import time

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


def kiln_binary():
    if os.environ.get("KILN_BIN"):
        return os.environ["KILN_BIN"]
    for flavour in ("release", "debug"):
        candidate = ROOT / ".build" / flavour / "kiln"
        if candidate.exists():
            return str(candidate)
    raise RuntimeError("build kiln first (swift build -c release)")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# Folders the tests write, all inside one folder removed when pytest exits (they used to
# stay in the system's temporary folder, one per server, thousands after a few runs).
SCRATCH = tempfile.mkdtemp(prefix="kiln-e2e-")
atexit.register(shutil.rmtree, SCRATCH, ignore_errors=True)


def scratch_folder(prefix):
    """A new empty folder for one test's files, removed with the others at exit."""
    return tempfile.mkdtemp(prefix=prefix, dir=SCRATCH)


class KilnServer:
    """A `kiln serve` process with helpers for its URLs and its memory use."""

    def __init__(self, *extra_args, port=None, cwd=ROOT, preexec_fn=None):
        self.port = port or free_port()
        if not any(str(a).startswith("--data-directory") for a in extra_args):
            # Permalinks of a test server go to a folder of its own, not the repository.
            extra_args = (*extra_args, "--data-directory", scratch_folder("kiln-data-"))
        self.args = [kiln_binary(), "serve", "--port", str(self.port), *extra_args]
        self.cwd = cwd
        self.process = None
        self.preexec_fn = preexec_fn      # e.g. to lower the open-file limit of the server

    def start(self):
        self.process = subprocess.Popen(self.args, cwd=self.cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                        preexec_fn=self.preexec_fn)
        deadline = time.time() + 20
        while time.time() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError("kiln serve exited: " + self.process.stdout.read().decode())
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    return self
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("kiln serve did not start listening")

    @property
    def http(self):
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws(self):
        return f"ws://127.0.0.1:{self.port}/"

    def rss_kib(self):
        for line in pathlib.Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
        return 0

    def stop(self, sig=signal.SIGTERM, timeout=5):
        if self.process and self.process.poll() is None:
            self.process.send_signal(sig)
            try:
                self.process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        return self.process.returncode


@pytest.fixture
def server():
    s = KilnServer().start()
    yield s
    s.stop()


@pytest.fixture
def wave_source():
    return (ROOT / "shaders" / "wave.metal").read_text()


@pytest.fixture(scope="session")
def postgres_url():
    """A PostgreSQL server for the tests: KILN_TEST_POSTGRES (`make test` sets it), else the
    private one tools/postgres.sh starts; skipped where neither can be had. The URL ends in a
    query, so a test appends `&schema=NAME` for a schema of its own."""
    url = os.environ.get("KILN_TEST_POSTGRES")
    if not url:
        started = subprocess.run(["bash", str(ROOT / "tools" / "postgres.sh"), "start"], capture_output=True, text=True)
        if started.returncode != 0:
            pytest.skip("no PostgreSQL server: " + started.stderr.strip())
        url = started.stdout.strip()
    return url if "?" in url else url + "?sslmode=disable"
