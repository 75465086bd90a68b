# Generates the PNG decoder fixtures for PNGTests (run once with `pip install pypng`;
# the outputs are checked in, so the tests need no Python).
import png
W, H = 5, 3
# palette: 4 colours, the last translucent
palette = [(255, 0, 0, 255), (0, 255, 0, 255), (0, 0, 255, 255), (255, 255, 255, 128)]
rows = [[(x + y) % 4 for x in range(W)] for y in range(H)]
png.Writer(W, H, palette=palette, bitdepth=8).write(open('palette.png', 'wb'), rows)
# 8-bit grey
rows = [[(x * 50 + y * 10) % 256 for x in range(W)] for y in range(H)]
png.Writer(W, H, greyscale=True, bitdepth=8).write(open('grey8.png', 'wb'), rows)
# 16-bit RGBA (high byte = value, low byte = junk that must round away)
rows = []
for y in range(H):
    row = []
    for x in range(W):
        row += [x * 60 * 257, y * 100 * 257, 7 * 257, 255 * 257]
    rows.append(row)
png.Writer(W, H, greyscale=False, alpha=True, bitdepth=16).write(open('rgba16.png', 'wb'), rows)
# interlaced RGB, 9x9 so every Adam7 pass has pixels
N = 9
rows = []
for y in range(N):
    row = []
    for x in range(N):
        row += [x * 28, y * 28, (x * y) % 256]
    rows.append(row)
png.Writer(N, N, greyscale=False, bitdepth=8, interlace=True).write(open('interlaced.png', 'wb'), rows)
