import KilnBytecode
import KilnRender
import KilnVM
import Testing

/// `kernel` functions previewed as a grid over the frame (docs/language.md §5.4): threads
/// exactly cover the frame in 8×8 threadgroups, writes go anywhere in the output texture
/// (outside is dropped), lanes past the grid's edge write nothing, the frame shows the
/// first writable texture, and other textures are the content. Expected pixels are
/// computed here from the thread positions, not by Kiln.
@Suite struct KernelTests {
    static let header = "#include <metal_stdlib>\nusing namespace metal;\n"

    static let gradient = header + """
        kernel void gradient(texture2d<half, access::write> out [[texture(0)]],
                             constant float &time [[buffer(0)]],
                             uint2 gid [[thread_position_in_grid]]) {
            if (gid.x >= out.get_width() || gid.y >= out.get_height()) return;
            float2 uv = float2(gid) / float2(out.get_width(), out.get_height());
            out.write(half4(half(uv.x), half(uv.y), half(time), 1.0h), gid);
        }
        """

    @Test func everyThreadWritesItsPixel() throws {
        // 37 × 21: neither side is a multiple of the 8 × 8 threadgroup.
        let image = try Draw.render(Self.gradient, "gradient", width: 37, height: 21, arguments: ["time": [0.25]], threads: 2)
        for y in 0..<21 {
            for x in 0..<37 {
                let expected = [Draw.level(Float(x) / 37), Draw.level(Float(y) / 21), Draw.level(0.25), 255]
                #expect(image.pixel(x, y) == expected, "pixel (\(x), \(y))")
            }
        }
    }

    /// `gid % grid` sends a lane past the right edge back to column 0: only masking those
    /// lanes off keeps column 0 showing thread 0's value.
    @Test func lanesPastTheGridWriteNothing() throws {
        let source = Self.header + """
            kernel void wrap(texture2d<float, access::write> out [[texture(0)]],
                             uint2 gid [[thread_position_in_grid]], uint2 grid [[threads_per_grid]]) {
                out.write(float4(float(gid.x) / 255.0, float(gid.y) / 255.0, 0.0, 1.0), gid % grid);
            }
            """
        let image = try Draw.render(source, "wrap", width: 13, height: 7)
        for y in 0..<7 {
            for x in 0..<13 { #expect(image.pixel(x, y) == [UInt8(x), UInt8(y), 0, 255], "pixel (\(x), \(y))") }
        }
    }

    @Test func threadsWriteAnywhereAndOutsideIsDropped() throws {
        // Each thread writes its colour to the mirrored pixel, and once more far outside.
        let source = Self.header + """
            kernel void mirror(texture2d<float, access::write> out [[texture(0)]],
                               uint2 gid [[thread_position_in_grid]]) {
                uint2 size = uint2(out.get_width(), out.get_height());
                float4 c = float4(float(gid.x) / 255.0, float(gid.y) / 255.0, 0.5, 1.0);
                out.write(c, size - 1 - gid);
                out.write(float4(1.0), gid + size);
            }
            """
        let image = try Draw.render(source, "mirror", width: 19, height: 10)
        for y in 0..<10 {
            for x in 0..<19 {
                #expect(image.pixel(x, y) == [UInt8(18 - x), UInt8(9 - y), 128, 255], "pixel (\(x), \(y))")
            }
        }
    }

    @Test func threadPositionsFollowTheThreadgroups() throws {
        let source = Self.header + """
            kernel void groups(texture2d<float, access::write> out [[texture(1)]],
                               uint2 gid [[thread_position_in_grid]],
                               ushort2 local [[thread_position_in_threadgroup]],
                               uint2 group [[threadgroup_position_in_grid]],
                               uint index [[thread_index_in_threadgroup]],
                               uint2 perGroup [[threads_per_threadgroup]],
                               uint2 groups [[threadgroups_per_grid]]) {
                bool consistent = all(gid == group * perGroup + uint2(local)) && index == uint(local.y) * perGroup.x + uint(local.x);
                out.write(float4(float(index) / 255.0, float(group.x * 16 + group.y) / 255.0,
                                 float(groups.x * 16 + groups.y) / 255.0, consistent ? 1.0 : 0.5), gid);
            }
            """
        let image = try Draw.render(source, "groups", width: 20, height: 9, threads: 2)
        for y in 0..<9 {
            for x in 0..<20 {
                let index = (y % 8) * 8 + x % 8
                #expect(image.pixel(x, y) == [UInt8(index), UInt8((x / 8) * 16 + y / 8), 3 * 16 + 2, 255], "pixel (\(x), \(y))")
            }
        }
    }

    @Test func readWriteTexturesReadWhatWasWritten() throws {
        let source = Self.header + """
            kernel void twice(texture2d<float, access::read_write> out [[texture(0)]],
                              uint2 gid [[thread_position_in_grid]]) {
                out.write(float4(0.25, 0.0, 0.0, 1.0), gid);
                float4 back = out.read(gid);
                out.write(float4(back.r * 2.0, 0.5, 0.0, 1.0), gid);
            }
            """
        let image = try Draw.render(source, "twice", width: 9, height: 9)
        #expect(image.pixel(0, 0) == [128, 128, 0, 255])
        #expect(image.pixel(8, 8) == [128, 128, 0, 255])
    }

    @Test func otherTexturesAreTheContent() throws {
        let content = Draw.texture(width: 12, height: 10) { x, y in (Float(x) / 16, Float(y) / 16, 0.5, 1) }
        let source = Self.header + """
            kernel void invert(texture2d<float, access::read> input [[texture(0)]],
                               texture2d<float, access::write> output [[texture(1)]],
                               uint2 gid [[thread_position_in_grid]]) {
                float4 c = input.read(gid);
                output.write(float4(1.0 - c.rgb, 1.0), gid);
            }
            """
        let image = try Draw.render(source, "invert", width: 12, height: 10, content: content)
        for (x, y) in [(0, 0), (11, 9), (5, 7)] {
            #expect(image.pixel(x, y) == [Draw.level(1 - Float(x) / 16), Draw.level(1 - Float(y) / 16), Draw.level(0.5), 255])
        }
    }

    @Test func unwrittenPixelsStayTransparentEveryFrame() throws {
        let source = Self.header + """
            kernel void half_only(texture2d<half, access::write> out [[texture(0)]],
                                  constant float &t [[buffer(0)]],
                                  uint2 gid [[thread_position_in_grid]]) {
                if (float(gid.x) < t) out.write(half4(1.0h), gid);
            }
            """
        let library = try compile(source)
        var request = RenderRequest(library: library, functionName: "half_only", width: 16, height: 4, arguments: ["t": [12]])
        let draw = try Renderer.prepare(request)
        let first = try draw.render()
        #expect(first.pixel(11, 0) == [255, 255, 255, 255])
        #expect(first.pixel(12, 3) == [0, 0, 0, 0])
        // A second frame from the same prepared draw starts from a clear texture again.
        request.arguments["t"] = [4]
        let second = try Renderer.prepare(request).render()
        #expect(second.pixel(4, 0) == [0, 0, 0, 0])
        #expect(try draw.render().bytes == first.bytes)
    }

    @Test func oneThreadOrManyGiveTheSameBytes() throws {
        let one = try Draw.render(Self.gradient, "gradient", width: 70, height: 45, threads: 1)
        let many = try Draw.render(Self.gradient, "gradient", width: 70, height: 45, threads: 3)
        #expect(one.bytes == many.bytes)
    }
}
