"""The release build of this CPU's level — x86-64-v4 (AVX-512) or x86-64-v3 (AVX2 + FMA),
what `make run` and `make bench` build; the Docker image builds v3 — renders exactly the
bytes the portable build renders.

Kiln's float semantics are written out operation by operation (no fused multiply-add unless
the shader calls `fma`, no reassociation), and no lane sees another lane of its group, so
neither the instruction set the compiler may use nor the VM's group width (16 lanes a step
on v4, 8 elsewhere) may change a single bit. KILN_CPU_BIN is that release binary and
KILN_CPU_LEVEL its level, v4 or v3 (`make test` gives both); KILN_BIN the portable one the
other end-to-end tests use.
"""
import os
import pathlib
import subprocess

import pytest

from conftest import ROOT, kiln_binary

LEVEL_BIN = os.environ.get("KILN_CPU_BIN")
LEVEL = os.environ.get("KILN_CPU_LEVEL", "v3")
LEVEL_NAME = f"x86-64-{LEVEL}"

pytestmark = pytest.mark.skipif(not LEVEL_BIN, reason="KILN_CPU_BIN (the v4 or v3 build) not given; make test gives it")

# The /proc/cpuinfo flags each level's build needs (what its start-up check asks the CPU).
# x86-64-v4 is x86-64-v3 plus the five AVX-512 subsets.
V3_NEEDS = {"avx", "avx2", "fma", "bmi1", "bmi2", "f16c", "movbe", "abm"}
NEEDS = {"v3": V3_NEEDS, "v4": V3_NEEDS | {"avx512f", "avx512bw", "avx512cd", "avx512dq", "avx512vl"}}


def cpu_has_level():
    """Whether this CPU has what the build's level needs."""
    flags = set()
    for line in pathlib.Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("flags"):
            flags = set(line.split(":", 1)[1].split())
            break
    return NEEDS[LEVEL] <= flags


needs_level = pytest.mark.skipif(not cpu_has_level(), reason=f"this CPU cannot run the {LEVEL_NAME} build (its refusal is tested)")

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


@pytest.mark.skipif(cpu_has_level(), reason=f"this CPU runs the {LEVEL_NAME} build")
def test_an_older_cpu_gets_a_clear_refusal():
    result = subprocess.run([LEVEL_BIN, "--version"], capture_output=True, text=True, timeout=30)
    assert result.returncode == 70
    assert LEVEL_NAME in result.stderr and "PORTABLE=1" in result.stderr


@needs_level
def test_the_build_says_its_level():
    result = subprocess.run([LEVEL_BIN, "--version"], capture_output=True, text=True, timeout=30)
    assert result.returncode == 0, result.stderr
    assert f"({LEVEL_NAME} build)" in result.stdout
    portable = subprocess.run([kiln_binary(), "--version"], capture_output=True, text=True, timeout=30)
    assert "portable" in portable.stdout


@needs_level
@pytest.mark.parametrize("shader", SHADERS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_same_bytes_as_the_portable_build(shader, tmp_path):
    portable = render(kiln_binary(), shader, tmp_path / "portable")
    level = render(LEVEL_BIN, shader, tmp_path / LEVEL)
    assert portable, f"{shader.name} rendered nothing"
    assert portable.keys() == level.keys()
    for name in portable:
        assert portable[name] == level[name], f"{shader.name}: {name} differs between the portable and the {LEVEL_NAME} build"


# Every shader file of the repository, the error cases included: the optimized compiler
# must give each the library or the diagnostics the debug build gives. Why a test: the
# optimizer once dropped the store of a field's default value (`isConstexpr` of the
# parser's specifiers, after tokens became plain bytes — docs/benchmarks.md, "fortieth
# session"), and only the release build rejected `float f(float2 p) {…}`. The debug
# build runs every other test; this is where the two meet.
ALL_SHADERS = sorted(p for p in ROOT.rglob("*.metal") if not any(part.startswith(".") for part in p.relative_to(ROOT).parts))


def compile_file(binary, shader, out):
    result = subprocess.run([binary, "compile", shader.name, "-o", str(out)], cwd=shader.parent,
                            capture_output=True, text=True, timeout=120)
    library = out.read_bytes() if out.exists() else None
    return result.returncode, result.stdout, result.stderr, library


@needs_level
def test_same_libraries_and_diagnostics_as_the_debug_build(tmp_path):
    assert len(ALL_SHADERS) > 50
    compiled = 0
    for shader in ALL_SHADERS:
        debug = compile_file(kiln_binary(), shader, tmp_path / "debug.kilnlib")
        release = compile_file(LEVEL_BIN, shader, tmp_path / "release.kilnlib")
        assert debug == release, f"{shader.relative_to(ROOT)}: the {LEVEL_NAME} build compiles it differently"
        compiled += debug[3] is not None
        for leftover in tmp_path.glob("*.kilnlib"):
            leftover.unlink()
    assert compiled > 40, "most of the repository's shaders compile"


# Mutations of the repository's shaders — spans deleted, words inserted, lines duplicated,
# text copied elsewhere — so that both builds meet error paths and odd programs the files
# themselves never reach. Seeded: a failure names the case, and the same seed finds it again.
# KILN_DIFFERENTIAL_CASES raises the count for a longer run (6 000 took 80 s here).
DIFFERENTIAL_CASES = int(os.environ.get("KILN_DIFFERENTIAL_CASES", "300"))
MUTATION_WORDS = ["constexpr", "extern", "static", "inline", "const", "thread", "device", "constant", "(", ")",
                  "{", "}", ";", ",", "#define X 1\n", "#if 0\n", "#endif\n", "/// doc\n", "float", "int",
                  "[[ stitchable ]]", "return", "for", "0", "1.5h", "x", "##", "#"]


def mutate(text, rng):
    for _ in range(rng.randint(1, 3)):
        kind, at = rng.randrange(4), rng.randrange(len(text) + 1)
        if kind == 0:
            text = text[:at] + text[at + rng.randint(1, 12):]
        elif kind == 1:
            text = text[:at] + " " + rng.choice(MUTATION_WORDS) + " " + text[at:]
        elif kind == 2:
            lines = text.split("\n")
            lines.insert(rng.randrange(len(lines)), lines[rng.randrange(len(lines))])
            text = "\n".join(lines)
        else:
            start = rng.randrange(len(text) + 1)
            text = text[:at] + text[start:start + rng.randint(1, 40)] + text[at:]
    return text


@needs_level
def test_mutated_shaders_compile_alike_in_both_builds(tmp_path):
    import random
    rng = random.Random(40)
    for case in range(DIFFERENTIAL_CASES):
        shader = rng.choice(ALL_SHADERS)
        folder = tmp_path / f"case{case}"
        folder.mkdir()
        for header in shader.parent.glob("*.h"):
            (folder / header.name).write_bytes(header.read_bytes())
        source = folder / shader.name
        source.write_text(mutate(shader.read_text(), rng))
        debug = compile_file(kiln_binary(), source, folder / "debug.kilnlib")
        release = compile_file(LEVEL_BIN, source, folder / "release.kilnlib")
        assert debug == release, f"case {case} (from {shader.name}): the builds differ; the source is {source}"
