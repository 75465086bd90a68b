// The problems list under the editor: every diagnostic (and its notes) as an item that
// jumps to its line when clicked or activated with Enter, with a count of errors and
// warnings. Server text goes in as text, never as markup.

export class ProblemsList {
  constructor(list, count, reveal) {
    this.list = list;
    this.count = count;
    this.reveal = reveal;   // (line, column) => void
  }

  show(diagnostics) {
    this.list.replaceChildren();
    const errors = diagnostics.filter((d) => d.severity === "error").length;
    const warnings = diagnostics.filter((d) => d.severity === "warning").length;
    this.count.textContent = diagnostics.length
      ? `${errors} error${errors === 1 ? "" : "s"}, ${warnings} warning${warnings === 1 ? "" : "s"}` : "No problems";
    for (const d of diagnostics) {
      const item = document.createElement("li");
      item.className = d.severity;
      item.tabIndex = 0;
      const span = (className, text) => Object.assign(document.createElement("span"), { className, textContent: text });
      item.append(span("sev", d.severity), span("where", `${d.file}:${d.line}:${d.column}`), span("msg", d.message));
      const go = () => this.reveal(d.line, d.column);
      item.addEventListener("click", go);
      item.addEventListener("keydown", (e) => { if (e.key === "Enter") go(); });
      this.list.append(item);
      for (const note of d.notes ?? []) {
        const noteItem = document.createElement("li");
        noteItem.className = "note";
        noteItem.textContent = `note: ${note.message}`;
        if (note.line) noteItem.addEventListener("click", () => this.reveal(note.line, note.column ?? 1));
        this.list.append(noteItem);
      }
    }
  }
}
