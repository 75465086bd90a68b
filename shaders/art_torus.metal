// A sphere-traced scene: a tumbling torus smooth-unioned with a rounded box, floating
// over a checkered floor, with soft shadows, a specular highlight and distance fog.
#include <metal_stdlib>
using namespace metal;

static float2x2 rot(float a) { float c = cos(a), s = sin(a); return float2x2(c, s, -s, c); }

static float sdTorus(float3 p, float2 t) { return length(float2(length(p.xz) - t.x, p.y)) - t.y; }

static float sdRoundBox(float3 p, float3 b, float r) {
    float3 q = abs(p) - b;
    return length(max(q, 0.0)) + min(max(q.x, max(q.y, q.z)), 0.0) - r;
}

/// Polynomial smooth minimum: blends the two shapes within distance k of each other.
static float smin(float a, float b, float k) {
    float h = clamp(0.5 + 0.5 * (b - a) / k, 0.0, 1.0);
    return mix(b, a, h) - k * h * (1.0 - h);
}

/// Distance to the scene in x, and which surface is nearest in y (0 floor, 1 shape).
static float2 map(float3 p, float time) {
    float3 q = p - float3(0.0, 1.3, 0.0);
    q.xz = rot(time * 0.7) * q.xz;
    q.xy = rot(time * 0.45) * q.xy;
    float d = smin(sdTorus(q, float2(0.8, 0.22)), sdRoundBox(q, float3(0.28), 0.06), 0.35);
    return d < p.y ? float2(d, 1.0) : float2(p.y, 0.0);
}

static float3 calcNormal(float3 p, float time) {
    const float e = 0.001;
    return normalize(float3(map(p + float3(e, 0, 0), time).x - map(p - float3(e, 0, 0), time).x,
                            map(p + float3(0, e, 0), time).x - map(p - float3(0, e, 0), time).x,
                            map(p + float3(0, 0, e), time).x - map(p - float3(0, 0, e), time).x));
}

/// Soft shadow (Iñigo Quilez): how closely the shadow ray grazes the occluder sets the
/// penumbra, for the price of the march we would do for a hard shadow anyway.
static float softShadow(float3 ro, float3 rd, float time) {
    float res = 1.0;
    float t = 0.02;
    for (int i = 0; i < 24; i++) {
        float h = map(ro + rd * t, time).x;
        res = min(res, 8.0 * h / t);
        t += clamp(h, 0.02, 0.3);
        if (res < 0.001 || t > 6.0) break;
    }
    return clamp(res, 0.0, 1.0);
}

/// A torus fused with a box, tumbling slowly over a floor; the camera orbits.
/// @arg time 0...60 = 0 "seconds"
[[ stitchable ]] half4 torusScene(float2 position, half4 color, float2 size, float time) {
    // Pixels are y-down in SwiftUI; flip so up is up in the scene.
    float2 uv = (position - 0.5 * size) / size.y * float2(1.0, -1.0);
    float angle = time * 0.2;
    float3 ro = float3(4.5 * sin(angle), 2.2, 4.5 * cos(angle));
    float3 ta = float3(0.0, 1.0, 0.0);
    float3 fw = normalize(ta - ro);
    float3 rt = normalize(cross(fw, float3(0, 1, 0)));
    float3 up = cross(rt, fw);
    float3 rd = normalize(uv.x * rt + uv.y * up + 1.6 * fw);

    float3 sky = mix(float3(0.75, 0.8, 0.9), float3(0.3, 0.45, 0.75), clamp(rd.y * 2.0, 0.0, 1.0));
    float t = 0.0;
    bool hit = false;
    for (int i = 0; i < 80; i++) {
        float d = map(ro + rd * t, time).x;
        if (d < 0.001 * t) { hit = true; break; }
        t += d;
        if (t > 20.0) break;
    }
    float3 rgb = sky;
    if (hit) {
        float3 p = ro + rd * t;
        float3 n = calcNormal(p, time);
        float3 light = normalize(float3(0.6, 0.8, 0.4));
        float3 albedo = float3(0.9, 0.35, 0.15);
        if (map(p, time).y < 0.5) {
            float2 c = floor(p.xz * 1.5);
            albedo = float3(0.25 + 0.35 * abs(fmod(c.x + c.y, 2.0)));
        }
        float diffuse = max(dot(n, light), 0.0) * softShadow(p + n * 0.002, light, time);
        float3 h = normalize(light - rd);
        float spec = pow(max(dot(n, h), 0.0), 48.0) * diffuse;
        float skyLight = 0.5 + 0.5 * n.y;
        rgb = albedo * (1.1 * diffuse * float3(1.0, 0.95, 0.85) + 0.25 * skyLight * float3(0.5, 0.6, 0.8));
        rgb += 0.6 * spec;
        // Exponential fog towards the sky colour hides the floor's far edge.
        rgb = mix(rgb, sky, 1.0 - exp(-0.01 * t * t));
    }
    rgb = pow(rgb, float3(0.4545));
    return half4(half3(rgb) * color.a, color.a);
}
