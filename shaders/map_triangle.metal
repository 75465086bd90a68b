// The classic custom map layer: one triangle between three places on Earth, drawn by a
// vertex/fragment pair with the map camera's projection matrix.
//
// A scene's `custom` layer fills `vertices` from a vertices source whose first two floats
// are longitude and latitude (`"coordinates": "lonlat"`): the scene turns them into world
// (unit Web Mercator) coordinates, and binds the camera's world → clip matrix to
// `projection`, the float4x4 uniform nobody else sets. Zoom or pan the camera and the
// triangle stays on its three places.
#include <metal_stdlib>
using namespace metal;

struct MapVertex {
    float4 position;                   // xy: world coordinates (from lon/lat), zw unused
    float4 color;                      // straight RGBA
};

struct MapVaryings {
    float4 position [[position]];      // clip space
    float4 color;                      // interpolated across the triangle
};

/// Places vertex `vertexID` of `vertices` on the map.
vertex MapVaryings mapTriangleVertex(uint vertexID [[vertex_id]],
                                     constant MapVertex *vertices [[buffer(0)]],
                                     constant float4x4 &projection [[buffer(1)]]) {
    MapVaryings out;
    out.position = projection * float4(vertices[vertexID].position.xy, 0.0, 1.0);
    out.color = vertices[vertexID].color;
    return out;
}

/// The interpolated colour, premultiplied for blending over the map.
fragment float4 mapTriangleFragment(MapVaryings in [[stage_in]]) {
    return float4(in.color.rgb * in.color.a, in.color.a);
}
