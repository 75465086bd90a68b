import KilnBytecode
import KilnLanguage

extension FunctionLowerer {
    /// Lowers a builtin call component-wise: a direct opcode where the ISA has one, an
    /// expansion in IEEE order otherwise (no fused multiply-add except `fma`).
    func lowerBuiltin(_ builtin: Builtin, _ arguments: [TypedExpression], _ e: TypedExpression) throws -> [VirtualRegister] {
        if builtin == .modf {
            let x = try value(arguments[0])
            let whole = x.map { op(.ftrunc, $0) }
            try store(try lvalue(arguments[1]), whole)
            return zip(x, whole).map { op(.fsub, $0, $1) }
        }
        if builtin.isDerivative && entry.kind == .kernel {
            // A kernel's threads are not pixels in quads: there is no neighbour to difference.
            throw fail("not supported: derivatives in a kernel function (they need fragments in 2×2 quads)", e.range)
        }
        let values = try arguments.map { try value($0) }
        let kind = arguments.first?.type.scalarKind ?? .float
        let width = values.map { $0.count }.max() ?? 1
        /// Argument `i`, component `j` (scalars broadcast).
        func v(_ i: Int, _ j: Int) -> VirtualRegister { values[i].count == 1 ? values[i][0] : values[i][j] }
        func each(_ body: (Int) -> VirtualRegister) -> [VirtualRegister] { (0..<width).map(body) }
        func unary(_ opcode: Opcode) -> [VirtualRegister] { each { op(opcode, v(0, $0)) } }
        func binary(_ opcode: Opcode) -> [VirtualRegister] { each { op(opcode, v(0, $0), v(1, $0)) } }
        let f0 = constant(float: 0), f1 = constant(float: 1)
        let minimum: Opcode = kind.isFloat ? .fmin : (kind.isSigned ? .imin : .umin)
        let maximum: Opcode = kind.isFloat ? .fmax : (kind.isSigned ? .imax : .umax)
        /// A derivative: zero for a value every lane shares (it is the same across the quad),
        /// else the opcode per component.
        func derivative(_ opcode: Opcode) -> [VirtualRegister] {
            each { isUniform(v(0, $0)) ? f0 : op(opcode, v(0, $0)) }
        }
        func derivativeWidth(_ x: Opcode, _ y: Opcode) -> [VirtualRegister] {
            zip(derivative(x), derivative(y)).map { op(.fadd, op(.fabs, $0), op(.fabs, $1)) }
        }
        switch builtin {
        case .dfdx, .dfdxFine: return derivative(.dfdx)
        case .dfdy, .dfdyFine: return derivative(.dfdy)
        case .dfdxCoarse: return derivative(.dfdxc)
        case .dfdyCoarse: return derivative(.dfdyc)
        case .fwidth, .fwidthFine: return derivativeWidth(.dfdx, .dfdy)
        case .fwidthCoarse: return derivativeWidth(.dfdxc, .dfdyc)
        case .sin: return unary(.fsin)
        case .cos: return unary(.fcos)
        case .tan: return unary(.ftan)
        case .asin: return unary(.fasin)
        case .acos: return unary(.facos)
        case .atan: return unary(.fatan)
        case .sinh: return unary(.fsinh)
        case .cosh: return unary(.fcosh)
        case .tanh: return unary(.ftanh)
        case .atan2: return binary(.fatan2)
        case .exp: return unary(.fexp)
        case .exp2: return unary(.fexp2)
        case .preciseSin: return unary(.psin)
        case .preciseCos: return unary(.pcos)
        case .preciseTan: return unary(.ptan)
        case .preciseExp: return unary(.pexp)
        case .preciseExp2: return unary(.pexp2)
        case .preciseAsin: return unary(.pasin)
        case .preciseAcos: return unary(.pacos)
        case .preciseAtan: return unary(.patan)
        case .preciseAtan2: return binary(.patan2)
        case .preciseLog: return unary(.plog)
        case .preciseLog2: return unary(.plog2)
        case .preciseLog10: return unary(.plog10)
        case .precisePow, .precisePowr: return binary(.ppow)
        case .preciseSinh: return unary(.psinh)
        case .preciseCosh: return unary(.pcosh)
        case .preciseTanh: return unary(.ptanh)
        case .log: return unary(.flog)
        case .log2: return unary(.flog2)
        case .log10: return unary(.flog10)
        case .sqrt: return unary(.fsqrt)
        case .rsqrt: return unary(.frsqrt)
        case .pow, .powr: return binary(.fpow)
        case .floor: return unary(.ffloor)
        case .ceil: return unary(.fceil)
        case .trunc: return unary(.ftrunc)
        case .round: return unary(.fround)
        case .rint: return unary(.frint)
        case .fract: return unary(.ffract)
        case .modf: return []
        case .abs, .fabs:
            if kind.isFloat { return unary(.fabs) }
            return kind.isSigned ? unary(.iabs) : values[0]
        case .min, .fmin: return binary(minimum)
        case .max, .fmax: return binary(maximum)
        case .min3: return each { op(minimum, op(minimum, v(0, $0), v(1, $0)), v(2, $0)) }
        case .max3: return each { op(maximum, op(maximum, v(0, $0), v(1, $0)), v(2, $0)) }
        case .clamp: return each { op(minimum, op(maximum, v(0, $0), v(1, $0)), v(2, $0)) }
        case .saturate: return each { op(.fmin, op(.fmax, v(0, $0), f0), f1) }
        case .sign: return unary(.fsign)
        case .fmod: return binary(.fmod)
        case .mix: return each { op(.fadd, v(0, $0), op(.fmul, op(.fsub, v(1, $0), v(0, $0)), v(2, $0))) }
        case .step: return each { op(.sel, op(.flt, v(1, $0), v(0, $0)), f0, f1) }
        case .smoothstep:
            return each { j in
                let t = op(.fmin, op(.fmax, op(.fdiv, op(.fsub, v(2, j), v(0, j)), op(.fsub, v(1, j), v(0, j))), f0), f1)
                return op(.fmul, op(.fmul, t, t), op(.fsub, constant(float: 3), op(.fmul, constant(float: 2), t)))
            }
        case .fma: return each { op(.fma, v(0, $0), v(1, $0), v(2, $0)) }
        case .dot: return [dotProduct(values[0], values[1])]
        case .length:
            if values[0].count == 1 { return [op(.fabs, values[0][0])] }
            return [op(.fsqrt, dotProduct(values[0], values[0]))]
        case .lengthSquared: return [dotProduct(values[0], values[0])]
        case .distance, .distanceSquared:
            let d = zip(values[0], values[1]).map { op(.fsub, $0, $1) }
            if builtin == .distanceSquared { return [dotProduct(d, d)] }
            if d.count == 1 { return [op(.fabs, d[0])] }
            return [op(.fsqrt, dotProduct(d, d))]
        case .normalize:
            let length = op(.fsqrt, dotProduct(values[0], values[0]))
            return values[0].map { op(.fdiv, $0, length) }
        case .cross:
            let a = values[0], b = values[1]
            return [op(.fsub, op(.fmul, a[1], b[2]), op(.fmul, a[2], b[1])),
                    op(.fsub, op(.fmul, a[2], b[0]), op(.fmul, a[0], b[2])),
                    op(.fsub, op(.fmul, a[0], b[1]), op(.fmul, a[1], b[0]))]
        case .reflect:
            let k = op(.fmul, constant(float: 2), dotProduct(values[1], values[0]))
            return each { op(.fsub, v(0, $0), op(.fmul, k, v(1, $0))) }
        case .refract:
            let eta = values[2][0]
            let d = dotProduct(values[1], values[0])
            let k = op(.fsub, f1, op(.fmul, op(.fmul, eta, eta), op(.fsub, f1, op(.fmul, d, d))))
            let negative = op(.flt, k, f0)
            let scale = op(.fadd, op(.fmul, eta, d), op(.fsqrt, k))
            return each { j in
                op(.sel, negative, f0, op(.fsub, op(.fmul, eta, v(0, j)), op(.fmul, scale, v(1, j))))
            }
        case .faceforward:
            let flip = op(.flt, dotProduct(values[2], values[1]), f0)
            return each { op(.sel, flip, v(0, $0), op(.fneg, v(0, $0))) }
        case .select: return each { op(.sel, v(2, $0), v(1, $0), v(0, $0)) }
        case .all: return [values[0].dropFirst().reduce(values[0][0]) { op(.and, $0, $1) }]
        case .any: return [values[0].dropFirst().reduce(values[0][0]) { op(.or, $0, $1) }]
        case .isnan: return unary(.fisnan)
        case .isinf: return unary(.fisinf)
        case .transpose:
            guard case .matrix(_, let columns, let rows) = arguments[0].type else { return values[0] }
            var result: [VirtualRegister] = []
            for r in 0..<rows { for c in 0..<columns { result.append(values[0][c * rows + r]) } }
            return result
        case .determinant:
            guard case .matrix(_, let n, _) = arguments[0].type else { return [f0] }
            return [determinant((0..<n).map { c in Array(values[0][c * n..<(c + 1) * n]) })]
        }
    }

    /// Cofactor expansion along the first column (`columns[c][r]`).
    func determinant(_ columns: [[VirtualRegister]]) -> VirtualRegister {
        let n = columns.count
        if n == 1 { return columns[0][0] }
        if n == 2 {
            return op(.fsub, op(.fmul, columns[0][0], columns[1][1]), op(.fmul, columns[1][0], columns[0][1]))
        }
        var sum: VirtualRegister?
        for r in 0..<n {
            let minor = (1..<n).map { c in (0..<n).filter { $0 != r }.map { columns[c][$0] } }
            let term = op(.fmul, columns[0][r], determinant(minor))
            if let s = sum { sum = op(r % 2 == 0 ? .fadd : .fsub, s, term) } else { sum = term }
        }
        return sum!
    }
}
