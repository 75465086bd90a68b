// Taking the result away: download the current frame as a PNG, and copy a SwiftUI snippet
// that applies the shader with the current argument values.
import { swiftUISnippet } from "./snippet.js";

const $ = (id) => document.getElementById(id);

export class Actions {
  constructor({ frames, fileName, currentFunction, values }) {
    this.currentFunction = currentFunction;   // () => the selected function's report, or null
    this.values = values;                     // () => the argument values by name
    $("download").addEventListener("click", async () => {
      const blob = await frames.toBlob();
      const link = Object.assign(document.createElement("a"), { href: URL.createObjectURL(blob), download: `${fileName() ?? "kiln"}.png` });
      link.click();
      setTimeout(() => URL.revokeObjectURL(link.href), 1000);
    });
    $("snippet").addEventListener("click", async () => {
      this.updateSnippet();
      try { await navigator.clipboard.writeText($("snippet-text").textContent); $("snippet").textContent = "Copied"; }
      catch { $("snippet").textContent = "Select and copy below"; }
      setTimeout(() => ($("snippet").textContent = "Copy SwiftUI snippet"), 1500);
    });
  }

  updateSnippet() {
    $("snippet-text").textContent = swiftUISnippet(this.currentFunction(), this.values());
  }
}
