// Argument controls generated from an entry function's signature and @arg annotations:
// sliders for float/half, paired sliders for float2, colour pickers for half4/half3
// colours, a list field for arrays. Arguments the server marks `auto` (the clock, the
// size, the rectangle under the names real shaders use: AutomaticArgument in the server)
// are filled in by the preview and shown as such.

const AUTOMATIC = { time: "preview clock", bounds: "layer rectangle", size: "preview size" };

function componentCount(type) {
  const match = /(\d)(?:x(\d))?$/.exec(type.replace(/\s*\*$/, ""));
  if (!match) return 1;
  return match[2] ? Number(match[1]) * Number(match[2]) : Number(match[1]);
}

function isAutomatic(argument) {
  return argument.auto != null && argument.auto in AUTOMATIC;
}

function isColor(argument) {
  return /^(half|float)[34]$/.test(argument.type) &&
    (argument.type.startsWith("half") || /colou?r|tint|shade/i.test(argument.name));
}

/** A sensible slider range when no @arg range is given. */
function rangeFor(argument, value) {
  if (argument.min != null && argument.max != null) return [argument.min, argument.max];
  const magnitude = Math.max(1, Math.abs(value) * 2);
  return [value < 0 || argument.min == null && /angle|offset|shift/i.test(argument.name) ? -magnitude : 0, magnitude];
}

const toHex = (v) => Math.round(Math.min(1, Math.max(0, v)) * 255).toString(16).padStart(2, "0");

/** "name  auto: what", for an argument the preview fills in itself (names as text, not markup). */
function automaticLabel(name, what) {
  const label = document.createElement("label");
  const note = Object.assign(document.createElement("span"), { className: "auto", textContent: `auto: ${what}` });
  label.append(name, note);
  return label;
}

export class ArgumentControls {
  constructor(container, onChange) {
    this.container = container;
    this.onChange = onChange;
    this.values = {};
  }

  /** Rebuilds the controls for `fn`; `saved` holds earlier values by argument name. */
  build(fn, saved = {}) {
    this.container.replaceChildren();
    this.values = {};
    this.zeroHint = null;
    const args = (fn?.arguments ?? []).filter((a) => a.binding !== "texture");
    if (!args.length) {
      const text = fn ? "This function takes no arguments." : "Compile a shader to get its controls.";
      this.container.append(Object.assign(document.createElement("p"), { className: "hint", textContent: text }));
      return;
    }
    args.forEach((argument, index) => {
      const previous = args[index - 1];
      const row = document.createElement("div");
      row.className = "arg";
      const n = componentCount(argument.type);
      const fallback = argument.default?.length ? argument.default : new Array(n).fill(isColor(argument) ? 1 : 0);
      let value = (saved[argument.name]?.length === n ? saved[argument.name] : fallback).slice(0, n);
      while (value.length < n) value.push(0);

      if (isAutomatic(argument)) {
        this.automaticRow(row, argument, value, Array.isArray(saved[argument.name]));
      } else if (argument.binding === "buffer") {
        row.append(this.listField(argument, saved[argument.name] ?? argument.default ?? [1, 1, 1]));
      } else if (previous?.binding === "buffer" && /int/.test(argument.type)) {
        row.append(automaticLabel(argument.name, `element count of ${previous.name}`));
      } else if (isColor(argument)) {
        row.append(this.colorField(argument, value));
      } else {
        row.append(...this.sliders(argument, value));
      }
      if (argument.help) row.title = argument.help;
      this.container.append(row);
    });
    this.zeroHint = Object.assign(document.createElement("p"), { className: "hint zero-hint",
      textContent: "Every argument is zero: the image may be blank until you set them." });
    this.container.append(this.zeroHint);
    this.updateZeroHint();
  }

  /** An automatic argument: "auto: …" with a button to set it by hand, or, once set by
   *  hand, its controls with a button back to the automatic value. Setting `null` tells
   *  the server to use the automatic value again. */
  automaticRow(row, argument, value, overridden) {
    const button = (text, title, action) => {
      const b = Object.assign(document.createElement("button"), { className: "link", type: "button", textContent: text, title });
      b.addEventListener("click", action);
      return b;
    };
    if (overridden) {
      const back = button("auto", `Use the ${AUTOMATIC[argument.auto]} again`, () => {
        delete this.values[argument.name];
        this.set(argument.name, null);
        row.replaceChildren();
        this.automaticRow(row, argument, value, false);
      });
      row.replaceChildren(...this.sliders(argument, value), back);
    } else {
      const label = automaticLabel(argument.name, AUTOMATIC[argument.auto]);
      label.append(" ", button("set", "Set this value yourself instead", () => {
        this.automaticRow(row, argument, value, true);
        this.set(argument.name, [...value]);
      }));
      row.replaceChildren(label);
    }
  }

  set(name, value) {
    if (value == null) delete this.values[name]; else this.values[name] = value;
    this.updateZeroHint();
    this.onChange?.(name, value);
  }

  /** Shows the hint when the user-set numeric arguments are all zero (a likely blank image). */
  updateZeroHint() {
    if (!this.zeroHint) return;
    const numbers = Object.values(this.values).filter((v) => Array.isArray(v) && v.length);
    this.zeroHint.hidden = !(numbers.length && numbers.every((v) => v.every((x) => x === 0)));
  }

  sliders(argument, value) {
    const labels = value.length === 1 ? [""] : ["x", "y", "z", "w"].slice(0, value.length);
    const header = document.createElement("label");
    const output = document.createElement("output");
    header.append(argument.name, output);
    const box = document.createElement("div");
    if (value.length === 2) box.className = "pair";
    const show = () => (output.textContent = value.map((v) => +v.toFixed(3)).join(", "));
    value.forEach((component, i) => {
      const [min, max] = rangeFor(argument, component);
      const input = document.createElement("input");
      Object.assign(input, { type: "range", min, max, step: (max - min) / 1000, value: component });
      input.setAttribute("aria-label", `${argument.name}${labels[i] ? "." + labels[i] : ""}`);
      input.addEventListener("input", () => { value[i] = Number(input.value); show(); this.set(argument.name, [...value]); });
      box.append(input);
    });
    show();
    this.values[argument.name] = [...value];
    return [header, box];
  }

  colorField(argument, value) {
    const wrap = document.createElement("div");
    const label = document.createElement("label");
    const output = document.createElement("output");
    label.append(argument.name, output);
    const picker = document.createElement("input");
    picker.type = "color";
    picker.setAttribute("aria-label", `${argument.name} colour`);
    picker.value = "#" + value.slice(0, 3).map(toHex).join("");
    const alpha = document.createElement("input");
    const hasAlpha = value.length === 4;
    Object.assign(alpha, { type: "range", min: 0, max: 1, step: 0.01, value: hasAlpha ? value[3] : 1, hidden: !hasAlpha });
    alpha.setAttribute("aria-label", `${argument.name} opacity`);
    const update = () => {
      const rgb = [1, 3, 5].map((i) => parseInt(picker.value.slice(i, i + 2), 16) / 255);
      const next = hasAlpha ? [...rgb, Number(alpha.value)] : rgb;
      output.textContent = "#" + next.map(toHex).join("");
      this.set(argument.name, next);
    };
    picker.addEventListener("input", update);
    alpha.addEventListener("input", update);
    output.textContent = "#" + value.map(toHex).join("");
    this.values[argument.name] = [...value];
    wrap.append(label, picker, alpha);
    return wrap;
  }

  listField(argument, value) {
    const wrap = document.createElement("div");
    const label = document.createElement("label");
    label.textContent = `${argument.name} (comma-separated)`;
    const input = document.createElement("input");
    Object.assign(input, { type: "text", value: value.join(", ") });
    input.setAttribute("aria-label", argument.name);
    input.style.width = "100%";
    input.addEventListener("change", () => {
      const numbers = input.value.split(",").map(Number).filter((v) => Number.isFinite(v));
      if (numbers.length) this.set(argument.name, numbers);
    });
    this.values[argument.name] = value;
    wrap.append(label, input);
    return wrap;
  }
}
