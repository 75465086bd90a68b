// The gallery menu: the server's example shaders (or, in scene mode, example scenes),
// and fetching one to open in the editor.

/** Fills `select` with the examples of the current mode. */
export async function loadGallery(select, mode) {
  select.replaceChildren(new Option(mode === "scene" ? "Scenes…" : "Examples…", ""));
  try {
    const route = mode === "scene" ? "scenes" : "shaders";
    const response = await fetch(`/${route}`);
    const list = (await response.json())[route];
    for (const file of list.filter((f) => f.name.endsWith(mode === "scene" ? ".json" : ".metal"))) {
      select.append(new Option(file.name, file.name));
    }
  } catch { /* offline: the editor still works with what it has */ }
}

/** The text of an example shader or scene, or null when the server has none by that name. */
export async function fetchExample(mode, name) {
  const response = await fetch(`/${mode === "scene" ? "scenes" : "shaders"}/${encodeURIComponent(name)}`);
  return response.ok ? response.text() : null;
}
