"""The two executables: `kiln` runs plain compiles itself and hands everything else to
`kiln-cli` beside it (KilnCompileTool's CommandLauncher).

What a user must be able to count on: a compile does not load the server's libraries (the
point of the split: start-up), every other command works through `kiln` exactly as before,
and a `kiln` copied without its `kiln-cli` still compiles and says clearly what is missing.
"""
import pathlib
import shutil
import subprocess

from conftest import ROOT, kiln_binary

WAVE = ROOT / "shaders" / "wave.metal"


def run(*args, binary=None, cwd=None):
    return subprocess.run([binary or kiln_binary(), *map(str, args)], capture_output=True, text=True,
                          timeout=120, cwd=cwd)


def test_a_compile_loads_none_of_the_servers_libraries():
    linked = subprocess.run(["ldd", kiln_binary()], capture_output=True, text=True, timeout=30).stdout
    for library in ("libwebsockets", "libssl", "libcrypto", "libsqlite3", "libpng"):
        assert library not in linked, linked
    cli = pathlib.Path(kiln_binary()).with_name("kiln-cli")
    assert "libwebsockets" in subprocess.run(["ldd", str(cli)], capture_output=True, text=True, timeout=30).stdout


def test_both_ways_of_compiling_write_the_same_library(tmp_path):
    plain = run("compile", WAVE, "-o", tmp_path / "plain.kilnlib")
    assert plain.returncode == 0, plain.stderr
    report = run("compile", WAVE, "--json", "-o", tmp_path / "json.kilnlib")
    assert report.returncode == 0, report.stderr
    assert '"ok":true' in report.stdout
    assert (tmp_path / "plain.kilnlib").read_bytes() == (tmp_path / "json.kilnlib").read_bytes()
    # The same report from kiln-cli (its own reading of the same command line).
    cli = pathlib.Path(kiln_binary()).with_name("kiln-cli")
    assert run("compile", WAVE, "--json", binary=cli).stdout == report.stdout
    # `--help` is ArgumentParser's, in kiln-cli.
    assert "--include-directory" in run("compile", "--help").stdout


def test_errors_read_the_same_from_either_executable(tmp_path):
    bad = tmp_path / "bad.metal"
    bad.write_text("float f( {")
    plain = run("compile", bad, "-o", tmp_path / "x.kilnlib")
    assert plain.returncode == 1
    assert "bad.metal:1:11: error: expected expression" in plain.stderr
    assert "1 error generated." in plain.stderr
    missing = run("compile", tmp_path / "missing.metal", "-o", tmp_path / "x.kilnlib")
    assert missing.returncode == 1
    assert missing.stderr == f"Error: {tmp_path / 'missing.metal'}: no such file\n"
    via_cli = run("compile", tmp_path / "missing.metal", "-o", tmp_path / "x.kilnlib",
                  binary=pathlib.Path(kiln_binary()).with_name("kiln-cli"))
    assert (via_cli.returncode, via_cli.stderr) == (missing.returncode, missing.stderr)
    assert not (tmp_path / "x.kilnlib").exists()


def test_other_commands_go_through_kiln(tmp_path):
    version = run("--version")
    assert version.returncode == 0 and version.stdout.startswith("kiln ")
    disasm = run("disasm", WAVE)
    assert disasm.returncode == 0, disasm.stderr
    assert "; kiln library" in disasm.stdout


def test_kiln_without_kiln_cli_still_compiles_and_says_what_is_missing(tmp_path):
    lone = tmp_path / "bin" / "kiln"
    lone.parent.mkdir()
    shutil.copy2(kiln_binary(), lone)
    compiled = run("compile", WAVE, "-o", tmp_path / "w.kilnlib", binary=lone)
    assert compiled.returncode == 0, compiled.stderr
    other = run("--version", binary=lone)
    assert other.returncode == 127
    assert str(lone.parent / "kiln-cli") in other.stderr and "next to `kiln`" in other.stderr
