// The preview clock's controls: play/pause (button and space bar on the stage), the scrub
// bar, speed and loop. The server owns the clock; these send `clock` messages and show
// what frames and `clock` replies say.

const LOOP_SECONDS = 10;
const $ = (id) => document.getElementById(id);

export class Transport {
  constructor({ state, persist, send }) {
    this.state = state;
    this.send = send;
    this.playing = true;
    $("play").addEventListener("click", () => this.toggle());
    $("stage").tabIndex = 0;
    $("stage").addEventListener("keydown", (e) => { if (e.key === " ") { e.preventDefault(); this.toggle(); } });
    $("scrub").addEventListener("input", (e) => send({ type: "clock", action: "seek", time: Number(e.target.value) }));
    $("speed").value = String(state.speed);
    $("speed").addEventListener("change", (e) => {
      state.speed = Number(e.target.value);
      persist();
      send({ type: "clock", action: "speed", speed: state.speed });
    });
    $("loop").checked = state.loop;
    $("loop").addEventListener("change", (e) => { state.loop = e.target.checked; persist(); });
    this.updateButton();
  }

  toggle() {
    this.playing = !this.playing;
    this.updateButton();
    this.send({ type: "clock", action: this.playing ? "play" : "pause" });
  }

  /** The server's `clock` reply. */
  clock(message) {
    this.playing = message.playing;
    this.updateButton();
  }

  /** The messages that restore this clock on a new preview. */
  restoreMessages() {
    const messages = [{ type: "clock", action: "speed", speed: Number(this.state.speed) }];
    if (!this.playing) messages.push({ type: "clock", action: "pause" });
    return messages;
  }

  /** Shows a frame's time; loops back to 0 after LOOP_SECONDS when looping. */
  frame(frame) {
    $("time").textContent = `${frame.time.toFixed(2)} s`;
    if (document.activeElement !== $("scrub")) $("scrub").value = frame.time % LOOP_SECONDS;
    if (this.state.loop && this.playing && frame.time >= LOOP_SECONDS) this.send({ type: "clock", action: "seek", time: 0 });
  }

  updateButton() {
    $("play").textContent = this.playing ? "❚❚" : "▶";
    $("play").setAttribute("aria-label", this.playing ? "Pause" : "Play");
  }
}
