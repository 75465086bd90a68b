// A parallax starfield: five layers of hashed grid stars, near ones bigger, brighter and
// faster than far ones, twinkling in front of a faint value-noise nebula.
#include <metal_stdlib>
using namespace metal;

static float hash21(float2 p) {
    p = fract(p * float2(123.34, 456.21));
    p += dot(p, p + 45.32);
    return fract(p.x * p.y);
}

static float noise(float2 p) {
    float2 i = floor(p);
    float2 f = fract(p);
    float2 u = f * f * (3.0 - 2.0 * f);
    return mix(mix(hash21(i), hash21(i + float2(1, 0)), u.x),
               mix(hash21(i + float2(0, 1)), hash21(i + float2(1, 1)), u.x), u.y);
}

static float fbm(float2 p) {
    float v = 0.0;
    float a = 0.5;
    for (int i = 0; i < 5; i++) {
        v += a * noise(p);
        p = p * 2.0 + float2(3.1, 1.7);
        a *= 0.5;
    }
    return v;
}

/// One layer of stars, at most one per grid cell. Neighbouring cells are searched too
/// because a star's glow spills over its cell's edge.
static float3 starLayer(float2 uv, float time) {
    float3 col = float3(0.0);
    float2 id = floor(uv);
    float2 gv = fract(uv) - 0.5;
    for (int y = -1; y <= 1; y++) {
        for (int x = -1; x <= 1; x++) {
            float2 offs = float2(float(x), float(y));
            float n = hash21(id + offs);
            float2 p = gv - offs - (float2(n, fract(n * 34.0)) - 0.5);
            float d = length(p);
            float size = fract(n * 345.32);
            // 1/d glow, plus two diffraction spikes on the biggest stars only.
            float star = 0.015 / d;
            float rays = max(0.0, 1.0 - abs(p.x * p.y * 1000.0));
            star += rays * 0.3 * smoothstep(0.8, 1.0, size);
            star *= smoothstep(0.6, 0.1, d);
            float twinkle = 0.6 + 0.4 * sin(time * (2.0 + 3.0 * fract(n * 72.9)) + n * 6.2831);
            // Hot blue, white and cool red stars from the same hash.
            float3 tint = sin(float3(0.2, 0.3, 0.9) * fract(n * 2345.2) * 123.2) * 0.5 + 0.5;
            tint = tint * float3(1.0, 0.5, 1.0 + size) + 0.3;
            col += star * size * size * tint * twinkle;
        }
    }
    return col;
}

/// Drifting through deep space.
/// @arg time 0...60 = 0 "seconds"
[[ stitchable ]] half4 starfield(float2 position, half4 color, float2 size, float time) {
    float2 uv = (position - 0.5 * size) / size.y;
    float2 drift = float2(0.35, 0.12);

    // The nebula is furthest away, so it barely moves.
    float2 np = uv * 2.5 + drift * time * 0.02;
    float neb = fbm(np + fbm(np * 0.7));
    float3 rgb = mix(float3(0.0, 0.0, 0.005), float3(0.07, 0.015, 0.1), smoothstep(0.35, 0.8, neb));
    rgb += float3(0.0, 0.03, 0.07) * smoothstep(0.5, 0.9, fbm(np * 1.7 - 4.0));

    const int layers = 5;
    for (int i = 0; i < layers; i++) {
        float depth = float(i) / float(layers - 1);          // 0 = far, 1 = near
        float scale = mix(22.0, 5.0, depth);
        // Parallax: apparent speed grows as the layer gets nearer.
        float speed = mix(0.03, 0.35, depth * depth);
        float2 p = uv * scale + drift * time * speed * scale + float(i) * 453.2;
        float fade = mix(0.35, 1.0, depth);
        rgb += starLayer(p, time) * fade;
    }
    rgb = pow(clamp(rgb, 0.0, 1.0), float3(0.4545));
    return half4(half3(rgb) * color.a, color.a);
}
