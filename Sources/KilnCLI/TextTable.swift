import Foundation

/// A plain-text table with right-aligned numbers, for `kiln bench`.
struct TextTable {
    enum Alignment { case left, right }

    var headers: [String]
    var alignments: [Alignment]
    var rows: [[String]] = []

    init(_ columns: [(String, Alignment)]) {
        headers = columns.map(\.0)
        alignments = columns.map(\.1)
    }

    mutating func add(_ row: [String]) { rows.append(row) }

    /// The table with a header rule, columns separated by two spaces.
    var text: String {
        var widths = headers.map(\.count)
        for row in rows {
            for (column, cell) in row.enumerated() where column < widths.count {
                widths[column] = max(widths[column], cell.count)
            }
        }
        func format(_ cells: [String]) -> String {
            cells.enumerated().map { column, cell in
                let padding = String(repeating: " ", count: max(0, widths[column] - cell.count))
                return alignments[column] == .left ? cell + padding : padding + cell
            }.joined(separator: "  ").trailingSpacesRemoved
        }
        var lines = [format(headers)]
        lines.append(widths.map { String(repeating: "-", count: $0) }.joined(separator: "  "))
        lines += rows.map(format)
        return lines.joined(separator: "\n") + "\n"
    }
}

extension String {
    fileprivate var trailingSpacesRemoved: String {
        var text = Substring(self)
        while text.last == " " { text.removeLast() }
        return String(text)
    }
}

/// Number formatting for tables.
enum Format {
    /// `value` with `digits` decimals; `-` for a value that was not measured.
    static func fixed(_ value: Double, _ digits: Int) -> String {
        guard value.isFinite else { return "-" }
        return String(format: "%.\(digits)f", value)
    }
}
