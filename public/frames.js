// Draws preview frames (docs/protocol.md: a 32-byte "KLNF" header, then premultiplied
// RGBA8) into a canvas, reusing one ImageData per size, and keeps fps/render statistics.

// The frame header's layout, defined once for the page (the server's FrameHeader.Field;
// a Swift test checks this table and docs/protocol.md against it). Little-endian.
export const FRAME_HEADER = {
  bytes: 32,
  magic: "KLNF",
  version: 1,
  fields: {
    magic: 0, version: 4, format: 5, flags: 6, sequence: 8, time: 12, width: 20, height: 24, renderMicroseconds: 28,
  },
};

const MAGIC = [...FRAME_HEADER.magic].map((c) => c.charCodeAt(0));

export function parseFrame(buffer) {
  const view = new DataView(buffer);
  const at = FRAME_HEADER.fields;
  if (buffer.byteLength < FRAME_HEADER.bytes) return null;
  if (!MAGIC.every((byte, index) => view.getUint8(at.magic + index) === byte)) return null;
  if (view.getUint8(at.version) !== FRAME_HEADER.version) return null;
  return {
    format: view.getUint8(at.format),
    // A coarse frame's sample stride (flags bits 0–7), 0 for a full frame.
    coarseStride: view.getUint16(at.flags, true) & 0xff,
    // Bit 8: drawn from the quick compile of the edit just sent, before its `compiled`.
    provisional: (view.getUint16(at.flags, true) & 0x100) !== 0,
    sequence: view.getUint32(at.sequence, true),
    time: view.getFloat64(at.time, true),
    width: view.getUint32(at.width, true),
    height: view.getUint32(at.height, true),
    renderMicroseconds: view.getUint32(at.renderMicroseconds, true),
    payload: new Uint8Array(buffer, FRAME_HEADER.bytes),
  };
}

/** Premultiplied RGBA8 (frames) into straight-alpha RGBA8 (canvas ImageData). */
function unpremultiply(source, target) {
  for (let i = 0; i < source.length; i += 4) {
    const a = source[i + 3];
    if (a === 255 || a === 0) {
      target[i] = source[i]; target[i + 1] = source[i + 1]; target[i + 2] = source[i + 2];
    } else {
      const scale = 255 / a;
      target[i] = source[i] * scale; target[i + 1] = source[i + 1] * scale; target[i + 2] = source[i + 2] * scale;
    }
    target[i + 3] = a;
  }
}

export class FrameView {
  constructor(canvas, graph) {
    this.canvas = canvas;
    this.context = canvas.getContext("2d");
    this.graph = graph.getContext("2d");
    this.graphCanvas = graph;
    this.image = null;
    this.arrivals = [];
    this.renderTimes = [];
    this.lastTime = 0;
  }

  draw(frame) {
    if (frame.format !== 0) return; // the page asks for RGBA8
    if (frame.coarseStride > 1) {
      // Every k-th pixel of the edit's first frame: shown scaled up (blocky, so it reads as
      // a draft) over the canvas until the full frame replaces it.
      const k = frame.coarseStride;
      if (!this.image) {
        this.canvas.width = frame.width * k;
        this.canvas.height = frame.height * k;
      }
      const small = document.createElement("canvas");
      small.width = frame.width;
      small.height = frame.height;
      const image = small.getContext("2d").createImageData(frame.width, frame.height);
      unpremultiply(frame.payload, image.data);
      small.getContext("2d").putImageData(image, 0, 0);
      this.context.imageSmoothingEnabled = false;
      this.context.clearRect(0, 0, this.canvas.width, this.canvas.height);
      this.context.drawImage(small, 0, 0, frame.width * k, frame.height * k);
      this.coarse = true;
      this.lastTime = frame.time;
      return;
    }
    this.coarse = false;
    if (!this.image || this.image.width !== frame.width || this.image.height !== frame.height) {
      this.canvas.width = frame.width;
      this.canvas.height = frame.height;
      this.image = this.context.createImageData(frame.width, frame.height);
    }
    unpremultiply(frame.payload, this.image.data);
    this.context.putImageData(this.image, 0, 0);
    this.lastTime = frame.time;
    const now = performance.now();
    this.arrivals.push(now);
    while (this.arrivals.length && now - this.arrivals[0] > 1000) this.arrivals.shift();
    this.renderTimes.push(frame.renderMicroseconds / 1000);
    if (this.renderTimes.length > 120) this.renderTimes.shift();
    this.drawGraph();
  }

  get fps() { return this.arrivals.length; }
  get renderMilliseconds() { return this.renderTimes.length ? this.renderTimes[this.renderTimes.length - 1] : 0; }

  drawGraph() {
    const g = this.graph, w = this.graphCanvas.width, h = this.graphCanvas.height;
    g.clearRect(0, 0, w, h);
    const max = Math.max(16.7, ...this.renderTimes);
    g.strokeStyle = "#3a3d46";
    g.beginPath(); g.moveTo(0, h - (16.7 / max) * h); g.lineTo(w, h - (16.7 / max) * h); g.stroke();
    g.strokeStyle = "#e8743b";
    g.beginPath();
    this.renderTimes.forEach((ms, i) => {
      const x = (i / 119) * w, y = h - (ms / max) * (h - 2) - 1;
      i ? g.lineTo(x, y) : g.moveTo(x, y);
    });
    g.stroke();
  }

  /** The current picture as a PNG blob (straight alpha, as the canvas holds it). */
  toBlob() {
    return new Promise((resolve) => this.canvas.toBlob(resolve, "image/png"));
  }
}
