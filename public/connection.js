// The WebSocket to `kiln serve`, with reconnection: exponential backoff from 250 ms to
// 5 s, and an `onopen` on every (re)connect so the page can re-send its state.

export class Connection {
  constructor(url, { onopen, onmessage, onstatus }) {
    this.url = url;
    this.onopen = onopen;
    this.onmessage = onmessage;
    this.onstatus = onstatus;
    this.delay = 250;
    this.nextID = 1;
    this.connect();
  }

  connect() {
    this.onstatus?.("connecting", "connecting…");
    const socket = new WebSocket(this.url);
    socket.binaryType = "arraybuffer";
    socket.onopen = () => {
      this.delay = 250;
      this.onstatus?.("ok", "connected");
      this.onopen?.();
    };
    socket.onmessage = (event) => this.onmessage?.(event.data);
    socket.onclose = (event) => {
      if (this.socket !== socket) return;
      const seconds = (this.delay / 1000).toFixed(1);
      this.onstatus?.("down", `server unreachable (${event.code || "no answer"}) — retrying in ${seconds} s`);
      setTimeout(() => this.connect(), this.delay);
      this.delay = Math.min(this.delay * 2, 5000);
    };
    this.socket = socket;
  }

  get isOpen() { return this.socket?.readyState === WebSocket.OPEN; }

  /** Sends a protocol message; returns its id (or null when offline: state is re-sent on reconnect). */
  send(message) {
    if (!this.isOpen) return null;
    const id = this.nextID++;
    this.socket.send(JSON.stringify({ id, ...message }));
    return id;
  }

  sendBinary(bytes) {
    if (this.isOpen) this.socket.send(bytes);
  }
}
