// History: every version of the shader that compiled is kept on the server for this page's
// client id (`compile` carries it; `GET /history/<client>` lists them, docs/protocol.md).
// The panel lists them newest first; choosing one shows its difference from the editor's
// text, and "Restore" puts it back in the editor (which compiles it, so it is kept again).

const $ = (id) => document.getElementById(id);
const escapeText = (text) => String(text).replace(/[&<>]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;" })[c]);

/** A random client id (22 URL-safe characters, 128 bits), made once per browser. */
export function newClientID() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** Lines of `a` and `b` as a line diff: [{kind: " " | "-" | "+", text}] (LCS; long texts coarser). */
export function lineDiff(a, b) {
  const x = a.split("\n"), y = b.split("\n");
  if (x.length * y.length > 4_000_000) return [...x.map((t) => ({ kind: "-", text: t })), ...y.map((t) => ({ kind: "+", text: t }))];
  const m = x.length, n = y.length;
  const table = Array.from({ length: m + 1 }, () => new Uint32Array(n + 1));
  for (let i = m - 1; i >= 0; i--) {
    for (let j = n - 1; j >= 0; j--) {
      table[i][j] = x[i] === y[j] ? table[i + 1][j + 1] + 1 : Math.max(table[i + 1][j], table[i][j + 1]);
    }
  }
  const out = [];
  let i = 0, j = 0;
  while (i < m && j < n) {
    if (x[i] === y[j]) { out.push({ kind: " ", text: x[i] }); i++; j++; }
    else if (table[i + 1][j] >= table[i][j + 1]) out.push({ kind: "-", text: x[i++] });
    else out.push({ kind: "+", text: y[j++] });
  }
  while (i < m) out.push({ kind: "-", text: x[i++] });
  while (j < n) out.push({ kind: "+", text: y[j++] });
  return out;
}

export class HistoryPanel {
  /** `client()` is the page's client id; `current()` the editor's text; `restore(text)` puts a version back. */
  constructor({ client, current, restore }) {
    this.client = client;
    this.current = current;
    this.restoreText = restore;
    this.selected = null;
    $("history-restore").addEventListener("click", () => { if (this.selected) this.restoreText(this.selected); });
  }

  /** Reloads the list (after a compile that succeeded). */
  async refresh() {
    let versions = [];
    try {
      const response = await fetch(`/history/${this.client()}`);
      if (!response.ok) { $("history").replaceChildren(); return; }
      versions = (await response.json()).versions;
    } catch { return; }
    const items = versions.map((version) => {
      const item = document.createElement("li");
      item.tabIndex = 0;
      const when = new Date(version.lastCompiled * 1000).toLocaleTimeString();
      item.textContent = `${when} · ${version.bytes} bytes · ${version.sha256.slice(0, 8)}`;
      item.addEventListener("click", () => this.show(version.sha256, item));
      return item;
    });
    $("history").replaceChildren(...items);
    $("history-count").textContent = `${versions.length} version${versions.length === 1 ? "" : "s"}`;
  }

  /** Shows a version's difference from the editor's text. */
  async show(sha256, item) {
    const response = await fetch(`/history/${this.client()}/${sha256}`);
    if (!response.ok) return;
    const files = await response.json();
    const text = files.map((f) => f.text).join("\n");
    this.selected = text;
    for (const other of $("history").children) other.classList.toggle("selected", other === item);
    const diff = lineDiff(this.current(), text).filter((line, index, all) =>
      line.kind !== " " || all.slice(Math.max(0, index - 2), index + 3).some((near) => near.kind !== " "));
    $("history-diff").innerHTML = diff.length
      ? diff.map((line) => `<span class="${{ "-": "del", "+": "add", " ": "same" }[line.kind]}">${line.kind} ${escapeText(line.text)}</span>`).join("\n")
      : '<span class="same">the same as the editor</span>';
    $("history-diff").hidden = false;
    $("history-restore").disabled = false;
  }
}
