/// The one place diagnostics become text: clang's format for people, JSON for tools.
///
/// Text (per diagnostic, then each of its notes the same way):
/// ```
/// wave.metal:6:12: error: use of undeclared identifier 'amplitud'; did you mean 'amplitude'?
///     p.y += amplitud * sin(p.x);
///            ^~~~~~~~
///            amplitude
/// ```
/// The caret sits under the range's first byte and `~` under the rest of the range on
/// that line; a fix-it's replacement goes on the next line at its column. Tabs expand to
/// the next multiple of `tabStop` columns, and a UTF-8 sequence counts as one column, in
/// the source line and the marker lines alike, so markers stay aligned.
public enum DiagnosticRenderer {
    /// Tab stop used when echoing source lines (clang's default).
    public static let tabStop = 8

    /// Clang-style text of `diagnostics`; ANSI colors when `color` is set.
    public static func text(_ diagnostics: [Diagnostic], files: [SourceFile], color: Bool = false) -> String {
        var output = ""
        for diagnostic in diagnostics {
            render(severity: diagnostic.severity, message: diagnostic.message, range: diagnostic.range,
                   fixIt: diagnostic.fixIt, files: files, color: color, into: &output)
            for note in diagnostic.notes {
                render(severity: .note, message: note.message, range: note.range, fixIt: nil,
                       files: files, color: color, into: &output)
            }
        }
        return output
    }

    private enum Style: String {
        case bold = "\u{1B}[1m"
        case red = "\u{1B}[1;31m"
        case magenta = "\u{1B}[1;35m"
        case black = "\u{1B}[1;30m"
        case green = "\u{1B}[1;32m"
        case reset = "\u{1B}[0m"
    }

    private static func render(severity: Diagnostic.Severity, message: String, range: SourceRange?,
                               fixIt: Diagnostic.FixIt?, files: [SourceFile], color: Bool, into output: inout String) {
        func styled(_ text: String, _ style: Style) -> String {
            color ? style.rawValue + text + Style.reset.rawValue : text
        }
        let severityStyle: Style = severity == .error ? .red : severity == .warning ? .magenta : .black
        guard let range, files.indices.contains(range.start.file) else {
            output += styled(severity.rawValue + ":", severityStyle) + " " + styled(message, .bold) + "\n"
            return
        }
        let file = files[range.start.file]
        let start = range.start
        output += styled("\(file.name):\(start.line):\(start.column):", .bold) + " "
            + styled(severity.rawValue + ":", severityStyle) + " " + styled(message, .bold) + "\n"

        let lineBytes = Array(file.lineText(start.line).utf8)
        let columns = displayColumns(lineBytes)
        output += expandTabs(lineBytes) + "\n"

        // Marker line: caret at the start, tildes under the rest of the range on this line.
        let startByte = min(max(start.column - 1, 0), lineBytes.count)
        var endByte = startByte + 1
        if range.end.file == start.file {
            endByte = range.end.line == start.line ? max(range.end.column - 1, startByte + 1) : lineBytes.count
        }
        endByte = min(endByte, lineBytes.count)
        let caretColumn = columns[startByte]
        var marker = [Character](repeating: " ", count: caretColumn)
        marker.append("^")
        if endByte > startByte + 1 {
            let endColumn = columns[endByte]
            while marker.count < endColumn { marker.append("~") }
        }
        output += styled(String(marker), .green) + "\n"

        if let fixIt, fixIt.range.start.file == start.file, fixIt.range.start.line == start.line,
           !fixIt.replacement.contains("\n") {
            let fixByte = min(max(fixIt.range.start.column - 1, 0), lineBytes.count)
            output += styled(String(repeating: " ", count: columns[fixByte]) + fixIt.replacement, .green) + "\n"
        }
    }

    /// Display column of each byte offset of `line` (index `count` = just past the end).
    static func displayColumns(_ line: [UInt8]) -> [Int] {
        var columns = [Int]()
        columns.reserveCapacity(line.count + 1)
        var column = 0
        for byte in line {
            columns.append(column)
            if byte == UInt8(ascii: "\t") {
                column += tabStop - column % tabStop
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
        }
        columns.append(column)
        // A continuation byte shares the column of its sequence's first byte.
        for index in line.indices where line[index] & 0xC0 == 0x80 && index > 0 {
            columns[index] = columns[index - 1]
        }
        return columns
    }

    /// The line with tabs replaced by spaces up to the next tab stop.
    static func expandTabs(_ line: [UInt8]) -> String {
        guard line.contains(UInt8(ascii: "\t")) else { return String(decoding: line, as: UTF8.self) }
        var result: [UInt8] = []
        var column = 0
        for byte in line {
            if byte == UInt8(ascii: "\t") {
                let width = tabStop - column % tabStop
                result.append(contentsOf: repeatElement(UInt8(ascii: " "), count: width))
                column += width
            } else {
                result.append(byte)
                if byte & 0xC0 != 0x80 { column += 1 }
            }
        }
        return String(decoding: result, as: UTF8.self)
    }

    /// language.md §8: a JSON array of
    /// `{"severity","file","line","column","endColumn","message","notes":[{"message","file","line","column"}],"fixit"?}`;
    /// one diagnostic per line.
    public static func json(_ diagnostics: [Diagnostic], files: [SourceFile]) -> String {
        guard !diagnostics.isEmpty else { return "[]" }
        var items: [String] = []
        for diagnostic in diagnostics {
            let range = diagnostic.range
            var fields = [
                "\"severity\":" + quoted(diagnostic.severity.rawValue),
                "\"file\":" + fileName(range.start.file, files),
                "\"line\":\(range.start.line)",
                "\"column\":\(range.start.column)",
                "\"endColumn\":\(endColumn(range, files))",
                "\"message\":" + quoted(diagnostic.message),
            ]
            let notes = diagnostic.notes.map { note -> String in
                guard let r = note.range else {
                    return "{\"message\":\(quoted(note.message)),\"file\":null,\"line\":null,\"column\":null}"
                }
                return "{\"message\":\(quoted(note.message)),\"file\":\(fileName(r.start.file, files)),\"line\":\(r.start.line),\"column\":\(r.start.column)}"
            }
            fields.append("\"notes\":[" + notes.joined(separator: ",") + "]")
            if let fixIt = diagnostic.fixIt {
                let r = fixIt.range
                fields.append("\"fixit\":{\"line\":\(r.start.line),\"column\":\(r.start.column),\"endColumn\":\(endColumn(r, files)),\"replacement\":\(quoted(fixIt.replacement))}")
            }
            items.append("{" + fields.joined(separator: ",") + "}")
        }
        return "[\n" + items.joined(separator: ",\n") + "\n]"
    }

    /// End column on the start line: the range's end, or just past the line's end when the range runs on.
    private static func endColumn(_ range: SourceRange, _ files: [SourceFile]) -> Int {
        if range.end.file == range.start.file, range.end.line == range.start.line {
            return max(range.end.column, range.start.column)
        }
        guard files.indices.contains(range.start.file) else { return range.start.column }
        return files[range.start.file].lineText(range.start.line).utf8.count + 1
    }

    private static func fileName(_ index: Int, _ files: [SourceFile]) -> String {
        files.indices.contains(index) ? quoted(files[index].name) : "null"
    }

    /// A JSON string literal (RFC 8259 escaping).
    static func quoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case "\u{08}": result += "\\b"
            case "\u{0C}": result += "\\f"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    let hex = String(scalar.value, radix: 16)
                    result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result + "\""
    }
}
