#!/usr/bin/env python3
"""Compare kiln binaries on shaders, interleaved, on a noisy machine.

    tools/interleave.py --bin before=/tmp/base/kiln --bin after=.build-v3/release/kiln \\
        --rounds 5 --threads 1 shaders/art_starfield.metal bench/fbm.metal

Runs `kiln bench shader --json` once per binary per round, alternating, and prints for
every function the median and minimum ms a frame of each binary over the rounds and the
ratio of the medians and of the minima against the first binary.

Why: this machine is shared, and its speed swings by a third between minutes
(docs/benchmarks.md). Two binaries measured one after the other differ by as much as the
change being measured; alternating them round by round spreads the swings over both, and
the minimum of a CPU-bound frame time is the run the neighbours disturbed least. One
thread (`--threads 1`) keeps the two cores from fighting each other.
"""
import argparse
import json
import statistics
import subprocess
import sys


def measure(binary, files, seconds, threads, size):
    """ms a frame per function for one `kiln bench shader --json` run."""
    command = [binary, "bench", "shader", *files, "--json", "--seconds", str(seconds), "--size", size]
    if threads:
        command += ["--threads", str(threads)]
    output = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    return {row["function"]: row["ms_per_frame"] for row in json.loads(output)}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("files", nargs="+", help="shader files, as `kiln bench shader` takes them")
    parser.add_argument("--bin", action="append", required=True, metavar="NAME=PATH",
                        help="a kiln binary to compare (repeat; the first is the reference)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=1.5, help="steady rendering per function and run")
    parser.add_argument("--threads", type=int, default=1, help="worker threads (0: kiln's default)")
    parser.add_argument("--size", default="512x512")
    args = parser.parse_args()

    binaries = []
    for entry in args.bin:
        name, _, path = entry.partition("=")
        if not path:
            parser.error(f"--bin wants NAME=PATH, got {entry!r}")
        binaries.append((name, path))

    times = {name: {} for name, _ in binaries}
    for round_number in range(args.rounds):
        for name, path in binaries:
            for function, ms in measure(path, args.files, args.seconds, args.threads, args.size).items():
                times[name].setdefault(function, []).append(ms)
        print(f"round {round_number + 1} of {args.rounds} done", file=sys.stderr)

    reference = binaries[0][0]
    functions = list(times[reference])
    print(f"ms a frame, {args.rounds} interleaved rounds, {args.size}, "
          f"{args.threads or 'default'} thread(s); ratios against {reference} (below 1: faster)")
    print(f"{'function':<16} {'binary':<12} {'median':>9} {'min':>9} {'median ×':>9} {'min ×':>7}")
    for function in functions:
        base = times[reference].get(function, [])
        for name, _ in binaries:
            values = times[name].get(function, [])
            if not values:
                continue
            median, low = statistics.median(values), min(values)
            ratios = (f"{median / statistics.median(base):>9.3f} {low / min(base):>7.3f}"
                      if base and name != reference else f"{'':>9} {'':>7}")
            print(f"{function:<16} {name:<12} {median:>9.2f} {low:>9.2f} {ratios}")


if __name__ == "__main__":
    main()
