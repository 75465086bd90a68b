// Permalinks: "Share link" stores the page's state on the server (`POST /share`,
// docs/protocol.md) and shows its link; opening a `/s/<id>` link loads that state — the
// source, function, arguments, time, size and content — into the page. The link is
// read-only: the first edit makes the page the user's own copy (the address goes back to /).

const $ = (id) => document.getElementById(id);

function base64(buffer) {
  let text = "";
  const bytes = new Uint8Array(buffer);
  for (let i = 0; i < bytes.length; i += 0x8000) text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(text);
}

/** The id of the shared state this page was opened at, or null. */
export function sharedID() {
  const match = location.pathname.match(/^\/s\/([A-Za-z0-9_-]{22})$/);
  return match ? match[1] : null;
}

export class SharePanel {
  /** `snapshot()` gives the state to share: {source, name, function, args, time, size, content, uploadedImage}. */
  constructor({ snapshot }) {
    this.snapshot = snapshot;
    $("share").addEventListener("click", () => this.share());
  }

  async share() {
    const state = this.snapshot();
    const body = { source: state.source, name: state.name, function: state.function, args: state.args,
      time: state.time, size: state.size, content: state.content };
    if (state.content === "upload" && state.uploadedImage) body.contentPNG = base64(state.uploadedImage);
    $("share").disabled = true;
    try {
      const response = await fetch("/share", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
      const text = await response.text();
      if (!response.ok) throw new Error(text.trim());
      const url = new URL(JSON.parse(text).url, location.origin).href;
      $("share-url").value = url;
      $("share-url").hidden = false;
      $("share-url").select();
      try { await navigator.clipboard.writeText(url); $("share").textContent = "Link copied"; } catch { $("share").textContent = "Link below"; }
    } catch (error) {
      $("share-url").value = `could not share: ${error.message}`;
      $("share-url").hidden = false;
    } finally {
      $("share").disabled = false;
      setTimeout(() => ($("share").textContent = "Share link"), 2000);
    }
  }
}

/** Fetches the shared state of `id` (and its content image), or null when there is none. */
export async function loadShared(id) {
  const response = await fetch(`/s/${id}?format=json`);
  if (!response.ok) return null;
  const state = await response.json();
  if (state.contentHash) {
    const image = await fetch(`/content/${state.contentHash}`);
    if (image.ok) state.contentImage = await image.arrayBuffer();
  }
  return state;
}
