"""The x86-64-v3 build (AVX2 + FMA, what `make run`, `make bench` and the Docker image
build) renders exactly the bytes the portable build renders.

Kiln's float semantics are written out operation by operation (no fused multiply-add unless
the shader calls `fma`, no reassociation), so the instruction set the compiler may use must
not change a single bit. KILN_CPU_BIN is the x86-64-v3 release binary (`make test` builds
it); KILN_BIN the portable one the other end-to-end tests use.
"""
import os
import pathlib
import subprocess

import pytest

from conftest import ROOT, kiln_binary

V3 = os.environ.get("KILN_CPU_BIN")

pytestmark = pytest.mark.skipif(not V3, reason="KILN_CPU_BIN (the x86-64-v3 build) not given; make test gives it")


def cpu_is_v3():
    """Whether this CPU has what x86-64-v3 needs (the flags /proc/cpuinfo names)."""
    flags = set()
    for line in pathlib.Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("flags"):
            flags = set(line.split(":", 1)[1].split())
            break
    return {"avx", "avx2", "fma", "bmi1", "bmi2", "f16c", "movbe", "abm"} <= flags


needs_v3 = pytest.mark.skipif(not cpu_is_v3(), reason="this CPU cannot run the x86-64-v3 build (its refusal is tested)")

# Every shader that renders on its own: the benchmark set (shader art included), the
# conformance shaders, and the examples (the two vertex-buffer ones need their vertices).
SHADERS = sorted(
    [*ROOT.glob("bench/*.metal"), *ROOT.glob("Tests/Conformance/shaders/*.metal"),
     *[p for p in ROOT.glob("shaders/*.metal") if p.stem not in ("triangle", "map_triangle")]])


def render(binary, shader, out):
    result = subprocess.run([binary, "render", str(shader), "-I", str(ROOT / "shaders"), "--size", "83x47",
                             "--time", "1.25", "--content", "photo", "--content2", "checker", "-o", str(out) + "/"],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    return {p.name: p.read_bytes() for p in sorted(out.glob("*.png"))}


@pytest.mark.skipif(cpu_is_v3(), reason="this CPU runs the x86-64-v3 build")
def test_an_older_cpu_gets_a_clear_refusal():
    result = subprocess.run([V3, "--version"], capture_output=True, text=True, timeout=30)
    assert result.returncode == 70
    assert "x86-64-v3" in result.stderr and "PORTABLE=1" in result.stderr


@needs_v3
def test_the_build_says_its_level():
    result = subprocess.run([V3, "--version"], capture_output=True, text=True, timeout=30)
    assert result.returncode == 0, result.stderr
    assert "x86-64-v3" in result.stdout
    portable = subprocess.run([kiln_binary(), "--version"], capture_output=True, text=True, timeout=30)
    assert "portable" in portable.stdout


@needs_v3
@pytest.mark.parametrize("shader", SHADERS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_same_bytes_as_the_portable_build(shader, tmp_path):
    portable = render(kiln_binary(), shader, tmp_path / "portable")
    v3 = render(V3, shader, tmp_path / "v3")
    assert portable, f"{shader.name} rendered nothing"
    assert portable.keys() == v3.keys()
    for name in portable:
        assert portable[name] == v3[name], f"{shader.name}: {name} differs between the portable and the x86-64-v3 build"
