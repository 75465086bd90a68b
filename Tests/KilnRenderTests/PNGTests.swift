import Foundation
import KilnRender
import KilnTestSupport
import Testing

/// PNG decoding and encoding through libpng: the formats a user's content may come in, and
/// files built to hurt (the decoder must throw, never crash or allocate a gigapixel).
@Suite struct PNGTests {
    static func fixture(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: Paths.repository.appendingPathComponent("Tests/KilnRenderTests/Fixtures/\(name)")))
    }

    /// A PNG chunk: length, type, data, CRC-32 of type + data.
    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let body = Array(type.utf8) + data
        return bigEndian(UInt32(data.count)) + body + bigEndian(crc32(body))
    }

    static func bigEndian(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) } }

    /// CRC-32 as PNG defines it (polynomial 0xEDB88320, reflected).
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    static let sample: RGBAImage = {
        var bytes: [UInt8] = []
        for y in 0..<6 {
            for x in 0..<7 { bytes += [UInt8(x * 36), UInt8(y * 50), UInt8((x * y * 13) % 256), UInt8(255 - x * 20)] }
        }
        return RGBAImage(width: 7, height: 6, bytes: bytes)
    }()

    static func message(_ bytes: [UInt8], limits: RenderLimits = .default) -> String? {
        do {
            _ = try PNG.decode(bytes, limits: limits)
            return nil
        } catch {
            return error.message
        }
    }

    @Test func encodeThenDecodeGivesTheSameBytes() throws {
        let encoded = try PNG.encode(Self.sample)
        #expect(encoded.starts(with: Self.signature))
        #expect(try PNG.decode(encoded) == Self.sample)
    }

    /// The built-in rainbow, checker and gradient are the conformance PNGs, byte for byte.
    @Test(arguments: ["rainbow", "checker", "gradient"])
    func theConformanceContentDecodesLikeTheBuiltInContent(_ name: String) throws {
        let loaded = try loadPNG(Paths.conformance.appendingPathComponent("content/\(name).png"))
        let builtin = try #require(BuiltinContent.image(name, width: loaded.width, height: loaded.height))
        let differing = (0..<loaded.bytes.count).filter { loaded.bytes[$0] != builtin.bytes[$0] }
        #expect(differing.isEmpty, "\(differing.count) bytes differ, first at \(differing.prefix(4)): \(differing.prefix(4).map { (loaded.bytes[$0], builtin.bytes[$0]) })")
    }

    @Test func encodingAnImageOfTheWrongSizeIsAnError() {
        #expect(throws: RenderError.self) { try PNG.encode(RGBAImage(width: 2, height: 2, bytes: [1, 2, 3])) }
        #expect(throws: RenderError.self) { try PNG.encode(RGBAImage(width: 0, height: 0, bytes: [])) }
    }

    @Test func aPaletteImageWithTransparencyDecodesToRGBA() throws {
        // Fixtures/make_fixtures.py: index (x + y) % 4 of red, green, blue, half-transparent white.
        let image = try PNG.decode(try Self.fixture("palette.png"))
        let palette: [[UInt8]] = [[255, 0, 0, 255], [0, 255, 0, 255], [0, 0, 255, 255], [255, 255, 255, 128]]
        #expect(image.width == 5 && image.height == 3)
        for y in 0..<3 {
            for x in 0..<5 { #expect(image.pixel(x, y) == palette[(x + y) % 4]) }
        }
    }

    @Test func aGreyImageDecodesToOpaqueGrey() throws {
        let image = try PNG.decode(try Self.fixture("grey8.png"))
        for y in 0..<3 {
            for x in 0..<5 {
                let grey = UInt8((x * 50 + y * 10) % 256)
                #expect(image.pixel(x, y) == [grey, grey, grey, 255])
            }
        }
    }

    @Test func aSixteenBitImageDecodesWithoutAGammaShift() throws {
        // 16-bit samples v·257 must come out as v (no linear-light reinterpretation).
        let image = try PNG.decode(try Self.fixture("rgba16.png"))
        for y in 0..<3 {
            for x in 0..<5 { #expect(image.pixel(x, y) == [UInt8(x * 60), UInt8(y * 100), 7, 255]) }
        }
    }

    @Test func anInterlacedImageDecodesLikeAPlainOne() throws {
        let image = try PNG.decode(try Self.fixture("interlaced.png"))
        #expect(image.width == 9 && image.height == 9)
        for y in 0..<9 {
            for x in 0..<9 { #expect(image.pixel(x, y) == [UInt8(x * 28), UInt8(y * 28), UInt8((x * y) % 256), 255]) }
        }
    }

    @Test func aTruncatedFileIsAnError() throws {
        let encoded = try PNG.encode(Self.sample)
        for length in [0, 4, 8, 20, 33, encoded.count / 2, encoded.count - 13] {
            #expect(Self.message(Array(encoded.prefix(length))) != nil, "\(length) of \(encoded.count) bytes")
        }
    }

    @Test func aBadChecksumIsAnError() throws {
        var encoded = try PNG.encode(Self.sample)
        // The IHDR chunk's CRC is bytes 29…32 (signature 8 + length 4 + type 4 + data 13).
        encoded[30] ^= 0xFF
        #expect(Self.message(encoded) != nil)
        // And in the image data: flip the last byte of IDAT's CRC (just before the 12-byte IEND).
        var data = try PNG.encode(Self.sample)
        data[data.count - 13] ^= 0xFF
        #expect(Self.message(data) != nil)
    }

    @Test func aHugeHeaderIsRejectedBeforeAllocating() {
        // A valid header claiming 100000×100000 RGBA8 (40 GB of pixels) and no data.
        var header = Self.bigEndian(100_000) + Self.bigEndian(100_000)
        header += [8, 6, 0, 0, 0]
        let file = Self.signature + Self.chunk("IHDR", header) + Self.chunk("IDAT", []) + Self.chunk("IEND", [])
        let started = Date()
        let message = Self.message(file)
        #expect(message?.contains("maxDimension") == true, "\(message ?? "no error")")
        #expect(Date().timeIntervalSince(started) < 1)
        // Within maxDimension but over maxPixels.
        let wide = Self.signature + Self.chunk("IHDR", Self.bigEndian(16000) + Self.bigEndian(16000) + [8, 6, 0, 0, 0])
            + Self.chunk("IDAT", []) + Self.chunk("IEND", [])
        #expect(Self.message(wide)?.contains("maxPixels") == true)
    }

    @Test func anOversizedFileIsRejectedByItsLength() throws {
        var limits = RenderLimits()
        limits.maxPNGBytes = 64
        let encoded = try PNG.encode(Self.sample)
        #expect(Self.message(encoded, limits: limits)?.contains("maxPNGBytes") == true)
    }

    @Test func randomBytesNeverCrash() throws {
        var generator = SeededRandom(state: 0x5EED)
        let valid = try PNG.encode(Self.sample)
        for round in 0..<300 {
            let length = Int(generator.next() % 400)
            var bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            if round % 2 == 0 { bytes = Self.signature + bytes }          // get past the signature check
            _ = Self.message(bytes)
            // A valid file with a few bytes changed: usually a CRC error, sometimes decodable.
            var damaged = valid
            for _ in 0..<3 { damaged[8 + Int(generator.next() % UInt64(valid.count - 8))] = UInt8(truncatingIfNeeded: generator.next()) }
            if let image = try? PNG.decode(damaged) { #expect(image.bytes.count == image.width * image.height * 4) }
        }
        #expect(Self.message([1, 2, 3])?.contains("signature") == true)
    }
}

