// What the preview draws on and how big: the content picker (built-ins or an uploaded
// PNG, by file picker or drag and drop onto the stage) and the size picker ("fit" follows
// the window). The last upload is kept so a reconnect, which finds a server that forgot
// it, can send it again.

const $ = (id) => document.getElementById(id);

export class ContentPicker {
  constructor({ state, persist, send, sendBinary, showOverlay }) {
    this.state = state;
    this.persist = persist;
    this.send = send;
    this.sendBinary = sendBinary;
    this.showOverlay = showOverlay;
    this.uploadedImage = null;

    $("content").value = state.content;
    $("content").addEventListener("change", (e) => {
      if (e.target.value === "upload") { $("upload").click(); return; }
      state.content = e.target.value;
      persist();
      send({ type: "preview.update", content: state.content });
    });
    $("size").value = state.size;
    $("size").addEventListener("change", (e) => {
      state.size = e.target.value;
      persist();
      send({ type: "preview.update", size: this.previewSize() });
    });
    window.addEventListener("resize", () => {
      if (state.size === "fit") send({ type: "preview.update", size: this.previewSize() });
    });
    $("upload").addEventListener("change", (e) => this.upload(e.target.files[0]));
    const stage = $("stage");
    stage.addEventListener("dragover", (e) => { e.preventDefault(); stage.classList.add("dragging"); });
    stage.addEventListener("dragleave", () => stage.classList.remove("dragging"));
    stage.addEventListener("drop", (e) => {
      e.preventDefault();
      stage.classList.remove("dragging");
      this.upload(e.dataTransfer.files[0]);
    });
  }

  /** The preview size in pixels: the chosen side, or for "fit" the stage's size. */
  previewSize() {
    if (this.state.size !== "fit") return [Number(this.state.size), Number(this.state.size)];
    const box = $("stage").getBoundingClientRect();
    const side = Math.min(2048, Math.round(Math.min(box.width - 32, window.innerHeight * 0.6) * (window.devicePixelRatio || 1)));
    return [Math.max(64, side), Math.max(64, side)];
  }

  async upload(file) {
    if (!file || file.type !== "image/png") { this.showOverlay("Only PNG images can be uploaded."); return; }
    this.uploadedImage = await file.arrayBuffer();
    this.sendUpload();
  }

  sendUpload() {
    this.send({ type: "content.upload", slot: "content" });
    this.sendBinary(this.uploadedImage);
  }

  /** After a reconnect: re-send the upload, or fall back to a built-in if there is none. */
  restore() {
    if (this.state.content !== "upload") return;
    if (this.uploadedImage) { this.sendUpload(); return; }
    this.state.content = "rainbow";
    $("content").value = "rainbow";
    this.persist();
  }

  /** The server's `content.uploaded` reply. */
  uploaded() {
    $("content").value = "upload";
    this.state.content = "upload";
    this.persist();
  }
}
