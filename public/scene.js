// Scene mode: the editor holds a scene document (docs/scenes.md); the layer panel lists its
// layers in drawing order with visibility toggles, drag (or ↑/↓) to reorder, and controls
// for their numeric paint properties, colours and effect arguments. Every change edits the
// document and is sent as `scene.set` (the server redraws only the layers that changed) or,
// for a single property, as `layer.update`.

const SLOTS = ["bottom", "middle", "top", undefined];

/** A new element with its properties set (text goes in as text, never as HTML). */
function element(tag, properties = {}) {
  return Object.assign(document.createElement(tag), properties);
}

/** Layers in the order the server draws them: slots bottom, middle, top, then unslotted. */
export function drawingOrder(layers) {
  return SLOTS.flatMap((slot) => layers.filter((layer) => layer.slot === slot));
}

export class ScenePanel {
  constructor(container, { onChange, onUpdate }) {
    this.container = container;
    this.onChange = onChange;   // (document) => void: send the whole document
    this.onUpdate = onUpdate;   // (layerID, properties) => void: send one layer's change
    this.document = null;
  }

  show(document) {
    this.document = document;
    this.render();
  }

  render() {
    this.container.replaceChildren();
    const layers = this.document?.layers ?? [];
    if (!layers.length) {
      const hint = Object.assign(document.createElement("p"), { className: "hint", textContent: "This scene has no layers." });
      this.container.append(hint);
      return;
    }
    const ordered = drawingOrder(layers).reverse(); // topmost first, like a layer panel
    for (const layer of ordered) this.container.append(this.row(layer));
  }

  row(layer) {
    const row = document.createElement("div");
    row.className = "layer";
    row.draggable = true;
    row.dataset.id = layer.id;
    const visible = layer.visible !== false;
    // Layer ids and types come from the document: they go in as text and attribute
    // values, never as markup.
    const head = element("div", { className: "layer-head" });
    const checkbox = element("input", { type: "checkbox", checked: visible });
    checkbox.setAttribute("aria-label", `Show ${layer.id}`);
    const moveButton = (direction, arrow) => {
      const button = element("button", { className: "icon", title: `Move ${direction}`, textContent: arrow });
      button.dataset.move = direction;
      button.setAttribute("aria-label", `Move ${layer.id} ${direction}`);
      return button;
    };
    head.append(checkbox,
      element("span", { className: "layer-name", textContent: layer.id }),
      element("span", { className: "badge", textContent: layer.slot ? `${layer.type} · ${layer.slot}` : layer.type }),
      element("span", { className: "spacer" }),
      moveButton("up", "↑"), moveButton("down", "↓"));
    row.append(head);
    row.querySelector("input").addEventListener("change", (e) => {
      layer.visible = e.target.checked;
      this.onUpdate(layer.id, { visible: layer.visible });
    });
    row.querySelectorAll("button[data-move]").forEach((button) =>
      button.addEventListener("click", () => this.move(layer.id, button.dataset.move === "up" ? 1 : -1)));
    row.addEventListener("dragstart", (e) => { e.dataTransfer.setData("text/plain", layer.id); row.classList.add("dragging"); });
    row.addEventListener("dragend", () => row.classList.remove("dragging"));
    row.addEventListener("dragover", (e) => e.preventDefault());
    row.addEventListener("drop", (e) => {
      e.preventDefault();
      const dragged = e.dataTransfer.getData("text/plain");
      if (dragged && dragged !== layer.id) this.place(dragged, layer.id);
    });
    for (const control of this.controls(layer)) row.append(control);
    return row;
  }

  /** Sliders and colour pickers for a layer's paint numbers/colours and effect arguments. */
  controls(layer) {
    const out = [];
    const add = (group, key, value) => {
      const label = document.createElement("label");
      label.className = "layer-control";
      const name = document.createElement("span");
      name.textContent = key;
      if (typeof value === "string" && /^#([0-9a-f]{6}|[0-9a-f]{8})$/i.test(value)) {
        const input = Object.assign(document.createElement("input"), { type: "color", value: value.slice(0, 7) });
        input.addEventListener("input", () => this.set(layer, group, key, input.value + value.slice(7)));
        label.append(name, input);
      } else if (typeof value === "number") {
        const max = /opacity/.test(key) ? 1 : Math.max(1, Math.abs(value) * 3);
        const input = Object.assign(document.createElement("input"),
          { type: "range", min: value < 0 ? -max : 0, max, step: max / 200, value });
        input.addEventListener("input", () => this.set(layer, group, key, Number(input.value)));
        label.append(name, input);
      } else {
        return;
      }
      out.push(label);
    };
    for (const [key, value] of Object.entries(layer.paint ?? {})) add("paint", key, value);
    for (const [key, value] of Object.entries(layer.arguments ?? {})) add("arguments", key, value);
    return out;
  }

  set(layer, group, key, value) {
    layer[group] = { ...(layer[group] ?? {}), [key]: value };
    this.onUpdate(layer.id, { [group]: { [key]: value } });
  }

  /** Moves a layer one step up (+1) or down (−1) in drawing order, within its slot. */
  move(id, step) {
    const layers = this.document.layers;
    const ordered = drawingOrder(layers);
    const index = ordered.findIndex((l) => l.id === id);
    const neighbour = ordered[index + step];
    if (!neighbour || neighbour.slot !== ordered[index].slot) return;
    this.place(id, neighbour.id, step > 0);
  }

  /** Puts layer `id` next to `targetID` (above it when `above`, else where it was dropped). */
  place(id, targetID, above = true) {
    const layers = this.document.layers;
    const moving = layers.find((l) => l.id === id);
    const target = layers.find((l) => l.id === targetID);
    if (!moving || !target) return;
    layers.splice(layers.indexOf(moving), 1);
    moving.slot = target.slot;
    if (moving.slot === undefined) delete moving.slot;
    layers.splice(layers.indexOf(target) + (above ? 1 : 0), 0, moving);
    this.render();
    this.onChange(this.document);
  }
}
