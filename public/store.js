// The page's text and settings, kept in localStorage so a reload or a server restart
// loses nothing: on every (re)connect the page re-sends its source and resumes.

const STORAGE_KEY = "kiln.page.v1";

/** What the page remembers, with defaults for a first visit. */
export function loadState() {
  const saved = JSON.parse(localStorage.getItem(STORAGE_KEY) ?? "{}");
  return {
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
    client: saved.client ?? null,        // this browser's history key (history.js)
  };
}

export function saveState(state) {
  localStorage.setItem(STORAGE_KEY, JSON.stringify(state));
}
