// Metal syntax highlighting for the editor: one regular-expression tokenizer, HTML out.
// Diagnostics are woven in as wavy underlines over their (line, column) ranges.

const KEYWORDS = new Set(("if else for while do switch case default break continue return struct enum class " +
  "using namespace typedef const constexpr constant device thread threadgroup static inline template " +
  "vertex fragment kernel true false sizeof auto discard_fragment").split(" "));
const TYPE_RE = /^(bool|char|short|ushort|int|uint|half|float|void|sampler|texture2d|array|vec|packed_float[234]|(?:vector|simd)_(?:float|half|int|uint)[234]|(?:bool|short|ushort|int|uint|half|float)[234](?:x[234])?)$/;
const TOKEN_RE = /(\/\/[^\n]*|\/\*[\s\S]*?(?:\*\/|$))|(^[ \t]*#[^\n]*)|("(?:[^"\\\n]|\\.)*"?)|(\[\[|\]\])|(\b0[xX][0-9a-fA-F]+[uU]?\b|(?:\b\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?[fFhHuU]?)|([A-Za-z_]\w*)/gm;

export function escapeHTML(text) {
  return text.replace(/[&<>]/g, (c) => (c === "&" ? "&amp;" : c === "<" ? "&lt;" : "&gt;"));
}

/** Returns the class of a token, or "" for plain text. */
function classify(match, text, end) {
  if (match[1]) return "tok-com";
  if (match[2]) return "tok-pp";
  if (match[3]) return "tok-str";
  if (match[4]) return "tok-attr";
  if (match[5]) return "tok-num";
  const word = match[6];
  if (KEYWORDS.has(word)) return "tok-kw";
  if (TYPE_RE.test(word) || word === "Layer" || word === "SwiftUI" || word === "metal") return "tok-type";
  if (/^\s*\(/.test(text.slice(end, end + 4))) return "tok-fn";
  return "";
}

/**
 * Highlights `text`; `marks` is a list of {start, end, severity} byte-free character
 * offsets to underline. Returns HTML.
 */
export function highlight(text, marks = []) {
  // Split into classed segments first, then cut them at mark boundaries.
  const segments = [];
  let last = 0;
  TOKEN_RE.lastIndex = 0;
  for (let match; (match = TOKEN_RE.exec(text)); ) {
    if (match[0].length === 0) { TOKEN_RE.lastIndex++; continue; }
    if (match.index > last) segments.push([last, match.index, ""]);
    segments.push([match.index, match.index + match[0].length, classify(match, text, match.index + match[0].length)]);
    last = match.index + match[0].length;
  }
  if (last < text.length) segments.push([last, text.length, ""]);

  const cuts = new Set([0, text.length]);
  for (const m of marks) { cuts.add(m.start); cuts.add(m.end); }
  const sortedCuts = [...cuts].sort((a, b) => a - b);
  let html = "";
  let cutIndex = 0;
  for (const [start, end, cls] of segments) {
    let position = start;
    while (sortedCuts[cutIndex] <= position && cutIndex < sortedCuts.length) cutIndex++;
    while (position < end) {
      const next = Math.min(end, cutIndex < sortedCuts.length ? sortedCuts[cutIndex] : end);
      const piece = escapeHTML(text.slice(position, next));
      const mark = marks.find((m) => m.start <= position && position < m.end);
      let classes = cls;
      if (mark) classes += (classes ? " " : "") + "squiggle" + (mark.severity === "warning" ? " warning" : "");
      html += classes ? `<span class="${classes}">${piece}</span>` : piece;
      position = next;
      if (next === sortedCuts[cutIndex]) cutIndex++;
    }
  }
  // A trailing newline needs a visible line for the pre to match the textarea's height.
  return html + "\n";
}
