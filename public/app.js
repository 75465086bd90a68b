// Kiln's preview page: wires the editor, the connection, the frame view and the controls.
// Everything the user does is kept in localStorage, so a reload or a server restart loses
// nothing: on every (re)connect the page re-sends its source and resumes its preview.
import { Editor } from "./editor.js";
import { Connection } from "./connection.js";
import { FrameView, parseFrame } from "./frames.js";
import { ArgumentControls } from "./controls.js";
import { swiftUISnippet } from "./snippet.js";
import { ScenePanel } from "./scene.js";

const $ = (id) => document.getElementById(id);
const STORAGE_KEY = "kiln.page.v1";
const params = new URLSearchParams(location.search);
const DEBOUNCE_MS = Number(params.get("debounce") ?? 150);
const LOOP_SECONDS = 10;
const USER_BINDINGS = new Set(["uniform", "buffer", "texture"]);

const saved = JSON.parse(localStorage.getItem(STORAGE_KEY) ?? "{}");
const state = {
  source: saved.source ?? null,
  example: saved.example ?? "wave.metal",
  function: saved.function ?? null,
  args: saved.args ?? {},            // by function name, then argument name
  content: saved.content ?? "rainbow",
  size: saved.size ?? "512",
  speed: saved.speed ?? 1,
  loop: saved.loop ?? true,
  mode: saved.mode ?? "shader",         // "shader" or "scene"
  sceneSource: saved.sceneSource ?? null,
  sceneExample: saved.sceneExample ?? "map_triangle.json",
};
let functions = [];
let previewing = false;
let playing = true;
let lastGoodCompile = false;

function persist() {
  localStorage.setItem(STORAGE_KEY, JSON.stringify(state));
}

// --- editor ---------------------------------------------------------------------------
let compileTimer = null;
const editor = new Editor({
  textarea: $("source"), highlight: $("highlight"), gutter: $("gutter"), tooltip: $("tooltip"),
  onChange: (text) => {
    if (state.mode === "scene") state.sceneSource = text; else state.source = text;
    persist();
    clearTimeout(compileTimer);
    compileTimer = setTimeout(submit, DEBOUNCE_MS);
  },
  onRun: () => { clearTimeout(compileTimer); submit(); },
});
$("compile").addEventListener("click", () => submit());

/** Sends what the editor holds: shader source, or the scene document. */
function submit() {
  if (state.mode === "scene") sendScene(); else compile();
}

let compileSentAt = 0;
function compile() {
  if (state.source == null) return;
  compileSentAt = performance.now();
  connection.send({ type: "compile", name: state.example || "shader.metal", source: state.source });
}

// --- connection -------------------------------------------------------------------------
const wsURL = `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/` +
  (params.get("token") ? `?token=${encodeURIComponent(params.get("token"))}` : "");
const frames = new FrameView($("canvas"), $("graph"));
const connection = new Connection(wsURL, {
  onstatus: (kind, text) => {
    $("connection").className = `status ${kind}`;
    $("connection").textContent = text;
    if (kind !== "ok") previewing = false;
  },
  onopen: () => {
    // A new server knows nothing: re-send the uploaded image (or fall back to a built-in),
    // then the source; the compile result restarts the preview.
    if (state.content === "upload") {
      if (uploadedImage) sendUpload(); else { state.content = "rainbow"; $("content").value = "rainbow"; persist(); }
    }
    submit();
  },
  onmessage: (data) => (typeof data === "string" ? handleMessage(JSON.parse(data)) : handleBinary(data)),
});

function handleMessage(message) {
  switch (message.type) {
    case "compiled": return compiled(message);
    case "error":
      if (message.code === "bad_scene") return showProblems([{ severity: "error", file: state.sceneExample, line: 1, column: 1, message: `${message.path}: ${message.message}` }]);
      return showOverlay(`${message.code}: ${message.message}`);
    case "scene.rendered":
      showProblems([]);
      $("compile-time").textContent = `redrew ${message.drawn?.length ? message.drawn.join(", ") : "nothing (all cached)"}`;
      return;
    case "clock":
      playing = message.playing;
      updatePlayButton();
      return;
    case "content.uploaded":
      $("content").value = "upload";
      state.content = "upload";
      persist();
      return;
  }
}

function handleBinary(buffer) {
  const frame = parseFrame(buffer);
  if (!frame) return; // the library bytes: the page has no use for them
  frames.draw(frame);
  hideOverlay();
  $("time").textContent = `${frame.time.toFixed(2)} s`;
  if (document.activeElement !== $("scrub")) $("scrub").value = frame.time % LOOP_SECONDS;
  $("fps").textContent = `${frames.fps} fps`;
  $("render-ms").textContent = `${(frame.renderMicroseconds / 1000).toFixed(2)} ms/frame`;
  if (state.loop && playing && frame.time >= LOOP_SECONDS) connection.send({ type: "clock", action: "seek", time: 0 });
}

// --- compile results ----------------------------------------------------------------------
function compiled(message) {
  if (state.mode !== "shader") return; // a late reply from before the switch to scene mode
  const diagnostics = message.diagnostics ?? [];
  editor.setDiagnostics(diagnostics);
  showProblems(diagnostics);
  $("compile-time").textContent = message.ok ? `compiled in ${(performance.now() - compileSentAt).toFixed(0)} ms round trip` : "";
  if (!message.ok) {
    // The server keeps streaming the last good library; only the problems change.
    return;
  }
  lastGoodCompile = true;
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
  updateSnippet();
  startOrUpdatePreview(previousFunction !== state.function);
}

function currentFunction() {
  return functions.find((f) => f.name === state.function) ?? null;
}

function showProblems(diagnostics) {
  const list = $("problems");
  list.replaceChildren();
  const errors = diagnostics.filter((d) => d.severity === "error").length;
  const warnings = diagnostics.filter((d) => d.severity === "warning").length;
  $("problem-count").textContent = diagnostics.length
    ? `${errors} error${errors === 1 ? "" : "s"}, ${warnings} warning${warnings === 1 ? "" : "s"}` : "No problems";
  for (const d of diagnostics) {
    const item = document.createElement("li");
    item.className = d.severity;
    item.tabIndex = 0;
    item.innerHTML = `<span class="sev"></span><span class="where"></span><span class="msg"></span>`;
    item.querySelector(".sev").textContent = d.severity;
    item.querySelector(".where").textContent = `${d.file}:${d.line}:${d.column}`;
    item.querySelector(".msg").textContent = d.message;
    const go = () => editor.reveal(d.line, d.column);
    item.addEventListener("click", go);
    item.addEventListener("keydown", (e) => { if (e.key === "Enter") go(); });
    list.append(item);
    for (const note of d.notes ?? []) {
      const noteItem = document.createElement("li");
      noteItem.className = "note";
      noteItem.textContent = `note: ${note.message}`;
      if (note.line) noteItem.addEventListener("click", () => editor.reveal(note.line, note.column ?? 1));
      list.append(noteItem);
    }
  }
}

// --- preview ----------------------------------------------------------------------------
function previewSize() {
  if (state.size !== "fit") return [Number(state.size), Number(state.size)];
  const box = $("stage").getBoundingClientRect();
  const side = Math.min(2048, Math.round(Math.min(box.width - 32, window.innerHeight * 0.6) * (window.devicePixelRatio || 1)));
  return [Math.max(64, side), Math.max(64, side)];
}

function previewArgs() {
  return state.function ? { ...(state.args[state.function] ?? {}) } : {};
}

function startOrUpdatePreview(functionChanged) {
  if (!state.function) return;
  const settings = { function: state.function, size: previewSize(), content: state.content, args: previewArgs(), fps: 30, format: "rgba8" };
  if (!previewing) {
    connection.send({ type: "preview.start", ...settings });
    connection.send({ type: "clock", action: "speed", speed: Number(state.speed) });
    if (!playing) connection.send({ type: "clock", action: "pause" });
    previewing = true;
  } else if (functionChanged) {
    connection.send({ type: "preview.update", ...settings });
  }
}

const controls = new ArgumentControls($("arguments"), (name, value) => {
  if (!state.function) return;
  (state.args[state.function] ??= {})[name] = value;
  persist();
  connection.send({ type: "preview.update", args: { [name]: value } });
  updateSnippet();
});

$("function").addEventListener("change", (event) => {
  state.function = event.target.value;
  persist();
  const fn = currentFunction();
  $("kind").textContent = fn?.kind ?? "";
  controls.build(fn, state.args[state.function] ?? {});
  controls.signature = JSON.stringify(fn?.arguments ?? []);
  updateSnippet();
  connection.send({ type: "preview.update", function: state.function, args: previewArgs() });
});

// --- time -------------------------------------------------------------------------------
function updatePlayButton() {
  $("play").textContent = playing ? "❚❚" : "▶";
  $("play").setAttribute("aria-label", playing ? "Pause" : "Play");
}
function togglePlay() {
  playing = !playing;
  updatePlayButton();
  connection.send({ type: "clock", action: playing ? "play" : "pause" });
}
$("play").addEventListener("click", togglePlay);
$("stage").tabIndex = 0;
$("stage").addEventListener("keydown", (e) => { if (e.key === " ") { e.preventDefault(); togglePlay(); } });
$("scrub").addEventListener("input", (e) => connection.send({ type: "clock", action: "seek", time: Number(e.target.value) }));
$("speed").value = String(state.speed);
$("speed").addEventListener("change", (e) => {
  state.speed = Number(e.target.value);
  persist();
  connection.send({ type: "clock", action: "speed", speed: state.speed });
});
$("loop").checked = state.loop;
$("loop").addEventListener("change", (e) => { state.loop = e.target.checked; persist(); });

// --- content and size ---------------------------------------------------------------------
$("content").value = state.content;
$("content").addEventListener("change", (e) => {
  if (e.target.value === "upload") { $("upload").click(); return; }
  state.content = e.target.value;
  persist();
  connection.send({ type: "preview.update", content: state.content });
});
$("size").value = state.size;
$("size").addEventListener("change", (e) => {
  state.size = e.target.value;
  persist();
  connection.send({ type: "preview.update", size: previewSize() });
});
window.addEventListener("resize", () => {
  if (state.size === "fit") connection.send({ type: "preview.update", size: previewSize() });
});

// The last uploaded image, kept so a reconnect (the server forgot it) can send it again.
let uploadedImage = null;
async function upload(file) {
  if (!file || file.type !== "image/png") { showOverlay("Only PNG images can be uploaded."); return; }
  uploadedImage = await file.arrayBuffer();
  sendUpload();
}
function sendUpload() {
  connection.send({ type: "content.upload", slot: "content" });
  connection.sendBinary(uploadedImage);
}
$("upload").addEventListener("change", (e) => upload(e.target.files[0]));
const stage = $("stage");
stage.addEventListener("dragover", (e) => { e.preventDefault(); stage.classList.add("dragging"); });
stage.addEventListener("dragleave", () => stage.classList.remove("dragging"));
stage.addEventListener("drop", (e) => {
  e.preventDefault();
  stage.classList.remove("dragging");
  upload(e.dataTransfer.files[0]);
});

// --- gallery, download, snippet -----------------------------------------------------------
async function loadGallery() {
  const gallery = $("gallery");
  gallery.replaceChildren(new Option(state.mode === "scene" ? "Scenes…" : "Examples…", ""));
  try {
    const route = state.mode === "scene" ? "scenes" : "shaders";
    const response = await fetch(`/${route}`);
    const list = (await response.json())[route];
    for (const file of list.filter((f) => f.name.endsWith(state.mode === "scene" ? ".json" : ".metal"))) {
      gallery.append(new Option(file.name, file.name));
    }
  } catch { /* offline: the editor still works with what it has */ }
}
async function openExample(name) {
  const response = await fetch(`/shaders/${encodeURIComponent(name)}`);
  if (!response.ok) return;
  state.example = name;
  state.function = null;
  editor.text = await response.text();
  state.source = editor.text;
  persist();
  previewing = false;
  compile();
}
$("gallery").addEventListener("change", (e) => {
  if (e.target.value) (state.mode === "scene" ? openScene : openExample)(e.target.value);
  e.target.value = "";
});

// --- scene mode --------------------------------------------------------------------------
const scenePanel = new ScenePanel($("layers"), {
  onChange: (document) => { showSceneText(document); sendScene(); },
  onUpdate: (layer, properties) => {
    showSceneText(scenePanel.document);
    connection.send({ type: "layer.update", layer, properties, format: "rgba8" });
  },
});

function showSceneText(document) {
  state.sceneSource = JSON.stringify(document, null, 2);
  editor.text = state.sceneSource;
  persist();
}

/** Parses the editor's scene and sends it; JSON mistakes show as problems, locally. */
function sendScene() {
  if (state.sceneSource == null) return;
  let document;
  try {
    document = JSON.parse(state.sceneSource);
  } catch (error) {
    const offset = Number(/position (\d+)/.exec(error.message)?.[1] ?? 0);
    const before = state.sceneSource.slice(0, offset).split("\n");
    const problem = { severity: "error", file: state.sceneExample, line: before.length, column: before.at(-1).length + 1,
                      endColumn: before.at(-1).length + 2, message: error.message };
    editor.setDiagnostics([problem]);
    showProblems([problem]);
    return;
  }
  editor.setDiagnostics([]);
  scenePanel.show(document);
  compileSentAt = performance.now();
  connection.send({ type: "scene.set", scene: document, format: "rgba8" });
}

async function openScene(name) {
  const response = await fetch(`/scenes/${encodeURIComponent(name)}`);
  if (!response.ok) return;
  state.sceneExample = name;
  state.sceneSource = await response.text();
  editor.text = state.sceneSource;
  persist();
  sendScene();
}

function setMode(mode) {
  if (state.mode === mode && document.body.classList.contains(`mode-${mode}`)) return;
  state.mode = mode;
  persist();
  document.body.className = `mode-${mode}`;
  $("mode-shader").setAttribute("aria-selected", String(mode === "shader"));
  $("mode-scene").setAttribute("aria-selected", String(mode === "scene"));
  editor.setDiagnostics([]);
  showProblems([]);
  loadGallery();
  if (mode === "scene") {
    connection.send({ type: "preview.stop" });
    previewing = false;
    if (state.sceneSource == null) { openScene(state.sceneExample); return; }
    editor.text = state.sceneSource;
    sendScene();
  } else {
    editor.text = state.source ?? "";
    compile();
  }
}
$("mode-shader").addEventListener("click", () => setMode("shader"));
$("mode-scene").addEventListener("click", () => setMode("scene"));

$("download").addEventListener("click", async () => {
  const blob = await frames.toBlob();
  const link = Object.assign(document.createElement("a"), { href: URL.createObjectURL(blob), download: `${state.function ?? "kiln"}.png` });
  link.click();
  setTimeout(() => URL.revokeObjectURL(link.href), 1000);
});
function updateSnippet() {
  $("snippet-text").textContent = swiftUISnippet(currentFunction(), controls.values);
}
$("snippet").addEventListener("click", async () => {
  updateSnippet();
  try { await navigator.clipboard.writeText($("snippet-text").textContent); $("snippet").textContent = "Copied"; }
  catch { $("snippet").textContent = "Select and copy below"; }
  setTimeout(() => ($("snippet").textContent = "Copy SwiftUI snippet"), 1500);
});

// --- overlay --------------------------------------------------------------------------------
function showOverlay(text) { $("overlay").textContent = text; $("overlay").hidden = false; }
function hideOverlay() { $("overlay").hidden = true; }

// --- start ----------------------------------------------------------------------------------
document.body.className = `mode-${state.mode}`;
$("mode-shader").setAttribute("aria-selected", String(state.mode === "shader"));
$("mode-scene").setAttribute("aria-selected", String(state.mode === "scene"));
loadGallery();
if (state.mode === "scene") {
  if (state.sceneSource != null) {
    editor.text = state.sceneSource;
    try { scenePanel.show(JSON.parse(state.sceneSource)); } catch { /* sendScene reports it on connect */ }
  }
  else openScene(state.sceneExample);
} else if (state.source != null) {
  editor.text = state.source;
} else {
  openExample(state.example);
}
updatePlayButton();
window.kiln = { editor, state, frames, connection, scenePanel }; // for tests and the curious
