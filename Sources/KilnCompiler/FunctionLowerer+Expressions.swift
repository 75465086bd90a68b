import KilnBytecode
import KilnLanguage

extension FunctionLowerer {
    /// Lowers an expression to its scalarized components.
    func value(_ e: TypedExpression) throws -> [VirtualRegister] {
        try at(e.range) { try lowerValue(e) }
    }

    private func lowerValue(_ e: TypedExpression) throws -> [VirtualRegister] {
        switch e.kind {
        case .constant(let c):
            return [constant(c.bits)]
        case .variable(let id):
            // Most variables hold their registers themselves (not a `thread T &` alias).
            if let registers = slot(frameIndex, id)?.components { return registers }
            let root = resolveRoot(frameIndex, id, nil)
            let registers = rootComponents(root.frame, root.id)
            return root.path.map { $0.map { registers[$0] } } ?? registers
        case .global(let g):
            return try globalValue(g)
        case .dereference:
            return try load(try lvalue(e))
        case .addressOf:
            throw fail("not supported: a pointer to thread memory other than as a 'thread T *' argument", e.range)
        case .construct(let arguments):
            return try construct(e.type, arguments)
        case .convert(let inner):
            let values = try value(inner)
            guard let from = inner.type.scalarKind, let to = e.type.scalarKind else { return values }
            let converted = values.map { convert($0, from: from, to: to) }
            let total = count(e.type)
            if converted.count == 1 && total > 1 { return Array(repeating: converted[0], count: total) }
            return converted
        case .unary(let operator_, let operand):
            let values = try value(operand)
            let kind = e.type.scalarKind ?? .int
            return values.map { v in
                switch operator_ {
                case .negate: return narrow(kind.isFloat ? op(.fneg, v) : op(.ineg, v), kind)
                case .logicalNot: return op(.lnot, v)
                case .bitwiseNot: return narrow(op(.not, v), kind)
                }
            }
        case .binary(let operator_, let lhs, let rhs):
            if operator_ == .logicalAnd || operator_ == .logicalOr {
                return try logical(operator_, lhs, rhs, e)
            }
            let a = try value(lhs)
            let b = try value(rhs)
            let kind = lhs.type.scalarKind ?? rhs.type.scalarKind ?? .float
            return try binary(operator_, a, b, operandKind: kind, resultKind: e.type.scalarKind ?? kind, e.range)
        case .matrixMultiply(let lhs, let rhs):
            return matrixMultiply(try value(lhs), lhs.type, try value(rhs), rhs.type)
        case .assign(let lhs, let rhs):
            var values = try value(rhs)
            let place = try lvalue(lhs)
            // Homes are written one component at a time, so a right side made of the
            // target's own homes (`v = v.yx`, `w.xz = float2(-w.z, w.x)`) is copied first:
            // otherwise a later component would read an earlier component's new value.
            if values.count > 1 {
                let targets = Set(rootComponents(place.frame, place.variable))
                values = values.map { targets.contains($0) && state.isHome[$0] ? stable([$0])[0] : $0 }
            }
            try store(place, values)
            return values
        case .compoundAssign(let operator_, let lhs, let rhs):
            let place = try lvalue(lhs)
            let old = try load(place)
            let r = try value(rhs)
            let new: [VirtualRegister]
            if operator_ == .multiply, case .matrix = rhs.type {
                new = matrixMultiply(old, lhs.type, r, rhs.type)
            } else {
                let kind = lhs.type.scalarKind ?? .float
                new = try binary(operator_, old, r, operandKind: rhs.type.scalarKind ?? kind, resultKind: kind, e.range)
            }
            try store(place, new)
            return new
        case .increment(let lhs, let delta, let isPrefix):
            let place = try lvalue(lhs)
            let old = stable(try load(place))
            let kind = lhs.type.scalarKind ?? .int
            let step = kind.isFloat ? constant(float: Float(delta)) : constant(int: Int32(delta))
            let new = old.map { narrow(op(kind.isFloat ? .fadd : .iadd, $0, step), kind) }
            try store(place, new)
            return isPrefix ? new : old
        case .conditional(let condition, let a, let b):
            return try conditional(condition, a, b, e)
        case .swizzle(let base, let indexes):
            let values = try value(base)
            return indexes.map { $0 < values.count ? values[$0] : zero }
        case .index(let base, let index):
            return try indexValue(base, index, e)
        case .member(let base, let field):
            if case .pointer = base.type {
                let element = try loadBuffer(base, index: zero)
                let (offset, size) = fieldOffset(pointee(base.type), field)
                guard offset + size <= element.count else { throw fail("not supported: this member access", e.range) }
                return Array(element[offset..<offset + size])
            }
            let values = try value(base)
            let (offset, size) = fieldOffset(base.type, field)
            guard offset + size <= values.count else { throw fail("not supported: this member access", e.range) }
            return Array(values[offset..<offset + size])
        case .call(let function, let arguments):
            return try inline(function, arguments, e)
        case .builtin(let builtin, let arguments):
            return try lowerBuiltin(builtin, arguments, e)
        case .textureSample(let texture, let source, let coordinate):
            let slot = try textureSlot(texture)
            let mode: SampleMode
            switch source {
            case .constant(let state): mode = sampleMode(state)
            case .parameter: mode = .samplerParameter
            }
            let p = try value(coordinate)
            return sample(.sample, slot: slot, p, mode: mode)
        case .layerSample(_, let position):
            let p = try value(position)
            state.usedTextureSlots.insert(0)
            return sample(.sample, slot: 0, p, mode: .layer)
        case .textureRead(let texture, let coordinate):
            let slot = try textureSlot(texture)
            return sample(.texread, slot: slot, try value(coordinate), mode: SampleMode(rawValue: 0))
        case .textureWrite(let texture, let value, let coordinate):
            let slot = try textureSlot(texture)
            let components = try self.value(value), p = try self.value(coordinate)
            // The value goes to a group of four consecutive registers, as `texwrite` reads it.
            let group = newUnit(size: 4, prologue: false)
            for (member, component) in zip(group, components) {
                state.isUniform[member] = false
                emitBody(IRInstruction(opcode: .mov, a: member, b: component))
            }
            emitBody(IRInstruction(opcode: .texwrite, a: group[0], b: p[0], c: p[1], d: maskRegister, imm: slot))
            return []
        case .textureSize(let texture, let dimension):
            let slot = try textureSlot(texture)
            let key = PureKey(opcode: .texsize, b: -1, c: -1, d: -1, imm: slot, mode: 0, literalCount: 0)
            if let first = state.pureCache[key] { return [first + dimension] }
            let group = newUnit(size: 2, prologue: true)
            emitPrologue(IRInstruction(opcode: .texsize, a: group[0], imm: slot))
            state.pureCache[key] = group[0]
            return [group[dimension]]
        case .sequence(let a, let b):
            _ = try value(a)
            return try value(b)
        }
    }

    func pointee(_ type: KType) -> KType {
        if case .pointer(let element, _) = type { return element }
        return type
    }

    func sampleMode(_ sampler: SamplerState) -> SampleMode {
        let address: SampleMode.Address
        switch sampler.address {
        case .clampToEdge: address = .clampToEdge
        case .clampToZero: address = .zero
        case .repeat: address = .repeat
        case .mirroredRepeat: address = .mirroredRepeat
        }
        return SampleMode(normalized: sampler.normalized, linear: sampler.filter == .linear, address: address)
    }

    func sample(_ opcode: Opcode, slot: UInt32, _ p: [VirtualRegister], mode: SampleMode) -> [VirtualRegister] {
        let group = newUnit(size: 4, prologue: false)
        for member in group { state.isUniform[member] = false }
        emitBody(IRInstruction(opcode: opcode, a: group[0], b: p[0], c: p.count > 1 ? p[1] : p[0], imm: slot,
                               mode: opcode == .sample ? mode.rawValue : 0))
        return group
    }

    func textureSlot(_ e: TypedExpression) throws -> UInt32 {
        if case .variable(let id) = e.kind, let slot = slot(frameIndex, id), case .texture(let s) = slot.storage {
            state.usedTextureSlots.insert(s)
            return s
        }
        throw fail("not supported: this texture expression", e.range)
    }

    // MARK: - Conversions and operators

    /// Narrows a 32-bit integer result to `short`/`ushort`/`char`/`uchar`, wrapping. There
    /// is no 8-bit opcode: `char` sign-extends by shifting its byte to the top and back,
    /// `uchar` masks its byte.
    func narrow(_ v: VirtualRegister, _ kind: ScalarKind) -> VirtualRegister {
        switch kind {
        case .short: return op(.sext16, v)
        case .ushort: return op(.zext16, v)
        case .char: return op(.shr, op(.shl, v, constant(24)), constant(24))
        case .uchar: return op(.and, v, constant(0xFF))
        default: return v
        }
    }

    func convert(_ v: VirtualRegister, from: ScalarKind, to: ScalarKind) -> VirtualRegister {
        if from == to || (from.isFloat && to.isFloat) { return v }
        switch to {
        case .bool:
            return from.isFloat ? op(.fne, v, constant(float: 0)) : op(.ine, v, zero)
        case .float, .half:
            if from == .bool || from.isSigned { return op(.itof, v) }
            return op(.utof, v)
        case .int:
            return from.isFloat ? op(.ftoi, v) : v
        case .uint:
            return from.isFloat ? op(.ftou, v) : v
        case .short, .char:
            return narrow(from.isFloat ? op(.ftoi, v) : v, to)
        case .ushort, .uchar:
            return narrow(from.isFloat ? op(.ftou, v) : v, to)
        }
    }

    func binary(_ operator_: TypedBinaryOperator, _ a: [VirtualRegister], _ b: [VirtualRegister],
                operandKind kind: ScalarKind, resultKind: ScalarKind, _ range: SourceRange) throws -> [VirtualRegister] {
        // A scalar operand pairs with every component of the other (`v * 2.0`). Components in
        // order, one result array and no broadcast copies: this runs for every operator.
        let n = a.count == 1 ? b.count : b.count == 1 ? a.count : min(a.count, b.count)
        var results: [VirtualRegister] = []
        results.reserveCapacity(n)
        for i in 0..<n {
            let result = try scalarBinary(operator_, a.count == 1 ? a[0] : a[i], b.count == 1 ? b[0] : b[i], kind, range)
            results.append(isComparison(operator_) ? result : narrow(result, resultKind))
        }
        return results
    }

    func isComparison(_ o: TypedBinaryOperator) -> Bool {
        switch o {
        case .less, .lessEqual, .greater, .greaterEqual, .equal, .notEqual: return true
        default: return false
        }
    }

    func scalarBinary(_ o: TypedBinaryOperator, _ x: VirtualRegister, _ y: VirtualRegister, _ kind: ScalarKind,
                      _ range: SourceRange) throws -> VirtualRegister {
        if kind.isFloat {
            switch o {
            case .add: return op(.fadd, x, y)
            case .subtract: return op(.fsub, x, y)
            case .multiply: return op(.fmul, x, y)
            case .divide: return op(.fdiv, x, y)
            case .remainder: return op(.fmod, x, y)
            case .less: return op(.flt, x, y)
            case .lessEqual: return op(.fle, x, y)
            case .greater: return op(.flt, y, x)
            case .greaterEqual: return op(.fle, y, x)
            case .equal: return op(.feq, x, y)
            case .notEqual: return op(.fne, x, y)
            case .logicalAnd: return op(.and, op(.fne, x, constant(float: 0)), op(.fne, y, constant(float: 0)))
            case .logicalOr: return op(.or, op(.fne, x, constant(float: 0)), op(.fne, y, constant(float: 0)))
            default: throw fail("not supported: bitwise operator on floating-point values", range)
            }
        }
        let signed = kind.isSigned || kind == .bool
        switch o {
        case .add: return op(.iadd, x, y)
        case .subtract: return op(.isub, x, y)
        case .multiply: return op(.imul, x, y)
        case .divide, .remainder:
            let remainder = o == .remainder
            if let divisor = state.knownConstant[y],
               let quick = divideByPowerOfTwo(x, divisor, remainder: remainder, signed: signed) { return quick }
            return op(remainder ? (signed ? .irem : .urem) : (signed ? .idiv : .udiv), x, y)
        case .shiftLeft: return op(.shl, x, y)
        case .shiftRight: return op(kind.isSigned ? .shr : .ushr, x, y)
        case .bitwiseAnd, .logicalAnd: return op(.and, x, y)
        case .bitwiseOr, .logicalOr: return op(.or, x, y)
        case .bitwiseXor: return op(.xor, x, y)
        case .less: return op(signed ? .ilt : .ult, x, y)
        case .lessEqual: return op(signed ? .ile : .ule, x, y)
        case .greater: return op(signed ? .ilt : .ult, y, x)
        case .greaterEqual: return op(signed ? .ile : .ule, y, x)
        case .equal: return op(.ieq, x, y)
        case .notEqual: return op(.ine, x, y)
        }
    }

    /// Sum of products in source order, never fused.
    func dotProduct(_ a: [VirtualRegister], _ b: [VirtualRegister]) -> VirtualRegister {
        var sum = op(.fmul, a[0], b[0])
        for i in 1..<min(a.count, b.count) { sum = op(.fadd, sum, op(.fmul, a[i], b[i])) }
        return sum
    }

    func matrixMultiply(_ a: [VirtualRegister], _ aType: KType, _ b: [VirtualRegister], _ bType: KType) -> [VirtualRegister] {
        switch (aType, bType) {
        case (.matrix(_, let columns, let rows), .matrix(_, let bColumns, _)):
            var result: [VirtualRegister] = []
            for c in 0..<bColumns {
                let column = Array(b[c * columns..<(c + 1) * columns])
                for r in 0..<rows { result.append(dotProduct((0..<columns).map { a[$0 * rows + r] }, column)) }
            }
            return result
        case (.matrix(_, let columns, let rows), _):
            return (0..<rows).map { r in dotProduct((0..<columns).map { a[$0 * rows + r] }, b) }
        case (_, .matrix(_, let columns, let rows)):
            return (0..<columns).map { c in dotProduct(a, Array(b[c * rows..<(c + 1) * rows])) }
        default:
            return zip(a, b).map { op(.fmul, $0, $1) }
        }
    }

    // MARK: - Constructors

    func construct(_ type: KType, _ arguments: [TypedExpression]) throws -> [VirtualRegister] {
        let total = count(type)
        // One argument's values as they are; several joined in one array sized up front.
        var values: [VirtualRegister]
        if arguments.count == 1 {
            values = try value(arguments[0])
        } else {
            values = []
            values.reserveCapacity(total)
            for argument in arguments { values += try value(argument) }
        }
        switch type {
        case .vector, .scalar:
            if values.count == 1 && total > 1 { return Array(repeating: values[0], count: total) }
        case .matrix(let kind, let columns, let rows):
            if arguments.count == 1, case .matrix(_, let sourceColumns, let sourceRows) = arguments[0].type {
                // Resizing a matrix: the top-left part, identity elsewhere.
                var result: [VirtualRegister] = []
                for c in 0..<columns {
                    for r in 0..<rows {
                        if c < sourceColumns && r < sourceRows { result.append(values[c * sourceRows + r]) }
                        else { result.append(kind.isFloat ? constant(float: c == r ? 1 : 0) : zero) }
                    }
                }
                return result
            }
            if values.count == 1 && total > 1 {
                let zeroValue = kind.isFloat ? constant(float: 0) : zero
                var result: [VirtualRegister] = []
                for c in 0..<columns { for r in 0..<rows { result.append(c == r ? values[0] : zeroValue) } }
                return result
            }
        default:
            break
        }
        if values.count < total { values += repeatElement(zero, count: total - values.count) }
        return values.count == total ? values : Array(values.prefix(total))
    }

    // MARK: - Globals

    func globalValue(_ g: GlobalID) throws -> [VirtualRegister] {
        if let values = state.globalValues[g] { return values }
        let global = program.globals[g]
        try checkSize(global.type, global.range)
        var values: [VirtualRegister]
        if let initializer = global.initializer {
            values = try value(initializer)
        } else {
            values = Array(repeating: zero, count: count(global.type))
        }
        state.globalValues[g] = values
        return values
    }

    // MARK: - Indexing

    func indexValue(_ base: TypedExpression, _ index: TypedExpression, _ e: TypedExpression) throws -> [VirtualRegister] {
        if case .pointer(_, let space) = base.type {
            if space == .thread { return try load(try lvalue(e)) }
            return try loadBuffer(base, index: try value(index)[0])
        }
        guard let shape = elementShape(base.type) else { throw fail("not supported: indexing this value", e.range) }
        if lvalueRoot(base) != nil {
            let place = try lvalue(e)
            return try load(place)
        }
        let i = try value(index)[0]
        let values = try value(base)
        if let c = state.knownConstant[i] {
            let element = Int(c)
            guard element < shape.count else { return Array(repeating: zero, count: shape.size) }
            return Array(values[element * shape.size..<(element + 1) * shape.size])
        }
        // A constant array (a global or a const table) becomes one `ldk` per component,
        // the pool laid out component-major; anything else an `ldr` of a register copy.
        return (0..<shape.size).map { w in
            loadIndexed((0..<shape.count).map { values[$0 * shape.size + w] }, index: i)
        }
    }

    /// Element `index` of a pointer argument: `ldb` per component at `index·size + component`.
    func loadBuffer(_ base: TypedExpression, index: VirtualRegister) throws -> [VirtualRegister] {
        guard case .variable(let id) = base.kind, let slot = slot(frameIndex, id),
              case .buffer(let bufferSlot, let element) = slot.storage else {
            throw fail("not supported: this pointer expression", base.range)
        }
        state.usedBufferSlots.insert(bufferSlot)
        let size = count(element)
        let scaled = size == 1 ? index : op(.imul, index, constant(UInt32(size)))
        return (0..<size).map { w in
            let address = w == 0 ? scaled : op(.iadd, scaled, constant(UInt32(w)))
            let register = newRegister()
            state.isUniform[register] = state.isUniform[address]
            emitBody(IRInstruction(opcode: .ldb, a: register, b: address, imm: bufferSlot))
            return register
        }
    }

    /// The variable an lvalue-shaped expression is rooted at, if it is one.
    func lvalueRoot(_ e: TypedExpression) -> VariableID? {
        switch e.kind {
        case .variable(let id):
            guard let slot = slot(frameIndex, id) else { return nil }
            switch slot.storage {
            case .components, .reference: return id
            default: return nil
            }
        case .swizzle(let a, _), .member(let a, _), .dereference(let a): return lvalueRoot(a)
        case .index(let a, _):
            if case .pointer(_, let space) = a.type, space != .thread { return nil }
            return lvalueRoot(a)
        default: return nil
        }
    }

    /// Lowers an assignable expression to the place it names.
    func lvalue(_ e: TypedExpression) throws -> LValue {
        switch e.kind {
        case .variable(let id):
            let root = resolveRoot(frameIndex, id, nil)
            let total = rootComponents(root.frame, root.id).count
            return LValue(frame: root.frame, variable: root.id, components: root.path ?? Array(0..<total))
        case .swizzle(let base, let indexes):
            var place = try lvalue(base)
            if place.dynamic != nil { place.within = indexes.map { place.within[$0] } }
            else { place.components = indexes.map { place.components[$0] } }
            return place
        case .member(let base, let field):
            var place = try lvalue(base)
            let (offset, size) = fieldOffset(base.type, field)
            let available = place.dynamic != nil ? place.within.count : place.components.count
            guard offset + size <= available else { throw fail("not supported: assigning to this member", e.range) }
            if place.dynamic != nil { place.within = Array(place.within[offset..<offset + size]) }
            else { place.components = Array(place.components[offset..<offset + size]) }
            return place
        case .addressOf(let target):
            return try lvalue(target)       // as the operand of `*`: `*&x` is `x`
        case .dereference(let pointer):
            // The first element of what the pointer points at.
            var place = try lvalue(pointer)
            place.components = Array(place.components.prefix(count(e.type)))
            return place
        case .index(let base, let index):
            var place = try lvalue(base)
            // A `thread T *` may point at several elements (an array it was given).
            var shape = elementShape(base.type)
            if case .pointer(let element, .thread) = base.type {
                shape = (count: place.components.count / max(1, count(element)), size: count(element), element: element)
            }
            guard let shape else { throw fail("not supported: indexing this value", e.range) }
            let i = try value(index)[0]
            if place.dynamic != nil {
                throw fail("not supported: nested dynamic indexing", e.range)
            }
            if let c = state.knownConstant[i] {
                let element = Int(c)
                if element < shape.count {
                    place.components = Array(place.components[element * shape.size..<(element + 1) * shape.size])
                    return place
                }
                // Out of range: reads give 0, writes do nothing (an index that never matches).
            }
            place.dynamic = (i, shape.count, shape.size)
            place.within = Array(0..<shape.size)
            return place
        default:
            throw fail("not supported: assigning to this expression", e.range)
        }
    }

    // MARK: - Short circuits and conditionals

    func logical(_ o: TypedBinaryOperator, _ lhs: TypedExpression, _ rhs: TypedExpression,
                 _ e: TypedExpression) throws -> [VirtualRegister] {
        let a = try value(lhs)
        if rhs.mayWrite && a.count == 1 {
            // `a && b` is `a ? b : false`; `a || b` is `a ? true : b`.
            let result = newHome(uniform: isUniform(a[0]))
            emitBody(IRInstruction(opcode: .mov, a: result, b: a[0]))
            let condition = o == .logicalAnd ? a[0] : op(.lnot, a[0])
            let assigned = assignedVariables([], extra: [rhs], program: program)
            try branch(condition, assigned: assigned, canRetire: false, then: { masked in
                let b = try self.value(rhs)
                try self.writeHome(result, b[0], mask: masked ? self.maskRegister : nil)
            }, otherwise: nil)
            state.isHome[result] = false
            return [result]
        }
        let b = try value(rhs)
        return zip(a, b).map { op(o == .logicalAnd ? .and : .or, $0, $1) }
    }

    func conditional(_ condition: TypedExpression, _ a: TypedExpression, _ b: TypedExpression,
                     _ e: TypedExpression) throws -> [VirtualRegister] {
        let c = try value(condition)
        // A condition the compiler knows (an unrolled loop's counter, a constant): only the
        // arm it picks is evaluated, as C does.
        if c.count == 1, let known = state.knownConstant[c[0]] { return try value(known != 0 ? a : b) }
        let effects = a.mayWrite || b.mayWrite
        if !effects || c.count != 1 {
            let x = try value(a)
            let y = try value(b)
            if c.count == 1 { return zip(x, y).map { op(.sel, c[0], $0, $1) } }
            return (0..<x.count).map { op(.sel, c[$0], x[$0], y[$0]) }
        }
        let total = count(e.type)
        let results = (0..<total).map { _ in newHome(uniform: true) }
        let assigned = assignedVariables([], extra: [a, b], program: program)
        try branch(c[0], assigned: assigned, canRetire: false, then: { masked in
            for (home, v) in zip(results, try self.value(a)) {
                try self.writeHome(home, v, mask: masked ? self.maskRegister : nil)
            }
        }, otherwise: { masked in
            for (home, v) in zip(results, try self.value(b)) {
                try self.writeHome(home, v, mask: masked ? self.maskRegister : nil)
            }
        })
        for home in results { state.isHome[home] = false }
        return results
    }
}
