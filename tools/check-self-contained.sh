#!/usr/bin/env bash
# Fails when a tracked file outside docs/ names the team's reference folder that sits
# beside this repository on the developers' machines. A user's clone has nothing beside
# it, so the build, tests, benchmarks and `make run` must read only what is tracked here;
# docs/ may mention the folder as where copies come from.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
# The pattern is written with escaped dots so that this script does not match itself.
if matches=$(git grep -n -I -e '\.\./shared' -e '/work/share[d]' -- . ':!docs'); then
    echo "These tracked files name the folder beside the repository; copy what they need in instead:" >&2
    echo "$matches" >&2
    exit 1
fi
echo "self-contained: no tracked file outside docs/ reads the folder beside the repository"
