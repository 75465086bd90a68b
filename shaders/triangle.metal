// The "hello triangle" of Metal: a vertex function that reads three coloured
// vertices from a buffer and places them with a projection matrix, and a fragment
// function that returns the colour the rasterizer interpolated between them.
//
// Buffer 0 holds the vertices, buffer 1 the projection matrix (column-major, 16
// floats). Both structs use only 16-byte members, so Swift, Metal and Kiln all agree
// on their layout without padding rules.
#include <metal_stdlib>
using namespace metal;

struct Vertex {
    float4 position;                   // model space, w = 1
    float4 color;                      // premultiplied RGBA
};

struct RasterizerData {
    float4 position [[position]];      // clip space
    float4 color;                      // interpolated across the triangle
};

/// Transforms vertex `vertexID` of `vertices` by `projection` (identity by default).
/// For a preview, pass the vertices as floats, e.g. a red, green and blue corner:
///     kiln render triangle.metal --function triangleVertex \
///         --arg vertices=0,0.8,0,1,1,0,0,1,-0.8,-0.7,0,1,0,1,0,1,0.8,-0.7,0,1,0,0,1,1 -o triangle.png
/// @arg projection = 1,0,0,0, 0,1,0,0, 0,0,1,0, 0,0,0,1 "column-major 4x4 matrix"
vertex RasterizerData triangleVertex(uint vertexID [[vertex_id]],
                                     constant Vertex *vertices [[buffer(0)]],
                                     constant float4x4 &projection [[buffer(1)]]) {
    RasterizerData out;
    out.position = projection * vertices[vertexID].position;
    out.color = vertices[vertexID].color;
    return out;
}

/// The interpolated vertex colour.
fragment float4 triangleFragment(RasterizerData in [[stage_in]]) {
    return in.color;
}
