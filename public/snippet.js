// A ready-to-paste SwiftUI snippet that applies the selected function with the current
// argument values (Shader.Argument cases: .float, .float2, .color, .floatArray, .image,
// .boundingRect).

const fmt = (v) => String(+Number(v).toFixed(4));

function argumentExpression(argument, value, previous) {
  const name = argument.name;
  if ((name === "time" || name === "t") && argument.type.match(/^(float|half)$/)) return ".float(time)";
  if ((name === "bounds" || name === "rect") && /4$/.test(argument.type)) return ".boundingRect";
  if ((name === "size" || name === "resolution") && /2$/.test(argument.type)) return ".float2(proxy.size)";
  if (argument.binding === "texture") return `.image(Image("${name}"))`;
  if (argument.binding === "buffer") return `.floatArray([${(value ?? []).map(fmt).join(", ")}])`;
  if (previous?.binding === "buffer" && /int/.test(argument.type)) return null; // SwiftUI passes the count
  const v = value ?? [];
  if (/^half[34]$/.test(argument.type) || /colou?r|tint/i.test(name) && /[34]$/.test(argument.type)) {
    return `.color(Color(red: ${fmt(v[0] ?? 0)}, green: ${fmt(v[1] ?? 0)}, blue: ${fmt(v[2] ?? 0)}, opacity: ${fmt(v[3] ?? 1)}))`;
  }
  const n = v.length || 1;
  return n === 1 ? `.float(${fmt(v[0] ?? 0)})` : `.float${n}(${v.map(fmt).join(", ")})`;
}

export function swiftUISnippet(fn, values) {
  if (!fn) return "";
  const args = fn.arguments
    .map((a, i) => argumentExpression(a, values[a.name], fn.arguments[i - 1]))
    .filter(Boolean)
    .join(", ");
  const shader = `ShaderLibrary.${fn.name}(${args})`;
  const usesTime = fn.arguments.some((a) => a.name === "time" || a.name === "t");
  let body;
  switch (fn.kind) {
    case "distortion": body = `content\n    .distortionEffect(${shader}, maxSampleOffset: CGSize(width: 40, height: 40))`; break;
    case "color": body = `content\n    .colorEffect(${shader})`; break;
    case "layer": body = `content\n    .layerEffect(${shader}, maxSampleOffset: CGSize(width: 40, height: 40))`; break;
    case "shape": body = `Rectangle()\n    .fill(${shader})`; break;
    case "kernel":
      return `// '${fn.name}' is a Metal compute kernel: dispatch one thread per pixel of its output texture\n` +
        `let pipeline = try device.makeComputePipelineState(function: library.makeFunction(name: "${fn.name}")!)\n` +
        `encoder.setComputePipelineState(pipeline)\n` +
        `encoder.dispatchThreads(MTLSize(width: output.width, height: output.height, depth: 1),\n` +
        `                        threadsPerThreadgroup: MTLSize(width: 8, height: 8, depth: 1))`;
    default:
      return `// '${fn.name}' is a Metal ${fn.kind} function: use it in an MTLRenderPipelineDescriptor\n` +
        `let function = library.makeFunction(name: "${fn.name}")`;
  }
  if (usesTime) {
    body = `TimelineView(.animation) { context in\n    let time = Float(context.date.timeIntervalSince(start))\n    ${body.replace(/\n/g, "\n    ")}\n}`;
  }
  if (fn.arguments.some((a) => a.name === "size" || a.name === "resolution")) {
    body = `GeometryReader { proxy in\n    ${body.replace(/\n/g, "\n    ")}\n}`;
  }
  return body;
}
