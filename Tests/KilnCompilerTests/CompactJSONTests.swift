import Foundation
import KilnCompiler
import KilnJSON
import Testing

/// `CompactJSON` writes what `JSONSerialization` writes (with `.withoutEscapingSlashes`),
/// keys aside: same numbers, same escapes, and the same value when read back.
@Suite struct CompactJSONTests {
    static func foundation(_ value: Any) -> String {
        String(decoding: try! JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .withoutEscapingSlashes]),
               as: UTF8.self)
    }

    /// Arrays keep their order, so the text must match Foundation's exactly.
    @Test func scalarsAreWrittenAsFoundationWritesThem() throws {
        let values: [Any] = [1.0, 0.2, 1e-7, 1e21, 1e15, 1e16, 123456789012345678.0, -0.0, 0.1 + 0.2, Double.leastNonzeroMagnitude,
                             1.7976931348623157e308, 2.5, 100.0, 3.0e-5, Float(0.2), Float(1e-7), Float(-0.0),
                             Float(16777216), Float(1e10), Float.leastNonzeroMagnitude, Int.max, Int.min, 0, -5,
                             true, false, NSNull(), UInt32(7), Int64(-3), UInt8(200),
                             "a\"b\\c\n\t\r\u{8}\u{c}\u{1}\u{1f}\u{0}\u{7f}é/\u{2028}x 😀", ""]
        for value in values {
            #expect(CompactJSON.serialize([value]) == Self.foundation([value]), "\(value)")
        }
        #expect(CompactJSON.serialize([Double.nan]) == nil && CompactJSON.serialize(["x": Float.infinity]) == nil)
    }

    /// Random nested messages read back to the same value as Foundation's text does.
    @Test func nestedValuesReadBackTheSame() throws {
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        func next() -> UInt64 { state ^= state << 13; state ^= state >> 7; state ^= state << 17; return state }
        func value(_ depth: Int) -> Any {
            switch next() % (depth > 3 ? 5 : 7) {
            case 0: return Double(bitPattern: next() & 0x3FFF_FFFF_FFFF_FFFF) * (next() & 1 == 0 ? 1 : -1)
            case 1: return Int(truncatingIfNeeded: next()) >> Int(next() % 60)
            case 2: return String((0..<Int(next() % 12)).map { _ in Character(Unicode.Scalar(UInt8(next() % 128))) })
            case 3: return next() & 1 == 0
            case 4: return NSNull()
            case 5: return (0..<Int(next() % 5)).map { _ in value(depth + 1) }
            default:
                var dictionary: [String: Any] = [:]
                for _ in 0..<Int(next() % 6) { dictionary["k\(next() % 100)\(next() & 1 == 0 ? "A" : "_b")"] = value(depth + 1) }
                return dictionary
            }
        }
        for _ in 0..<2_000 {
            let message: [String: Any] = ["type": "x", "body": value(0)]
            let mine = try #require(CompactJSON.serialize(message))
            let read = try JSONSerialization.jsonObject(with: Data(mine.utf8), options: [.fragmentsAllowed])
            let theirs = try JSONSerialization.jsonObject(with: Data(Self.foundation(message).utf8), options: [.fragmentsAllowed])
            #expect(Self.foundation(read) == Self.foundation(theirs), "\(mine)")
        }
    }

    /// Keys sort by `String` order, whatever the dictionary's.
    @Test func keysAreSorted() {
        #expect(CompactJSON.serialize(["b": 1, "a": ["z": 2, "B": 3], "a10": 0, "a9": 1] as [String: Any])
                == #"{"a":{"B":3,"z":2},"a10":0,"a9":1,"b":1}"#)
        // A client's id (decoded by Foundation: an NSNumber) is copied as Foundation writes it.
        let decoded = try! JSONSerialization.jsonObject(with: Data(#"{"id":7,"f":1.5,"t":true}"#.utf8)) as! [String: Any]
        #expect(CompactJSON.serialize(decoded) == #"{"f":1.5,"id":7,"t":true}"#)
    }
}
