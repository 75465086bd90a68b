// The code editor: a transparent <textarea> over a highlighted <pre>, with a line-number
// gutter. Small and dependency-free; it does what a shader needs: highlighting, error
// markers with hover messages, auto-indent, bracket pairs, Tab indentation.
import { highlight } from "./highlight.js";

const PAIRS = { "(": ")", "[": "]", "{": "}" };
const INDENT = "    ";

export class Editor {
  constructor({ textarea, highlight: pre, gutter, tooltip, onChange, onRun }) {
    this.textarea = textarea;
    this.pre = pre;
    this.gutter = gutter;
    this.tooltip = tooltip;
    this.onChange = onChange;
    this.onRun = onRun;
    this.diagnostics = [];
    this.lineHeight = parseFloat(getComputedStyle(document.documentElement).getPropertyValue("--line-height")) || 20;

    textarea.addEventListener("input", () => this.changed());
    textarea.addEventListener("scroll", () => this.syncScroll());
    textarea.addEventListener("keydown", (event) => this.keydown(event));
    textarea.addEventListener("mousemove", (event) => this.hover(event));
    textarea.addEventListener("mouseleave", () => (this.tooltip.hidden = true));
    textarea.addEventListener("keyup", () => this.caretMessage());
    textarea.addEventListener("click", () => this.caretMessage());
  }

  get text() { return this.textarea.value; }

  /** The 1-based line the caret is on. */
  caretLine() {
    return this.textarea.value.slice(0, this.textarea.selectionStart).split("\n").length;
  }

  /** Each line's share of the frame's work (0…1) in the gutter (the cost heatmap); null clears. */
  setLineShares(shares) {
    this.lineShares = shares;
    this.render();
  }

  /**
   * Highlights `line` (the pixel debugger's current statement) in the gutter and the code,
   * scrolling it into view without moving the caret; null clears it.
   */
  markLine(line) {
    this.currentLine = line;
    if (!this.lineBar) {
      this.lineBar = document.createElement("div");
      this.lineBar.className = "current-line";
      this.pre.parentElement.insertBefore(this.lineBar, this.pre);
    }
    if (line != null) {
      const top = (line - 1) * this.lineHeight;
      if (top < this.textarea.scrollTop || top > this.textarea.scrollTop + this.textarea.clientHeight - 2 * this.lineHeight) {
        this.textarea.scrollTop = Math.max(0, top - this.textarea.clientHeight / 3);
      }
    }
    this.render();
  }

  set text(value) {
    this.textarea.value = value;
    this.render();
  }

  changed() {
    this.render();
    this.onChange?.(this.text);
  }

  /** Diagnostics in language.md §8 form (1-based line/column, endColumn exclusive). */
  setDiagnostics(diagnostics) {
    this.diagnostics = diagnostics;
    this.render();
  }

  lineStarts() {
    const starts = [0];
    const text = this.text;
    for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) starts.push(i + 1);
    return starts;
  }

  render() {
    const starts = this.lineStarts();
    const marks = [];
    const byLine = new Map();
    for (const d of this.diagnostics) {
      if (d.line < 1 || d.line > starts.length) continue;
      const lineStart = starts[d.line - 1];
      const lineEnd = d.line < starts.length ? starts[d.line] - 1 : this.text.length;
      const start = Math.min(lineStart + Math.max(0, d.column - 1), lineEnd);
      let end = Math.min(lineStart + Math.max(d.endColumn || d.column, d.column) - 1, lineEnd);
      if (end <= start) end = Math.min(start + 1, lineEnd);
      if (end > start) marks.push({ start, end, severity: d.severity });
      const previous = byLine.get(d.line);
      if (!previous || d.severity === "error") byLine.set(d.line, d.severity);
    }
    this.pre.innerHTML = highlight(this.text, marks);
    let gutter = "";
    for (let line = 1; line <= starts.length; line++) {
      // Only the two known severities become a class (the rest of the line is a number).
      const severity = { error: "error", warning: "warning" }[byLine.get(line)];
      const classes = [severity, line === this.currentLine ? "current" : null].filter(Boolean).join(" ");
      const share = this.lineShares?.get(line);
      // A bar as long as the line's share of the frame's work, and the percentage on hover.
      const bar = share ? `<span class="share" style="width: ${Math.max(1, Math.round(share * 48))}px" title="${(share * 100).toFixed(1)}% of the frame's work"></span>` : "";
      const title = severity ? ` title="${severity}"` : share ? ` title="${(share * 100).toFixed(1)}% of the frame's work"` : "";
      gutter += classes || bar ? `<div${classes ? ` class="${classes}"` : ""}${title}>${bar}${line}</div>` : `<div>${line}</div>`;
    }
    this.gutter.innerHTML = gutter;
    this.syncScroll();
  }

  syncScroll() {
    if (this.lineBar) {
      this.lineBar.hidden = this.currentLine == null;
      const padding = parseFloat(getComputedStyle(this.textarea).paddingTop) || 0;
      this.lineBar.style.top = `${padding + ((this.currentLine ?? 1) - 1) * this.lineHeight - this.textarea.scrollTop}px`;
    }
    this.pre.scrollTop = this.textarea.scrollTop;
    this.pre.scrollLeft = this.textarea.scrollLeft;
    this.gutter.scrollTop = this.textarea.scrollTop;
  }

  /** Moves the caret to (line, column) and scrolls it into view. */
  reveal(line, column = 1) {
    const starts = this.lineStarts();
    const offset = (starts[Math.max(0, Math.min(line, starts.length) - 1)] ?? 0) + Math.max(0, column - 1);
    this.textarea.focus();
    this.textarea.setSelectionRange(offset, offset);
    const top = (line - 1) * this.lineHeight;
    if (top < this.textarea.scrollTop || top > this.textarea.scrollTop + this.textarea.clientHeight - 2 * this.lineHeight) {
      this.textarea.scrollTop = Math.max(0, top - this.textarea.clientHeight / 3);
    }
    this.syncScroll();
    this.caretMessage();
  }

  diagnosticAt(line, column) {
    return this.diagnostics.find((d) => d.line === line && column >= d.column && column < Math.max(d.endColumn || 0, d.column + 1))
      ?? null;
  }

  /** Shows the message of the diagnostic under the mouse. */
  hover(event) {
    const rect = this.textarea.getBoundingClientRect();
    const style = getComputedStyle(this.textarea);
    const charWidth = this.measureCharWidth(style);
    const y = event.clientY - rect.top + this.textarea.scrollTop - parseFloat(style.paddingTop);
    const x = event.clientX - rect.left + this.textarea.scrollLeft - parseFloat(style.paddingLeft);
    const line = Math.floor(y / this.lineHeight) + 1;
    const column = Math.floor(x / charWidth) + 1;
    const diagnostic = this.diagnosticAt(line, column);
    if (!diagnostic) { this.tooltip.hidden = true; return; }
    this.showTooltip(diagnostic, event.clientX - rect.left + 56, event.clientY - rect.top + 18);
  }

  /** When the caret sits on an error, its message shows too (keyboard users). */
  caretMessage() {
    const offset = this.textarea.selectionStart;
    const starts = this.lineStarts();
    let line = starts.length;
    while (line > 1 && starts[line - 1] > offset) line--;
    const column = offset - starts[line - 1] + 1;
    const diagnostic = this.diagnosticAt(line, column) ?? this.diagnostics.find((d) => d.line === line);
    if (!diagnostic) { this.tooltip.hidden = true; return; }
    const top = line * this.lineHeight - this.textarea.scrollTop + 14;
    this.showTooltip(diagnostic, 60, top);
  }

  showTooltip(diagnostic, left, top) {
    this.tooltip.textContent = `${diagnostic.severity}: ${diagnostic.message}` +
      (diagnostic.notes ?? []).map((n) => `\nnote: ${n.message}`).join("");
    this.tooltip.style.left = `${left}px`;
    this.tooltip.style.top = `${top}px`;
    this.tooltip.hidden = false;
  }

  measureCharWidth(style) {
    if (this.charWidth) return this.charWidth;
    const canvas = document.createElement("canvas").getContext("2d");
    canvas.font = `${style.fontSize} ${style.fontFamily}`;
    this.charWidth = canvas.measureText("0000000000").width / 10 || 8;
    return this.charWidth;
  }

  keydown(event) {
    const ta = this.textarea;
    if ((event.ctrlKey || event.metaKey) && event.key === "Enter") {
      event.preventDefault();
      this.onRun?.();
      return;
    }
    if (event.key === "Escape") { ta.blur(); return; } // lets keyboard users Tab out of the editor
    const { selectionStart: start, selectionEnd: end, value } = ta;
    if (event.key === "Tab" && !event.ctrlKey && !event.altKey) {
      event.preventDefault();
      const lineStart = value.lastIndexOf("\n", start - 1) + 1;
      if (event.shiftKey) {
        const removable = value.slice(lineStart, lineStart + 4).match(/^ {1,4}/)?.[0].length ?? 0;
        this.replace(lineStart, lineStart + removable, "", Math.max(lineStart, start - removable));
      } else {
        this.replace(start, end, INDENT, start + INDENT.length);
      }
      return;
    }
    if (event.key === "Enter" && !event.shiftKey) {
      event.preventDefault();
      const lineStart = value.lastIndexOf("\n", start - 1) + 1;
      const indent = value.slice(lineStart).match(/^[ \t]*/)[0];
      const before = value[start - 1], after = value[end];
      if (before === "{" && after === "}") {
        const inner = "\n" + indent + INDENT;
        this.replace(start, end, inner + "\n" + indent, start + inner.length);
      } else {
        const extra = before === "{" ? INDENT : "";
        this.replace(start, end, "\n" + indent + extra, start + 1 + indent.length + extra.length);
      }
      return;
    }
    if (PAIRS[event.key] && start === end) {
      const next = value[start];
      if (!next || /[\s)\]};,]/.test(next)) {
        event.preventDefault();
        this.replace(start, end, event.key + PAIRS[event.key], start + 1);
      }
      return;
    }
    if ([")", "]", "}"].includes(event.key) && start === end && value[start] === event.key) {
      event.preventDefault();
      ta.setSelectionRange(start + 1, start + 1);
      return;
    }
    if (event.key === "Backspace" && start === end && PAIRS[value[start - 1]] === value[start]) {
      event.preventDefault();
      this.replace(start - 1, start + 1, "", start - 1);
    }
  }

  /** Replaces a range keeping the browser's undo history where it can. */
  replace(start, end, text, caret) {
    const ta = this.textarea;
    ta.setSelectionRange(start, end);
    // execCommand keeps undo working and fires "input" itself; setRangeText does neither.
    const inserted = document.execCommand?.("insertText", false, text);
    if (!inserted) ta.setRangeText(text, start, end, "end");
    ta.setSelectionRange(caret, caret);
    if (!inserted) this.changed();
  }
}
