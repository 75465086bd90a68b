import CKiln

/// PNG files through libpng's simplified API (`png_image`), which reports errors in the
/// image's message instead of `longjmp`ing — so no C control flow ever crosses Swift frames.
public enum PNG {
    /// Decodes any PNG libpng reads (palette, grey, 16-bit, interlaced…) to straight RGBA8.
    /// The header is checked against `limits` before the pixels are allocated.
    public static func decode(_ bytes: [UInt8], limits: RenderLimits = .default) throws(RenderError) -> RGBAImage {
        guard bytes.count <= limits.maxPNGBytes else {
            throw RenderError("PNG of \(bytes.count) bytes exceeds maxPNGBytes = \(limits.maxPNGBytes)")
        }
        guard bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) else {
            throw RenderError("not a PNG file (bad signature)")
        }
        // libpng reads from the buffer until finish_read, so both calls happen inside one
        // withUnsafeBytes.
        let result: Result<RGBAImage, RenderError> = bytes.withUnsafeBytes { input in
            var image = png_image()
            image.version = UInt32(PNG_IMAGE_VERSION)
            guard png_image_begin_read_from_memory(&image, input.baseAddress, input.count) != 0 else {
                return .failure(RenderError("invalid PNG: \(message(of: &image))"))
            }
            let width = Int(image.width), height = Int(image.height)
            do {
                try limits.check(width: width, height: height, what: "PNG")
            } catch {
                png_image_free(&image)
                return .failure(error as? RenderError ?? RenderError("\(error)"))
            }
            image.format = rgba
            // 16-bit files without gAMA/sRGB would otherwise be taken as linear light and
            // come out too bright.
            image.flags |= UInt32(PNG_IMAGE_FLAG_16BIT_sRGB)
            var pixels = [UInt8](repeating: 0, count: width * height * 4)
            let finished = pixels.withUnsafeMutableBytes { png_image_finish_read(&image, nil, $0.baseAddress, 0, nil) }
            guard finished != 0 else {
                let text = message(of: &image)
                png_image_free(&image)
                return .failure(RenderError("invalid PNG: \(text)"))
            }
            return .success(RGBAImage(width: width, height: height, bytes: pixels))
        }
        switch result {
        case .success(let image): return image
        case .failure(let error): throw error
        }
    }

    /// Encodes RGBA8 (stored as given: straight alpha for normal files).
    public static func encode(_ image: RGBAImage) throws(RenderError) -> [UInt8] {
        guard image.width > 0, image.height > 0, image.bytes.count == image.width * image.height * 4 else {
            throw RenderError("cannot encode a \(image.width)x\(image.height) image from \(image.bytes.count) bytes")
        }
        var info = png_image()
        info.version = UInt32(PNG_IMAGE_VERSION)
        info.width = UInt32(image.width)
        info.height = UInt32(image.height)
        info.format = rgba
        var size = 0
        // First call measures, second writes.
        let measured = image.bytes.withUnsafeBytes {
            png_image_write_to_memory(&info, nil, &size, 0, $0.baseAddress, 0, nil)
        }
        guard measured != 0, size > 0 else { throw RenderError("PNG encoding failed: \(message(of: &info))") }
        var output = [UInt8](repeating: 0, count: size)
        let written = output.withUnsafeMutableBytes { target in
            image.bytes.withUnsafeBytes { png_image_write_to_memory(&info, target.baseAddress, &size, 0, $0.baseAddress, 0, nil) }
        }
        guard written != 0 else { throw RenderError("PNG encoding failed: \(message(of: &info))") }
        return Array(output.prefix(size))
    }

    /// `PNG_FORMAT_RGBA` (a macro the importer cannot see through).
    private static let rgba = UInt32(PNG_FORMAT_FLAG_COLOR | PNG_FORMAT_FLAG_ALPHA)

    private static func message(of image: inout png_image) -> String {
        withUnsafeBytes(of: &image.message) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
    }
}
