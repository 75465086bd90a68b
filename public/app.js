// Kiln's preview page: the entry point that wires the editor, the connection, the frame
// view, the argument controls and the panels (each in its own module) to the live
// protocol (docs/protocol.md). Shader mode compiles the editor's text and previews an
// entry function; scene mode sends a scene document (scene-mode.js).
import { Editor } from "./editor.js";
import { Connection } from "./connection.js";
import { FrameView, parseFrame } from "./frames.js";
import { ArgumentControls } from "./controls.js";
import { loadState, saveState } from "./store.js";
import { ProblemsList } from "./problems.js";
import { Transport } from "./transport.js";
import { ContentPicker } from "./content.js";
import { loadGallery, fetchExample } from "./gallery.js";
import { Actions } from "./actions.js";
import { SceneMode } from "./scene-mode.js";
import { PixelDebugger } from "./debugger.js";
import { CostOverlay } from "./heatmap.js";
import { SharePanel, sharedID, loadShared } from "./share.js";
import { HistoryPanel, newClientID } from "./history.js";
import { WatchPanel, Spectator, watchToken } from "./watch.js";

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
const DEBOUNCE_MS = Number(params.get("debounce") ?? 150);
// Parameters the page offers controls for (position, colour and the layer are the preview's).
const USER_BINDINGS = new Set(["uniform", "buffer", "texture"]);

const state = loadState();
const persist = () => saveState(state);
if (!state.client) { state.client = newClientID(); persist(); }
let functions = [];
let previewing = false;

// --- editor and compiling -------------------------------------------------------------------
let compileTimer = null;
const editor = new Editor({
  textarea: $("source"), highlight: $("highlight"), gutter: $("gutter"), tooltip: $("tooltip"),
  onChange: (text) => {
    forkShared();
    if (state.mode === "scene") state.sceneSource = text; else state.source = text;
    persist();
    clearTimeout(compileTimer);
    compileTimer = setTimeout(submit, DEBOUNCE_MS);
  },
  onRun: () => { clearTimeout(compileTimer); submit(); },
});
$("compile").addEventListener("click", () => submit());
const problems = new ProblemsList($("problems"), $("problem-count"), (line, column) => editor.reveal(line, column));

/** Sends what the editor holds: shader source, or the scene document. */
function submit() {
  if (state.mode === "scene") sceneMode.send(); else compile();
}

let compileSentAt = 0;
function compile() {
  if (state.source == null) return;
  compileSentAt = performance.now();
  connection.send({ type: "compile", name: state.example || "shader.metal", source: state.source, client: state.client });
}

// --- connection -------------------------------------------------------------------------
// A spectator's connection names the watch token in its URL too: a load balancer that
// routes by it (docker/haproxy.cfg) sends it to the instance holding the session.
const wsQuery = new URLSearchParams();
if (params.get("token")) wsQuery.set("token", params.get("token"));
if (watchToken()) wsQuery.set("watch", watchToken());
const wsURL = `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/` +
  (wsQuery.toString() ? `?${wsQuery}` : "");
const frames = new FrameView($("canvas"), $("graph"));
const connection = new Connection(wsURL, {
  onstatus: (kind, text) => {
    $("connection").className = `status ${kind}`;
    $("connection").textContent = text;
    if (kind !== "ok") previewing = false;
  },
  onopen: () => {
    // A spectator follows someone else's session: it joins, and sends nothing of its own.
    if (spectator) { spectator.join(); return; }
    watchPanel.reset();
    // A new server knows nothing: re-send the uploaded image (or fall back to a built-in),
    // then the source; the compile result restarts the preview.
    content.restore();
    submit();
  },
  onmessage: (data) => (typeof data === "string" ? handleMessage(JSON.parse(data)) : handleBinary(data)),
});
const send = (message) => connection.send(message);
const spectator = watchToken() ? new Spectator({ token: watchToken(), send, editor }) : null;
const watchPanel = new WatchPanel({ send, editor });

const transport = new Transport({ state, persist, send });
const content = new ContentPicker({ state, persist, send, sendBinary: (bytes) => connection.sendBinary(bytes), showOverlay });
const sceneMode = new SceneMode({ state, persist, editor, problems, send });

const pixelDebugger = new PixelDebugger({
  canvas: $("canvas"), send, editor, frames, enabled: () => state.mode === "shader" && previewing,
  elements: {
    panel: $("debugger"), summary: $("debug-summary"), position: $("debug-position"), counter: $("debug-counter"),
    step: $("debug-step"), variables: $("debug-variables"), marker: $("pixel-marker"), first: $("debug-first"),
    back: $("debug-back"), forward: $("debug-forward"), last: $("debug-last"), toCaret: $("debug-to-caret"),
    iteration: $("debug-iteration"), close: $("debug-close"),
  },
});

const costOverlay = new CostOverlay({
  preview: $("canvas"), send, editor, frames, enabled: () => state.mode === "shader" && previewing,
  elements: { toggle: $("cost"), canvas: $("heat"), legend: $("heat-legend"), readout: $("heat-readout") },
});
/** After anything that changes the picture: trace and count it again. */
function inspectAgain() {
  pixelDebugger.refresh();
  costOverlay.refresh();
}

function handleMessage(message) {
  switch (message.type) {
    case "compiled": return compiled(message);
    case "debug.trace": return pixelDebugger.trace(message);
    case "heatmap": return costOverlay.show(message);
    case "watching": return watchPanel.watchingReply(message);
    case "spectators": return watchPanel.count(message.count);
    case "spectating": case "watch.state": return spectator?.show(message);
    case "watch.ended": return spectator?.ended();
    case "error":
      if (spectator && ["not_found", "unavailable", "read_only"].includes(message.code)) return spectator.refused(message);
      if (message.code === "bad_scene") return sceneMode.error(message);
      if (pixelDebugger.error(message) || costOverlay.error(message)) return;
      return showOverlay(`${message.code}: ${message.message}`);
    case "scene.rendered": return sceneMode.rendered(message);
    case "clock":
      transport.clock(message);
      // A paused clock shows one frame: the trace follows it (a playing one is traced on click).
      if (!message.playing) setTimeout(inspectAgain, 50);
      return;
    case "content.uploaded": return content.uploaded();
  }
}

function handleBinary(buffer) {
  const frame = parseFrame(buffer);
  if (!frame) return; // the library bytes: the page has no use for them
  frames.draw(frame);
  hideOverlay();
  transport.frame(frame);
  $("fps").textContent = `${frames.fps} fps`;
  const ms = (frame.renderMicroseconds / 1000).toFixed(2);
  const k = frame.coarseStride;
  const draft = frame.provisional ? " (quick compile)" : "";
  $("render-ms").textContent = k > 1 ? `coarse 1/${k * k} of the pixels in ${ms} ms${draft}` : `${ms} ms/frame`;
}

// --- compile results ----------------------------------------------------------------------
function compiled(message) {
  if (state.mode !== "shader") return; // a late reply from before the switch to scene mode
  const diagnostics = message.diagnostics ?? [];
  editor.setDiagnostics(diagnostics);
  problems.show(diagnostics);
  $("compile-time").textContent = message.ok ? `compiled in ${(performance.now() - compileSentAt).toFixed(0)} ms round trip` : "";
  if (!message.ok) {
    // The server keeps streaming the last good library; only the problems change.
    return;
  }
  setTimeout(() => versionList.refresh(), 100);    // the server keeps this version once it answered
  const previousFunction = state.function;
  // The report lists every parameter; the page offers controls for the ones a user sets.
  functions = message.functions.filter((f) => f.kind !== "vertex")
    .map((f) => ({ ...f, arguments: f.arguments.filter((a) => USER_BINDINGS.has(a.binding)) }));
  const select = $("function");
  select.replaceChildren(...functions.map((f) => new Option(`${f.name}`, f.name)));
  if (!functions.some((f) => f.name === state.function)) state.function = functions[0]?.name ?? null;
  select.value = state.function ?? "";
  const fn = currentFunction();
  $("kind").textContent = fn?.kind ?? "";
  const signature = JSON.stringify(fn?.arguments ?? []);
  if (fn && (controls.signature !== signature || previousFunction !== state.function)) {
    controls.build(fn, state.args[fn.name] ?? {});
    controls.signature = signature;
  }
  actions.updateSnippet();
  startOrUpdatePreview(previousFunction !== state.function);
  if (previousFunction !== state.function) pixelDebugger.clear(); else pixelDebugger.refresh();
  costOverlay.refresh();
}

function currentFunction() {
  return functions.find((f) => f.name === state.function) ?? null;
}

// --- preview ----------------------------------------------------------------------------
function previewArgs() {
  return state.function ? { ...(state.args[state.function] ?? {}) } : {};
}

function startOrUpdatePreview(functionChanged) {
  if (!state.function) return;
  const settings = { function: state.function, size: content.previewSize(), content: state.content, args: previewArgs(), fps: 30, format: "rgba8" };
  if (!previewing) {
    send({ type: "preview.start", ...settings });
    for (const message of transport.restoreMessages()) send(message);
    if (sharedClock != null) {
      // A shared state shows the frame it was shared at: paused there.
      send({ type: "clock", action: "pause" });
      send({ type: "clock", action: "seek", time: sharedClock });
      sharedClock = null;
    }
    previewing = true;
  } else if (functionChanged) {
    send({ type: "preview.update", ...settings });
  }
}

const controls = new ArgumentControls($("arguments"), (name, value) => {
  if (!state.function) return;
  (state.args[state.function] ??= {})[name] = value;
  persist();
  send({ type: "preview.update", args: { [name]: value } });
  actions.updateSnippet();
  inspectAgain();
});
const actions = new Actions({ frames, fileName: () => state.function, currentFunction, values: () => controls.values });

$("function").addEventListener("change", (event) => {
  state.function = event.target.value;
  persist();
  const fn = currentFunction();
  $("kind").textContent = fn?.kind ?? "";
  controls.build(fn, state.args[state.function] ?? {});
  controls.signature = JSON.stringify(fn?.arguments ?? []);
  actions.updateSnippet();
  send({ type: "preview.update", function: state.function, args: previewArgs() });
  pixelDebugger.clear();
  setTimeout(() => costOverlay.refresh(), 100);
});

// --- gallery and modes ----------------------------------------------------------------------
async function openExample(name) {
  const text = await fetchExample("shader", name);
  if (text == null) return;
  state.example = name;
  state.function = null;
  editor.text = text;
  state.source = editor.text;
  persist();
  previewing = false;
  compile();
}
$("gallery").addEventListener("change", (e) => {
  if (e.target.value) (state.mode === "scene" ? (name) => sceneMode.open(name) : openExample)(e.target.value);
  e.target.value = "";
});

function showMode(mode) {
  // Only the mode class changes: `spectating` (a watch page) stays.
  document.body.classList.remove("mode-shader", "mode-scene");
  document.body.classList.add(`mode-${mode}`);
  $("mode-shader").setAttribute("aria-selected", String(mode === "shader"));
  $("mode-scene").setAttribute("aria-selected", String(mode === "scene"));
  loadGallery($("gallery"), mode);
}

function setMode(mode) {
  if (state.mode === mode && document.body.classList.contains(`mode-${mode}`)) return;
  state.mode = mode;
  persist();
  showMode(mode);
  editor.setDiagnostics([]);
  problems.show([]);
  if (mode === "scene") {
    pixelDebugger.clear();
    costOverlay.hide();
    send({ type: "preview.stop" });
    previewing = false;
    if (state.sceneSource == null) { sceneMode.open(state.sceneExample); return; }
    editor.text = state.sceneSource;
    sceneMode.send();
  } else {
    editor.text = state.source ?? "";
    compile();
  }
}
$("mode-shader").addEventListener("click", () => setMode("shader"));
$("mode-scene").addEventListener("click", () => setMode("scene"));

// --- overlay --------------------------------------------------------------------------------
function showOverlay(text) { $("overlay").textContent = text; $("overlay").hidden = false; }
function hideOverlay() { $("overlay").hidden = true; }

// --- history ----------------------------------------------------------------------------------
const versionList = new HistoryPanel({
  client: () => state.client,
  current: () => editor.text,
  restore: (text) => {
    forkShared();
    editor.text = text;
    state.source = text;
    persist();
    compile();
  },
});

// --- sharing ----------------------------------------------------------------------------------
new SharePanel({
  snapshot: () => ({ source: state.source, name: state.example || "shader.metal", function: state.function,
    args: previewArgs(), time: frames.lastTime, size: state.size, content: state.content,
    uploadedImage: content.uploadedImage }),
});
let sharedClock = null;     // the shared time, applied once the shared shader previews

/** The first edit of a shared shader makes it the user's own: the address goes back to /. */
function forkShared() {
  if (!sharedID()) return;
  window.history.replaceState(null, "", "/");
  $("shared-banner").hidden = true;
}

async function openShared(id) {
  const shared = await loadShared(id);
  if (!shared) { showOverlay(`No shared shader ${id} on this server.`); openExample(state.example); return; }
  state.mode = "shader";
  showMode("shader");
  state.source = shared.source ?? (shared.files ?? []).map((f) => f.text).join("\n");
  state.example = shared.name ?? "shader.metal";
  state.function = shared.function ?? null;
  if (shared.function && shared.args) state.args[shared.function] = shared.args;
  if (shared.size) state.size = String(shared.size);
  if (shared.contentImage) {
    content.uploadedImage = shared.contentImage;
    state.content = "upload";
  } else if (shared.content && shared.content !== "upload") {
    state.content = shared.content;
  }
  $("content").value = state.content;
  $("size").value = state.size;
  sharedClock = Number.isFinite(shared.time) ? shared.time : null;
  $("shared-banner").hidden = false;
  editor.text = state.source;
  previewing = false;
  if (state.content === "upload") content.sendUpload();
  compile();
}

// --- start ----------------------------------------------------------------------------------
if (spectator) {
  showMode("shader");            // the watched text arrives with `spectating`; nothing is saved
} else {
  showMode(state.mode);
}
if (spectator) {
  // Nothing to open: the page follows the session it watches.
} else if (sharedID()) {
  openShared(sharedID());
} else if (state.mode === "scene") {
  sceneMode.restore();
} else if (state.source != null) {
  editor.text = state.source;
} else {
  openExample(state.example);
}
window.kiln = { editor, state, frames, connection, scenePanel: sceneMode.panel, pixelDebugger, costOverlay, watchPanel, spectator }; // for tests and the curious
