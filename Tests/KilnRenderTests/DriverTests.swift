import KilnRender
import KilnVM
import Testing

/// Each kind's driver: what it writes into the inputs, where it reads the result, and how
/// arguments are bound (docs/rendering.md).
@Suite struct DriverTests {
    /// 4×3 content whose texels are all different, in exact multiples of 1/255.
    static let content = Draw.texture(width: 4, height: 3) { x, y in
        (Float(40 * x + 10) / 255, Float(60 * y + 20) / 255, Float(5 * (x + y)) / 255, 1)
    }

    @Test func distortionSamplesTheContentAtTheReturnedPosition() throws {
        let source = """
        #include <metal_stdlib>
        using namespace metal;
        [[ stitchable ]] float2 shift(float2 position) { return position + float2(1, 0); }
        """
        let image = try Draw.render(source, "shift", content: Self.content)
        // Effects render at their content's size, whatever the request says.
        #expect(image.width == 4 && image.height == 3)
        for y in 0..<3 {
            for x in 0..<3 {
                #expect(image.pixel(x, y) == [UInt8(40 * (x + 1) + 10), UInt8(60 * y + 20), UInt8(5 * (x + 1 + y)), 255])
            }
            // Reading past the right edge samples the transparent border.
            #expect(image.pixel(3, y) == [0, 0, 0, 0])
        }
    }

    @Test func distortionBetweenTexelsIsBilinearWithATransparentBorder() throws {
        let source = """
        #include <metal_stdlib>
        using namespace metal;
        [[ stitchable ]] float2 half_left(float2 position) { return position - float2(0.5, 0); }
        """
        let image = try Draw.render(source, "half_left", content: Self.content)
        // Halfway between texel x-1 and x: their average; column 0 averages with transparent black.
        #expect(image.pixel(2, 0)[0] == UInt8(((Float(50) + Float(90)) / 2 / 255 * 255 + 0.5).rounded(.down)))
        #expect(image.pixel(0, 0) == [5, 10, 0, 128])
    }

    @Test func colorEffectGetsTheExactPremultipliedPixel() throws {
        let straight = RGBAImage(width: 2, height: 1, bytes: [200, 100, 50, 128, 10, 20, 30, 255])
        let source = """
        #include <metal_stdlib>
        using namespace metal;
        [[ stitchable ]] half4 same(float2 position, half4 color) { return color; }
        """
        let image = try Draw.render(source, "same", content: straight.premultipliedTexture())
        let a: Float = 128 / 255
        #expect(image.pixel(0, 0) == [Draw.level(200 / 255 * a), Draw.level(100 / 255 * a), Draw.level(50 / 255 * a), 128])
        #expect(image.pixel(1, 0) == [10, 20, 30, 255])
    }

    @Test func layerSamplesTheContentBilinearly() throws {
        let source = """
        #include <metal_stdlib>
        #include <SwiftUI/SwiftUI_Metal.h>
        using namespace metal;
        [[ stitchable ]] half4 look(float2 position, SwiftUI::Layer layer) {
            return layer.sample(position + float2(0.5, 1));
        }
        """
        let image = try Draw.render(source, "look", content: Self.content)
        // One row down, halfway to the next texel to the right.
        for x in 0..<3 {
            let red = (Float(40 * x + 10) + Float(40 * (x + 1) + 10)) / 2
            #expect(image.pixel(x, 0)[0] == Draw.level(red / 255))
            #expect(image.pixel(x, 0)[1] == 80)
        }
        // The bottom row reads below the content: transparent.
        #expect(image.pixel(1, 2) == [0, 0, 0, 0])
    }

    @Test func shapeRendersAtTheRequestedSize() throws {
        let source = """
        #include <metal_stdlib>
        using namespace metal;
        [[ stitchable ]] half4 ramp(float2 position) { return half4(position.x / 8, position.y / 4, 0, 1); }
        """
        let image = try Draw.render(source, "ramp", width: 7, height: 5)
        #expect(image.width == 7 && image.height == 5 && image.bytes.count == 7 * 5 * 4)
        for (x, y) in [(0, 0), (3, 2), (6, 4)] {
            #expect(image.pixel(x, y) == [Draw.level((Float(x) + 0.5) / 8), Draw.level((Float(y) + 0.5) / 4), 0, 255])
        }
    }

    static let fragmentHeader = """
    #include <metal_stdlib>
    using namespace metal;
    struct Varyings {
        float4 position [[position]];
        float2 uv;
    };
    """

    @Test func fragmentPassPositionIsThePixelCentreWithZeroDepthAndUnitW() throws {
        let source = Self.fragmentHeader + """
        fragment float4 where(Varyings in [[stage_in]]) {
            return float4(in.position.x / 16, in.position.y / 16, in.position.z + 0.5, in.position.w * 0.25);
        }
        """
        let image = try Draw.render(source, "where", width: 12, height: 9)
        for (x, y) in [(0, 0), (5, 7), (11, 8)] {
            #expect(image.pixel(x, y) == [Draw.level((Float(x) + 0.5) / 16), Draw.level((Float(y) + 0.5) / 16), 128, 64])
        }
    }

    @Test func fragmentPassUVIsPositionOverSize() throws {
        let source = Self.fragmentHeader + """
        fragment float4 coordinates(Varyings in [[stage_in]]) { return float4(in.uv, 0, 1); }
        """
        let image = try Draw.render(source, "coordinates", width: 10, height: 20)
        for (x, y) in [(0, 0), (4, 13), (9, 19)] {
            #expect(image.pixel(x, y) == [Draw.level((Float(x) + 0.5) / 10), Draw.level((Float(y) + 0.5) / 20), 0, 255])
        }
    }

    @Test func discardedFragmentsStayTransparentBlack() throws {
        let source = Self.fragmentHeader + """
        fragment float4 rightHalf(Varyings in [[stage_in]]) {
            if (in.position.x < 4) {
                discard_fragment();
            }
            return float4(1, 1, 1, 1);
        }
        """
        let image = try Draw.render(source, "rightHalf", width: 8, height: 2)
        for y in 0..<2 {
            for x in 0..<8 { #expect(image.pixel(x, y) == (x < 4 ? [0, 0, 0, 0] : [255, 255, 255, 255])) }
        }
    }

    static let automatic = """
    #include <metal_stdlib>
    using namespace metal;
    /// @arg time 0...10 = 2 "seconds"
    [[ stitchable ]] half4 clock(float2 position, float time, float4 bounds, float2 size) {
        return half4(time / 10, bounds.z / 100, size.y / 100, (bounds.x + bounds.y) * 0.5 + 0.5);
    }
    """

    @Test func timeBoundsAndSizeAreBoundAutomatically() throws {
        let image = try Draw.render(Self.automatic, "clock", width: 40, height: 50, time: 3)
        // bounds = (0, 0, 40, 50), size = (40, 50), time = the preview clock.
        #expect(image.pixel(0, 0) == [Draw.level(0.3), Draw.level(0.4), Draw.level(0.5), 128])
    }

    @Test func withoutAClockTimeTakesItsDefaultAndGivenValuesWin() throws {
        let defaulted = try Draw.render(Self.automatic, "clock", width: 40, height: 50)
        #expect(defaulted.pixel(0, 0)[0] == Draw.level(0.2))
        let given = try Draw.render(Self.automatic, "clock", width: 40, height: 50,
                                    arguments: ["time": [7], "bounds": [0, 0, 20, 0], "size": [0, 90]], time: 3)
        #expect(given.pixel(0, 0) == [Draw.level(0.7), Draw.level(0.2), Draw.level(0.9), 128])
    }

    static let weights = """
    #include <metal_stdlib>
    using namespace metal;
    [[ stitchable ]] half4 weigh(float2 position, device const float *w, int count) {
        float sum = 0;
        for (int i = 0; i < count; i++) {
            sum += w[i];
        }
        return half4(float(count) / 10, sum / 10, 0, 1);
    }
    """

    @Test func anArraysCountIsFilledAutomatically() throws {
        let image = try Draw.render(Self.weights, "weigh", width: 1, height: 1, arguments: ["w": [1, 2, 3]])
        #expect(image.pixel(0, 0) == [Draw.level(0.3), Draw.level(0.6), 0, 255])
    }

    @Test func anArraysCountCanBeOverridden() throws {
        let image = try Draw.render(Self.weights, "weigh", width: 1, height: 1, arguments: ["w": [1, 2, 3], "count": [2]])
        #expect(image.pixel(0, 0) == [Draw.level(0.2), Draw.level(0.3), 0, 255])
    }

    static let offset = """
    #include <metal_stdlib>
    using namespace metal;
    [[ stitchable ]] half4 tint(float2 position, float2 offset) { return half4(offset.x, offset.y, 0, 1); }
    """

    @Test func aWrongComponentCountIsAClearError() {
        let message = Draw.failure { try Draw.render(Self.offset, "tint", arguments: ["offset": [1, 2, 3]]) }
        #expect(message?.contains("'offset'") == true)
        #expect(message?.contains("takes 2 values, got 3") == true)
    }

    @Test func anUnknownArgumentNameIsAClearError() {
        let message = Draw.failure { try Draw.render(Self.offset, "tint", arguments: ["ofset": [1, 2]]) }
        #expect(message?.contains("no argument called 'ofset'") == true)
        #expect(message?.contains("offset") == true)   // and it lists the real ones
    }

    @Test func aValueForAnInputTheRendererBindsIsAClearError() {
        let source = """
        #include <metal_stdlib>
        using namespace metal;
        [[ stitchable ]] half4 same(float2 position, half4 color) { return color; }
        """
        let message = Draw.failure { try Draw.render(source, "same", content: Self.content, arguments: ["color": [1, 0, 0, 1]]) }
        #expect(message?.contains("'color'") == true && message?.contains("bound by the renderer") == true)
    }

    @Test func anUnknownFunctionIsAClearError() {
        let message = Draw.failure { try Draw.render(Self.offset, "tnit") }
        #expect(message?.contains("no function 'tnit'") == true)
    }

    @Test func anEffectWithoutContentIsAClearError() {
        let source = """
        #include <metal_stdlib>
        using namespace metal;
        [[ stitchable ]] half4 same(float2 position, half4 color) { return color; }
        """
        let message = Draw.failure { try Draw.render(source, "same") }
        #expect(message?.contains("needs content") == true)
    }

    @Test func anUnsetMatrixIsTheIdentity() throws {
        // Stitchable functions cannot take matrices (SwiftUI has no way to pass one); fragment
        // functions can, through `constant T &`.
        let source = Self.fragmentHeader + """
        fragment float4 matrix(Varyings in [[stage_in]], constant float2x2 &m [[buffer(0)]],
                               constant float3x3 &n [[buffer(1)]]) {
            return float4(m[0][0] * n[1][1], m[0][1] + n[0][1], m[1][0] + n[2][1], m[1][1] * n[2][2]);
        }
        """
        let identity = try Draw.render(source, "matrix", width: 1, height: 1)
        #expect(identity.pixel(0, 0) == [255, 0, 0, 255])
        // A given matrix is used as given (column-major).
        let given = try Draw.render(source, "matrix", width: 1, height: 1, arguments: ["m": [0.5, 0.25, 0.75, 1]])
        #expect(given.pixel(0, 0) == [Draw.level(0.5), Draw.level(0.25), Draw.level(0.75), 255])
    }
}
