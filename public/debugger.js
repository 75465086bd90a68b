// The pixel debugger panel: click the preview and the server traces that pixel through the
// bytecode that drew the frame (`debug` → `debug.trace`, docs/protocol.md). The panel steps
// through the statements the pixel's lane reached — the editor follows the line — with the
// variables' values at each step, loop iterations, inlined calls, and the final colour,
// which is the frame's own pixel. A new compile, argument or clock position traces the same
// pixel again.

const escapeText = (text) => String(text).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);

export class PixelDebugger {
  /**
   * `elements`: panel, summary, position (range), counter, step, variables, marker, and the
   * buttons first/back/forward/last/toCaret/iteration. `frames` gives the time of the frame
   * on screen; `editor` shows and tells the current line.
   */
  constructor({ elements, canvas, send, editor, frames, enabled = () => true }) {
    this.enabled = enabled;
    this.el = elements;
    this.canvas = canvas;
    this.send = send;
    this.editor = editor;
    this.frames = frames;
    this.pixel = null;
    this.report = null;
    this.index = 0;
    this.sequence = 0;
    canvas.addEventListener("click", (event) => this.pick(event));
    elements.first.addEventListener("click", () => this.go(0));
    elements.back.addEventListener("click", () => this.go(this.index - 1));
    elements.forward.addEventListener("click", () => this.go(this.index + 1));
    elements.last.addEventListener("click", () => this.go(Infinity));
    elements.position.addEventListener("input", (e) => this.go(Number(e.target.value)));
    elements.toCaret.addEventListener("click", () => this.runToLine(this.editor.caretLine()));
    elements.iteration.addEventListener("change", (e) => this.toIteration(Number(e.target.value)));
    elements.close.addEventListener("click", () => this.clear());
    new ResizeObserver(() => this.placeMarker()).observe(canvas);
  }

  /** The canvas pixel under a click (the canvas is scaled to fit the stage). */
  pick(event) {
    if (!this.enabled()) return;
    const rect = this.canvas.getBoundingClientRect();
    if (!rect.width || !rect.height) return;
    const x = Math.floor(((event.clientX - rect.left) / rect.width) * this.canvas.width);
    const y = Math.floor(((event.clientY - rect.top) / rect.height) * this.canvas.height);
    if (x < 0 || y < 0 || x >= this.canvas.width || y >= this.canvas.height) return;
    this.pixel = { x, y };
    this.placeMarker();
    this.request();
  }

  /** Asks for a trace of the chosen pixel at the time of the frame on screen. */
  request() {
    if (!this.pixel) return;
    this.sequence += 1;
    this.el.panel.hidden = false;
    this.el.summary.textContent = `tracing pixel (${this.pixel.x}, ${this.pixel.y})…`;
    this.send({ type: "debug", id: `debug-${this.sequence}`, pixel: [this.pixel.x, this.pixel.y], time: this.frames.lastTime });
  }

  /** Re-traces after anything that changes the picture (compile, argument, clock). */
  refresh() { if (this.pixel) this.request(); }

  clear() {
    this.pixel = null;
    this.report = null;
    this.el.panel.hidden = true;
    this.el.marker.hidden = true;
    this.editor.markLine(null);
  }

  /** A `debug.trace` reply; older ones (a newer click is on its way) are ignored. */
  trace(message) {
    if (message.id !== `debug-${this.sequence}`) return;
    const keepLine = this.report ? this.current()?.line : null;
    this.report = message;
    const steps = message.steps;
    // Stay on the same line after a re-trace when it is still reached, else start at the top.
    const again = keepLine != null ? steps.findIndex((s) => s.line === keepLine && s.active) : -1;
    this.el.position.max = String(Math.max(0, steps.length - 1));
    this.go(again >= 0 ? again : 0);
  }

  /** An error answering our `debug` (pixel outside, no preview): shown in the panel. */
  error(message) {
    if (message.id !== `debug-${this.sequence}`) return false;
    this.el.summary.textContent = `${message.code}: ${message.message}`;
    return true;
  }

  current() { return this.report?.steps[this.index] ?? null; }

  go(index) {
    if (!this.report) return;
    this.index = Math.max(0, Math.min(this.report.steps.length - 1, Number.isFinite(index) ? index : Infinity));
    if (!Number.isFinite(this.index)) this.index = this.report.steps.length - 1;
    this.render();
  }

  /** The next step (after the current one, wrapping) on `line` that the pixel ran. */
  runToLine(line) {
    const steps = this.report?.steps ?? [];
    for (let k = 1; k <= steps.length; k++) {
      const at = (this.index + k) % steps.length;
      if (steps[at].line === line && steps[at].active) return this.go(at);
    }
  }

  /** The same statement in iteration `n` of the innermost loop around it. */
  toIteration(n) {
    const step = this.current();
    const loop = step?.loops[step.loops.length - 1];
    if (!loop) return;
    const at = this.report.steps.findIndex((s) => s.line === step.line && s.loops.some((l) => l.loop === loop.loop && l.iteration === n));
    if (at >= 0) this.go(at);
  }

  /** Each variable's latest value up to the current step. */
  valuesNow() {
    const values = new Map();
    for (const step of this.report.steps.slice(0, this.index + 1)) {
      for (const change of step.changes) values.set(change.variable, change);
    }
    return values;
  }

  render() {
    const report = this.report, step = this.current();
    if (!step) return;
    const [r, g, b, a] = report.pixel;
    const activation = report.activations[step.activation] ?? { function: report.function, depth: 0 };
    const file = report.files[step.file] ?? "";
    this.el.summary.innerHTML = report.failure
      // A runaway loop: no pixel, but the steps show the loop running away.
      ? `pixel (${report.x}, ${report.y}): <strong>the run stopped</strong> — ${escapeText(report.failure)} · ${report.steps.length} steps`
      : `pixel (${report.x}, ${report.y}) = <span class="swatch" style="background: rgba(${r},${g},${b},${a / 255})"></span> ` +
        `<code>${report.pixel.join(", ")}</code> (premultiplied) · ${report.steps.length} steps` +
        (report.truncated ? " · <em>truncated</em>" : "");
    this.el.position.value = String(this.index);
    this.el.counter.textContent = `${this.index + 1} / ${report.steps.length}`;
    const where = [`line ${step.line}`];
    if (file && file !== report.files[0]) where.push(file);
    if (activation.depth > 0) where.push(`in ${activation.function}() (inlined)`);
    for (const loop of step.loops) where.push(`iteration ${loop.iteration}`);
    this.el.step.className = step.active ? "step" : "step skipped";
    this.el.step.textContent = where.join(" · ") + (step.active ? "" : " — skipped: this pixel's lane does not run it");
    // The innermost loop's iterations this statement ran in.
    const loop = step.loops[step.loops.length - 1];
    const iterations = loop ? [...new Set(report.steps.filter((s) => s.line === step.line)
      .flatMap((s) => s.loops.filter((l) => l.loop === loop.loop).map((l) => l.iteration)))].sort((x, y) => x - y) : [];
    this.el.iteration.replaceChildren(...iterations.map((n) => new Option(`iteration ${n}`, String(n))));
    this.el.iteration.disabled = iterations.length < 2;
    if (loop) this.el.iteration.value = String(loop.iteration);
    this.renderVariables(step, activation);
    this.editor.markLine(file === report.files[0] || !file ? step.line : null);
  }

  renderVariables(step, activation) {
    const report = this.report;
    const values = this.valuesNow();
    const changed = new Set(step.changes.map((c) => c.variable));
    const rows = [];
    report.variables.forEach((variable, index) => {
      const owner = report.activations[variable.activation];
      // The current function's variables, and the entry function's while inside a helper.
      if (variable.activation !== step.activation && !(owner?.depth === 0 && activation.depth > 0)) return;
      const change = values.get(index);
      if (!change) return;
      const parts = change.values.map((value, k) => {
        const label = variable.components[k];
        const text = value == null ? '<span class="away">optimised away</span>' : escapeText(value);
        return label ? `<span class="label">${escapeText(label)}</span>=${text}` : text;
      });
      const numbers = change.values.map(Number);
      const colour = (numbers.length === 3 || numbers.length === 4) && numbers.every((v) => v >= 0 && v <= 1) &&
        change.values.every((v) => v != null);
      const swatch = colour ? `<span class="swatch" style="background: rgba(${numbers.slice(0, 3).map((v) => Math.round(v * 255)).join(",")},${numbers[3] ?? 1})"></span>` : "";
      rows.push(`<tr class="${changed.has(index) ? "changed" : ""}"><th>${escapeText(variable.name)}</th>` +
        `<td class="type">${escapeText(variable.type)}</td><td>${swatch}${parts.join(" ")}</td></tr>`);
    });
    this.el.variables.innerHTML = rows.join("") || '<tr><td class="hint">no variables assigned yet</td></tr>';
  }

  /** Marks the traced pixel over the canvas. */
  placeMarker() {
    if (!this.pixel) { this.el.marker.hidden = true; return; }
    const rect = this.canvas.getBoundingClientRect();
    const stage = this.el.marker.parentElement.getBoundingClientRect();
    const scaleX = rect.width / this.canvas.width, scaleY = rect.height / this.canvas.height;
    this.el.marker.style.left = `${rect.left - stage.left + (this.pixel.x + 0.5) * scaleX}px`;
    this.el.marker.style.top = `${rect.top - stage.top + (this.pixel.y + 0.5) * scaleY}px`;
    this.el.marker.hidden = false;
  }
}
