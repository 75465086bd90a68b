#!/usr/bin/env python3
"""Reference images for Tests/Derivatives, computed independently of Kiln with numpy.

GPU semantics written out: pixels are grouped in 2x2 quads with even top-left
coordinates; pixels past the image edge are helper invocations that compute at their own
(outside) coordinates. Fine derivatives difference this pixel's row (x) or column (y) of
its quad, coarse ones the quad's top row or left column. Everything is float32 in the
shader's order of operations; output is premultiplied RGBA8, floor(clamp(v)*255 + 0.5).
Regenerate on purpose only: python3 tools/derivative_refs.py
"""
import json
import pathlib
import struct
import zlib

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1] / "Tests" / "Derivatives"
f32 = np.float32


def grid(width, height):
    """Pixel centres for the image padded to even size (helper lanes included)."""
    w, h = width + width % 2, height + height % 2
    x = np.arange(w, dtype=f32)[None, :].repeat(h, 0) + f32(0.5)
    y = np.arange(h, dtype=f32)[:, None].repeat(w, 1) + f32(0.5)
    return x, y


def fine(v):
    dx = np.empty_like(v); dy = np.empty_like(v)
    dx[:, 0::2] = v[:, 1::2] - v[:, 0::2]; dx[:, 1::2] = dx[:, 0::2]
    dy[0::2, :] = v[1::2, :] - v[0::2, :]; dy[1::2, :] = dy[0::2, :]
    return dx, dy


def coarse(v):
    dx = np.empty_like(v); dy = np.empty_like(v)
    top = v[0::2, 1::2] - v[0::2, 0::2]          # per quad: top row
    left = v[1::2, 0::2] - v[0::2, 0::2]         # per quad: left column
    for r in (0, 1):
        for c in (0, 1):
            dx[r::2, c::2] = top
            dy[r::2, c::2] = left
    return dx, dy


def smoothstep(e0, e1, x):
    t = np.clip((x - e0) / (e1 - e0), f32(0), f32(1)).astype(f32)
    return (t * t * (f32(3) - f32(2) * t)).astype(f32)


def quantize(v):
    v = np.nan_to_num(v, nan=0.0)
    return np.floor(np.clip(v, 0, 1).astype(np.float64) * 255 + 0.5).astype(np.uint8)


def grad(width, height):
    x, y = grid(width, height)
    v = x * x * f32(0.01) + y * f32(0.5) + x * y * f32(0.02)
    dx, dy = fine(v)
    w = np.abs(dx) + np.abs(dy)
    return [dx * f32(0.4), dy * f32(0.5), w * f32(0.25), np.ones_like(v)]


def ring(width, height):
    x, y = grid(width, height)
    cx, cy = f32(width) * f32(0.5), f32(height) * f32(0.5)
    ex, ey = x - cx, y - cy
    d = np.sqrt(ex * ex + ey * ey) - f32(height) * f32(0.3)
    dx, dy = coarse(d)
    aa = np.abs(dx) + np.abs(dy)
    a = f32(1) - smoothstep(-aa, aa, d)
    return [a, dx * f32(0.5) + f32(0.5), dy * f32(0.5) + f32(0.5), np.ones_like(d)]


def fpass(width, height):
    x, y = grid(width, height)
    u, v_ = x / f32(width), y / f32(height)
    v = u * v_ * f32(40)
    dx, dy = fine(v)
    w = np.abs(dx) + np.abs(dy)
    return [dx * f32(5), dy * f32(5), w * f32(2.5), np.ones_like(v)]


def write_png(path, rgba):
    height, width, _ = rgba.shape
    raw = b"".join(b"\x00" + rgba[row].tobytes() for row in range(height))
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0))
    png += chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")
    path.write_bytes(png)


CASES = [
    ("grad", "grad.metal", "grad", 63, 47, grad, {}),
    ("ring", "ring.metal", "ring", 64, 48, ring, {"size": [64, 48]}),
    ("pass", "pass.metal", "pass", 61, 33, fpass, {}),
]

if __name__ == "__main__":
    manifest = []
    for case_id, file, function, width, height, compute, args in CASES:
        channels = [c.astype(f32)[:height, :width] for c in compute(width, height)]
        rgba = np.stack([quantize(c) for c in channels], axis=-1)
        write_png(ROOT / "refs" / f"{case_id}.png", rgba)
        manifest.append({"id": case_id, "file": f"shaders/{file}", "function": function,
                         "size": [width, height], "args": args, "tolerance": {"max_abs": 1, "pct_over_1": 0.0}})
    (ROOT / "cases.json").write_text(json.dumps({"cases": manifest}, indent=2) + "\n")
    print(f"wrote {len(manifest)} references to {ROOT}")
