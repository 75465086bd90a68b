// The cost heatmap overlay: with "Cost" on, the server counts the frame on screen
// (`heatmap`, docs/protocol.md) — per pixel, the instructions its lane executed while
// active — and the page draws the counts over the preview on a colour scale, shows the
// numbers under the cursor, and gives each source line its share of the frame's work in
// the editor's gutter, like a profiler (counted, not sampled: the same every run).

// The colour scale of CostHeatmap.colour (KilnRender): black → blue → magenta → orange → white.
const STOPS = [[0, 0, 0], [40, 40, 190], [200, 40, 160], [250, 150, 40], [255, 255, 255]];

export function heatColour(t) {
  const x = Math.min(Math.max(Number.isFinite(t) ? t : 0, 0), 1) * (STOPS.length - 1);
  const i = Math.min(Math.floor(x), STOPS.length - 2), f = x - i;
  return STOPS[i].map((a, k) => Math.round(a + (STOPS[i + 1][k] - a) * f));
}

function decodeWords(base64) {
  const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
  return new Uint32Array(bytes.buffer, 0, bytes.length / 4);
}

export class CostOverlay {
  /** `elements`: toggle (checkbox), canvas (the overlay), legend, readout; `preview` is the frame canvas. */
  constructor({ elements, preview, send, editor, frames, enabled = () => true }) {
    this.el = elements;
    this.preview = preview;
    this.send = send;
    this.editor = editor;
    this.frames = frames;
    this.enabled = enabled;
    this.sequence = 0;
    this.map = null;
    elements.toggle.addEventListener("change", () => (elements.toggle.checked ? this.request() : this.hide()));
    preview.parentElement.addEventListener("mousemove", (event) => this.readout(event));
    preview.parentElement.addEventListener("mouseleave", () => { if (this.map) this.el.readout.textContent = this.summary(); });
  }

  get on() { return this.el.toggle.checked; }

  request() {
    if (!this.on || !this.enabled()) return;
    this.sequence += 1;
    this.el.readout.textContent = "counting…";
    this.send({ type: "heatmap", id: `heatmap-${this.sequence}`, time: this.frames.lastTime });
  }

  /** Counts again after anything that changes the picture (compile, argument, clock). */
  refresh() { if (this.on) this.request(); }

  hide() {
    this.map = null;
    this.el.canvas.hidden = true;
    this.el.legend.hidden = true;
    this.el.readout.textContent = "";
    this.editor.setLineShares(null);
  }

  error(message) {
    if (message.id !== `heatmap-${this.sequence}`) return false;
    this.el.readout.textContent = `${message.code}: ${message.message}`;
    return true;
  }

  /** A `heatmap` reply: draw it, label the scale, fill the gutter. */
  show(message) {
    if (message.id !== `heatmap-${this.sequence}` || !this.on) return;
    const counts = decodeWords(message.counts), uniform = decodeWords(message.uniform);
    this.map = { ...message, counts, uniform };
    const canvas = this.el.canvas;
    canvas.width = message.width;
    canvas.height = message.height;
    const context = canvas.getContext("2d");
    const image = context.createImageData(message.width, message.height);
    const top = Math.max(1, message.maximum);
    for (let i = 0; i < counts.length; i++) {
      const [r, g, b] = heatColour(counts[i] / top);
      image.data.set([r, g, b, 255], i * 4);
    }
    context.putImageData(image, 0, 0);
    canvas.hidden = false;
    this.el.legend.hidden = false;
    this.el.legend.querySelector(".max").textContent = String(message.maximum);
    this.el.readout.textContent = this.summary();
    const shares = new Map();
    for (const line of message.lines) if (line.file === 0) shares.set(line.line, line.share);
    this.editor.setLineShares(shares);
  }

  summary() {
    const m = this.map;
    return `t = ${m.time.toFixed(2)} s: ${(m.total / (m.width * m.height)).toFixed(1)} instructions per pixel on average, ` +
      `${m.maximum} at most (counted in ${(m.renderMicroseconds / 1000).toFixed(1)} ms)`;
  }

  /** The numbers under the cursor. */
  readout(event) {
    if (!this.map) return;
    const rect = this.el.canvas.getBoundingClientRect();
    const x = Math.floor(((event.clientX - rect.left) / rect.width) * this.map.width);
    const y = Math.floor(((event.clientY - rect.top) / rect.height) * this.map.height);
    if (x < 0 || y < 0 || x >= this.map.width || y >= this.map.height) return;
    const i = y * this.map.width + x;
    this.el.readout.textContent = `(${x}, ${y}): ${this.map.counts[i]} instructions` +
      (this.map.uniform[i] ? ` + ${this.map.uniform[i]} uniform for its batch` : "");
  }
}
