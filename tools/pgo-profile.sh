#!/usr/bin/env bash
# Rebuilds profiles/compiler.profdata, the profile release builds optimize the compiler with
# (Package.swift `compilerProfile`, docs/compiler.md "Built with a profile").
#
#   bash tools/pgo-profile.sh [swift build flags…]      (what `make profile` runs)
#
# 1. Builds `kiln` with KilnLanguage and KilnCompiler instrumented (LLVM IR-level
#    counters) into .build-pgo/ — its own folder, so no instrumented object ever mixes with
#    a normal build's — with the swift build flags given (the Makefile passes its CPU level).
# 2. Compiles every shader of the training corpus with it, TRAINING_RUNS times each, one
#    process a compile: the conformance shaders and their error cases, the derivative
#    shaders and the real projects under Tests/. Never shaders/ or bench/: those are what
#    `kiln bench compile` times, and a profile trained on them would flatter the numbers.
#    Files that do not compile count too — the error paths get their counts and stay
#    reasonably fast.
# 3. Merges the counts into profiles/compiler.profdata and touches the compiler's sources,
#    so the next release build recompiles them with the new profile (SwiftPM does not
#    track the profile file itself).
set -euo pipefail
cd "$(dirname "$0")/.."

runs="${TRAINING_RUNS:-10}"
swift_bin="$(dirname "$(readlink -f "$(command -v swift)")")"
toolchain="$(dirname "$(dirname "$swift_bin")")"
runtime="$(find "$toolchain" -name "libclang_rt.profile-$(uname -m).a" 2>/dev/null | head -1)"
profdata="$swift_bin/llvm-profdata"
if [ -z "$runtime" ] || [ ! -x "$profdata" ]; then
    echo "pgo-profile: this Swift toolchain has no LLVM profile runtime or llvm-profdata" >&2
    exit 1
fi

counts="$PWD/.build-pgo/counts"
rm -rf "$counts"
mkdir -p "$counts"
echo "== instrumented build (.build-pgo/)"
KILN_PGO_GENERATE="$counts" KILN_PGO_RUNTIME="$runtime" \
    swift build -c release --product kiln --scratch-path .build-pgo "$@"
kiln="$PWD/.build-pgo/release/kiln"

echo "== training: $runs compiles of each shader under Tests/"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
files=0
while IFS= read -r file; do
    files=$((files + 1))
    for _ in $(seq "$runs"); do
        # From the file's folder, as a user compiles it (includes resolve from there).
        (cd "$(dirname "$file")" && LLVM_PROFILE_FILE="$counts/%p.profraw" \
            "$kiln" compile "$(basename "$file")" -o "$out/library" >/dev/null 2>&1) || true
    done
done < <(find Tests -name '*.metal' | sort)
echo "   $files files"

"$profdata" merge -o profiles/compiler.profdata "$counts"/*.profraw
touch Sources/KilnLanguage/*.swift Sources/KilnCompiler/*.swift
echo "== wrote profiles/compiler.profdata ($(wc -c < profiles/compiler.profdata) bytes)"
