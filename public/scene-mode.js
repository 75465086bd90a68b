// Scene mode's wiring: the editor holds a scene document, the layer panel edits it, and
// every change goes to the server as `scene.set` (or `layer.update` for one property).
// JSON mistakes are shown as problems locally, before anything is sent.
import { ScenePanel } from "./scene.js";
import { fetchExample } from "./gallery.js";

export class SceneMode {
  constructor({ state, persist, editor, problems, send }) {
    this.state = state;
    this.persist = persist;
    this.editor = editor;
    this.problems = problems;
    this.sendMessage = send;
    this.panel = new ScenePanel(document.getElementById("layers"), {
      onChange: (scene) => { this.showText(scene); this.send(); },
      onUpdate: (layer, properties) => {
        this.showText(this.panel.document);
        send({ type: "layer.update", layer, properties, format: "rgba8" });
      },
    });
  }

  /** Puts the panel's document back into the editor as text. */
  showText(scene) {
    this.state.sceneSource = JSON.stringify(scene, null, 2);
    this.editor.text = this.state.sceneSource;
    this.persist();
  }

  /** Parses the editor's scene and sends it; JSON mistakes show as problems, locally. */
  send() {
    const text = this.state.sceneSource;
    if (text == null) return;
    let scene;
    try {
      scene = JSON.parse(text);
    } catch (error) {
      const offset = Number(/position (\d+)/.exec(error.message)?.[1] ?? 0);
      const before = text.slice(0, offset).split("\n");
      const problem = { severity: "error", file: this.state.sceneExample, line: before.length, column: before.at(-1).length + 1,
                        endColumn: before.at(-1).length + 2, message: error.message };
      this.editor.setDiagnostics([problem]);
      this.problems.show([problem]);
      return;
    }
    this.editor.setDiagnostics([]);
    this.panel.show(scene);
    this.sendMessage({ type: "scene.set", scene, format: "rgba8" });
  }

  /** Opens an example scene from the server. */
  async open(name) {
    const text = await fetchExample("scene", name);
    if (text == null) return;
    this.state.sceneExample = name;
    this.state.sceneSource = text;
    this.editor.text = text;
    this.persist();
    this.send();
  }

  /** Shows the stored scene without sending it (the page's start, before connecting). */
  restore() {
    if (this.state.sceneSource == null) { this.open(this.state.sceneExample); return; }
    this.editor.text = this.state.sceneSource;
    try { this.panel.show(JSON.parse(this.state.sceneSource)); } catch { /* send() reports it on connect */ }
  }

  /** A `bad_scene` error: the path and message as a problem of the document. */
  error(message) {
    this.problems.show([{ severity: "error", file: this.state.sceneExample, line: 1, column: 1, message: `${message.path}: ${message.message}` }]);
  }

  /** `scene.rendered`: which layers were redrawn. */
  rendered(message) {
    this.problems.show([]);
    document.getElementById("compile-time").textContent =
      `redrew ${message.drawn?.length ? message.drawn.join(", ") : "nothing (all cached)"}`;
  }
}
