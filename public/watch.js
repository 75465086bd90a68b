// Watching a live session (docs/protocol.md "Watching a live session").
//
// The editor's side: "Watch link" asks the server for a read-only link (`watch`), shows it
// and how many are watching, and from then on tells the server the caret's line
// (`cursor`). The spectator's side: a page opened at `/w/<token>` joins that session
// (`spectate`) instead of compiling anything, shows the editor's text read-only with the
// editor's line marked, the function and arguments, and the same frames.

const $ = (id) => document.getElementById(id);

/** The watch token this page was opened at, or null. */
export function watchToken() {
  // 22 random characters, after the instance's name behind a load balancer (`kiln-a.…`).
  const match = location.pathname.match(/^\/w\/((?:[a-z0-9-]{1,32}\.)?[A-Za-z0-9_-]{22})$/);
  return match ? match[1] : null;
}

/** The editor's "Watch link" button, link and spectator count. */
export class WatchPanel {
  constructor({ send, editor }) {
    this.send = send;
    this.editor = editor;
    this.watching = false;
    this.lastLine = null;
    $("watch").addEventListener("click", () => send({ type: "watch" }));
    const caretMoved = () => this.sendCursor();
    for (const event of ["keyup", "click", "input"]) editor.textarea.addEventListener(event, caretMoved);
  }

  /** `watching`: the link to hand out. */
  watchingReply(message) {
    this.watching = true;
    const url = new URL(message.url, location.origin).href;
    $("watch-url").value = url;
    $("watch-url").hidden = false;
    $("watch-url").select();
    this.count(message.spectators);
    this.lastLine = null;
    this.sendCursor();
  }

  /** `spectators`: how many watch now. */
  count(n) {
    $("watch-count").textContent = n === 1 ? "1 watching" : `${n} watching`;
    $("watch-count").hidden = false;
  }

  /** A reconnect (a new server) forgets the link: it must be asked for again. */
  reset() {
    this.watching = false;
    $("watch-url").hidden = true;
    $("watch-count").hidden = true;
  }

  sendCursor() {
    if (!this.watching) return;
    const line = this.editor.caretLine();
    if (line === this.lastLine) return;
    this.lastLine = line;
    this.send({ type: "cursor", line });
  }
}

/**
 * The spectator's page: read-only, following one live session. `show(state)` gets
 * `spectating` and `watch.state` messages (only the fields that changed).
 */
export class Spectator {
  constructor({ token, send, editor }) {
    this.token = token;
    this.send = send;
    this.editor = editor;
    editor.textarea.readOnly = true;
    document.body.classList.add("spectating");
    $("watch-banner").hidden = false;
  }

  join() { this.send({ type: "spectate", token: this.token }); }

  show(state) {
    if (state.files) {
      this.editor.text = state.files.filter((f) => !f.name.endsWith(".h")).map((f) => f.text).join("\n") ||
        state.files.map((f) => f.text).join("\n");
    }
    // A scene session shows its document (the JSON the editor's scene mode edits).
    if (state.scene != null) {
      // The server keeps the document compact; laid out the way scene mode shows it.
      let text = state.scene;
      try { text = JSON.stringify(JSON.parse(state.scene), null, 2); } catch { /* shown as sent */ }
      this.editor.text = text;
      $("kind").textContent = "scene";
    }
    if ("line" in state) this.editor.markLine(state.line ?? null);
    if (state.function) $("kind").textContent = state.function;
    if (state.arguments) {
      const parts = Object.entries(state.arguments).map(([name, value]) =>
        `${name} = ${value.map((v) => Number(v.toFixed(4))).join(", ")}`);
      $("watch-arguments").textContent = parts.join("   ");
    }
  }

  ended() {
    $("watch-banner").textContent = "The session you were watching has ended.";
  }

  refused(message) {
    $("watch-banner").textContent = `Cannot watch: ${message.message}`;
  }
}
