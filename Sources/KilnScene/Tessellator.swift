import Foundation

/// Turns fill, line and circle geometry (already in frame pixels) into triangles for
/// `SolidTriangleRasterizer`: three corners per triangle.
enum Tessellator {
    typealias Point = (x: Double, y: Double)

    /// Triangulates a simple polygon ring by ear clipping: repeatedly cut off a convex
    /// corner whose triangle holds no other ring point, searching on from the last cut.
    /// A closing point equal to the first, repeated points and straight-through corners are
    /// dropped; a ring that is not simple still yields triangles (the rest is fanned when
    /// no ear is left) rather than failing. Nil when the search takes more than `maxSteps`
    /// point tests (ear clipping is quadratic, worse for hostile rings).
    static func polygon(_ ring: [Point], maxSteps: Int = 50_000_000) -> [Point]? {
        var points = ring
        if points.count > 1, let first = points.first, let last = points.last, first == last { points.removeLast() }
        // Drop consecutive duplicates: they make zero-length edges.
        points = points.enumerated().filter { $0.offset == 0 || $0.element != points[$0.offset - 1] }.map(\.element)
        guard points.count >= 3 else { return [] }
        let area = signedArea(points)
        guard area != 0 else { return [] }
        var indices = Array(points.indices)
        if area < 0 { indices.reverse() }   // make the ring counter-clockwise in math axes
        var result: [Point] = []
        var steps = 0
        var i = 0
        var sinceLastCut = 0
        while indices.count > 3 {
            if sinceLastCut >= indices.count { break }          // no ear anywhere: fan the rest
            i %= indices.count
            let ia = indices[(i + indices.count - 1) % indices.count], ib = indices[i], ic = indices[(i + 1) % indices.count]
            let a = points[ia], b = points[ib], c = points[ic]
            let turn = cross(a, b, c)
            if turn == 0 {
                // A straight-through (or doubling-back) corner adds no area: drop it.
                indices.remove(at: i)
                sinceLastCut = 0
                if i > 0 { i -= 1 }
                continue
            }
            var isEar = turn > 0
            if isEar {
                steps += indices.count
                if steps > maxSteps { return nil }
                isEar = !indices.contains { index in
                    index != ia && index != ib && index != ic && inside(points[index], a, b, c)
                }
            }
            if isEar {
                result += [a, b, c]
                indices.remove(at: i)
                sinceLastCut = 0
                if i > 0 { i -= 1 }
            } else {
                i += 1
                sinceLastCut += 1
            }
        }
        if indices.count >= 3 {
            for k in 1..<(indices.count - 1) { result += [points[indices[0]], points[indices[k]], points[indices[k + 1]]] }
        }
        return result
    }

    /// A stroke `width` wide along `line`: a quad per segment, joins and caps.
    static func line(_ input: [Point], width: Double, cap: SceneLayer.LineCap, join: SceneLayer.LineJoin,
                     roundSegments: Int) -> [Point] {
        let line = input.enumerated().filter { $0.offset == 0 || $0.element != input[$0.offset - 1] }.map(\.element)
        let half = width / 2
        guard half > 0 else { return [] }
        if line.count == 1 {
            // A single point draws only its caps: a dot for round, a square for square.
            switch cap {
            case .butt: return []
            case .round: return circle(line[0], radius: half, segments: roundSegments)
            case .square:
                let p = line[0]
                return quad((p.x - half, p.y - half), (p.x + half, p.y - half), (p.x + half, p.y + half), (p.x - half, p.y + half))
            }
        }
        guard line.count >= 2 else { return [] }
        var result: [Point] = []
        var segments: [(a: Point, b: Point, normal: Point, direction: Point)] = []
        for i in 0..<(line.count - 1) {
            let a = line[i], b = line[i + 1]
            let dx = b.x - a.x, dy = b.y - a.y, length = (dx * dx + dy * dy).squareRoot()
            let direction = (x: dx / length, y: dy / length)
            segments.append((a, b, (-direction.y * half, direction.x * half), direction))
        }
        // Caps extend the end segments (square) or add half discs (round).
        if cap == .square {
            let first = segments[0], last = segments[segments.count - 1]
            segments[0].a = (first.a.x - first.direction.x * half, first.a.y - first.direction.y * half)
            segments[segments.count - 1].b = (last.b.x + last.direction.x * half, last.b.y + last.direction.y * half)
        }
        for segment in segments {
            let n = segment.normal
            result += quad((segment.a.x + n.x, segment.a.y + n.y), (segment.b.x + n.x, segment.b.y + n.y),
                           (segment.b.x - n.x, segment.b.y - n.y), (segment.a.x - n.x, segment.a.y - n.y))
        }
        for i in 1..<segments.count {
            let p = line[i], n0 = segments[i - 1].normal, n1 = segments[i].normal
            let turn = segments[i - 1].direction.x * segments[i].direction.y - segments[i - 1].direction.y * segments[i].direction.x
            guard turn != 0 else { continue }
            // The outer side of the turn has the gap to fill.
            let sign: Double = turn > 0 ? -1 : 1
            let o0 = (x: p.x + n0.x * sign, y: p.y + n0.y * sign), o1 = (x: p.x + n1.x * sign, y: p.y + n1.y * sign)
            switch join {
            case .round:
                result += circle(p, radius: half, segments: roundSegments)
            case .bevel:
                result += [p, o0, o1]
            case .miter:
                // The miter tip lies along the bisector; past a ratio of 2 it becomes a bevel.
                let bx = n0.x + n1.x, by = n0.y + n1.y, lengthSquared = bx * bx + by * by
                let cosine = (n0.x * n1.x + n0.y * n1.y) / (half * half)
                let ratio = (2 / (1 + cosine)).squareRoot()
                if lengthSquared > 0, ratio <= miterLimit {
                    let scale = 2 * half * half / lengthSquared
                    let tip = (x: p.x + bx * scale * sign, y: p.y + by * scale * sign)
                    result += [p, o0, tip, p, tip, o1]
                } else {
                    result += [p, o0, o1]
                }
            }
        }
        if cap == .round {
            result += circle(line[0], radius: half, segments: roundSegments)
            result += circle(line[line.count - 1], radius: half, segments: roundSegments)
        }
        return result
    }

    /// Longest miter, as a multiple of the line width, before it is cut to a bevel.
    static let miterLimit = 2.0

    /// A disc as a fan of `segments` triangles (fewer for small radii).
    static func circle(_ center: Point, radius: Double, segments: Int) -> [Point] {
        guard radius > 0 else { return [] }
        let count = max(8, min(segments, Int((radius * 2).rounded(.up)) + 8))
        var result: [Point] = []
        for i in 0..<count {
            let a0 = Double(i) / Double(count) * 2 * .pi, a1 = Double(i + 1) / Double(count) * 2 * .pi
            result += [center, (center.x + radius * cos(a0), center.y + radius * sin(a0)),
                       (center.x + radius * cos(a1), center.y + radius * sin(a1))]
        }
        return result
    }

    static func quad(_ a: Point, _ b: Point, _ c: Point, _ d: Point) -> [Point] { [a, b, c, a, c, d] }

    private static func signedArea(_ points: [Point]) -> Double {
        var sum = 0.0
        for i in points.indices {
            let a = points[i], b = points[(i + 1) % points.count]
            sum += a.x * b.y - b.x * a.y
        }
        return sum / 2
    }

    private static func cross(_ a: Point, _ b: Point, _ c: Point) -> Double {
        (b.x - a.x) * (c.y - a.y) - (b.y - a.y) * (c.x - a.x)
    }

    /// Inside or on the triangle a, b, c (counter-clockwise).
    private static func inside(_ p: Point, _ a: Point, _ b: Point, _ c: Point) -> Bool {
        cross(a, b, p) >= 0 && cross(b, c, p) >= 0 && cross(c, a, p) >= 0
    }
}
