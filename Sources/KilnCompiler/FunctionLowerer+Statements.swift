import KilnBytecode
import KilnLanguage

extension FunctionLowerer {
    /// Lowers `statements` in order while some lane may still run them. With `skipTo` (a
    /// function's body, whose end label is `skipTo`): after a statement that retired
    /// lanes by mask (`if (uv.y < 0) return …;`), the rest of the body starts with `jnone`
    /// to the end when it is costly enough (`StatementScanner.isCostly`) — a batch whose
    /// lanes all returned skips it, as an `if` arm no lane takes is skipped. (melt's
    /// `from.sample` ran for every lane of batches that had all taken the early
    /// `return to.sample(…)`, their coordinates outside the texture.) The entry's
    /// body and an inlined helper's: nothing after their end reads what the skipped code
    /// computes — results come from the return homes, written by `sel` — as long as the
    /// helper has no reference or pointer parameters (see `inline(_:_:_:)`).
    func lowerBlock(_ statements: [TypedStatement], skipTo endLabel: Int? = nil) throws {
        var guardMask: VirtualRegister?
        for (index, statement) in statements.enumerated() {
            guard state.mask.isLive else { return }
            let before = state.mask
            try at(statement.range) {
                // The guard belongs to the statement it skips (the debugger's line).
                if let endLabel, let running = guardMask { jump(.jnone, running, endLabel) }
                if case .block = statement.kind {} else { statementEvent() }
                try lowerStatement(statement)
            }
            guardMask = nil
            if endLabel != nil, state.mask != before, case .lanes(let running) = state.mask,
               state.frames[frameIndex].didMaskRetire, StatementScanner.isCostly(Array(statements[(index + 1)...])) {
                guardMask = running
            }
        }
    }

    func lowerStatement(_ statement: TypedStatement) throws {
        switch statement.kind {
        case .declare(let id, let initializer):
            let info = program.functions[state.frames[frameIndex].function].variables[id]
            if let sampler = info.sampler {
                declare(id, storage: .sampler(sampler))
                return
            }
            try checkSize(info.type, statement.range)
            let values = try initializer.map { try value($0) } ?? Array(repeating: zero, count: count(info.type))
            // A `const` table needs no register group: its reads become `ldk` or `ldr` of a copy.
            let pinned = state.frames[frameIndex].pinned.contains(id) && !info.isConst
            try declareValue(id, type: info.type, values: values, pinned: pinned)
            bindEvent(frameIndex, id)
        case .expression(let e):
            _ = try value(e)
        case .block(let statements):
            // A `for` statement is its declarations and then its loop: the variables it
            // declares end with the loop (`maskedLoop` may keep such a counter uniform).
            let declarations = statements.dropLast()
            let declared = declarations.compactMap { if case .declare(let id, _) = $0.kind { id } else { nil } }
            guard let last = statements.last, case .loop(let condition, let step, let body, let testFirst) = last.kind,
                  declared.count == declarations.count else {
                try lowerBlock(statements)
                return
            }
            try lowerBlock(Array(declarations))
            guard state.mask.isLive else { return }
            try at(last.range) {
                statementEvent()
                try lowerLoop(condition, step, body, testFirst, scopedLocals: Set(declared))
            }
        case .ifElse(let condition, let then, let otherwise):
            let c = try value(condition)[0]
            if let known = state.knownConstant[c] {
                try lowerBlock(known != 0 ? then : otherwise)
                return
            }
            let assigned = assignedVariables(then + otherwise, program: program)
            let retires = StatementScanner.canRetire(then + otherwise, discards: functionDiscards)
            try branch(c, assigned: assigned, canRetire: retires, then: { _ in try self.lowerBlock(then) },
                       otherwise: otherwise.isEmpty ? nil : { _ in try self.lowerBlock(otherwise) })
        case .loop(let condition, let step, let body, let testFirst):
            try lowerLoop(condition, step, body, testFirst)
        case .breakLoop:
            try lowerBreak(statement.range)
        case .continueLoop:
            try lowerContinue(statement.range)
        case .returnValue(let e):
            try lowerReturn(e)
        case .switchOn(let subject, let cases):
            try lowerSwitch(subject, cases)
        case .discard:
            guard let register = state.discardRegister else {
                throw fail("discard_fragment() is only supported in fragment functions", statement.range)
            }
            try emitInto(register, .or, register, maskRegister)
            for index in state.frames.indices { state.frames[index].didMaskRetire = true }
            state.mask = .retired
        }
    }

    /// Stores the mask an arm ended with into the arm's mask home, so the join reads a
    /// register that is valid whether or not the arm ran.
    func writeBackMask(_ home: VirtualRegister, _ end: ExecutionMask) throws {
        switch end {
        case .lanes(let register): if register != home { try emitInto(home, .mov, register) }
        case .all: try emitInto(home, .mov, one)
        case .retired: try emitInto(home, .mov, zero)
        case .unreachable: break
        }
    }

    /// An `if`: real jumps when the condition is uniform, execution masks otherwise.
    /// The closures get `true` when they run under a divergent mask.
    func branch(_ condition: VirtualRegister, assigned: Set<VariableID>, canRetire: Bool,
                then: (Bool) throws -> Void, otherwise: ((Bool) throws -> Void)?) throws {
        enterRegion(assigned: assigned)
        defer { exitRegion() }
        if isUniform(condition) {
            // First without a mask home (retirements that jump leave the mask alone); if an
            // arm retires lanes by mask after all, redo the branch with the mask in a home.
            if canRetire && speculationBudget > 0 {
                speculationBudget -= 1
                let saved = state.snapshot()
                do {
                    try uniformBranch(condition, useMaskHome: false, then: then, otherwise: otherwise)
                    return
                } catch LoweringError.branchNeedsMaskHome {
                    state.restore(saved)
                }
            }
            try uniformBranch(condition, useMaskHome: canRetire, then: then, otherwise: otherwise)
            return
        }
        let start = state.mask
        let elseLabel = newLabel(), joinLabel = newLabel()
        state.divergentDepth += 1
        defer { state.divergentDepth -= 1 }
        let startRegister: VirtualRegister? = start == .all ? nil : maskRegister
        var thenMask = startRegister.map { op(.and, $0, condition) } ?? condition
        if canRetire {
            let home = newHome(uniform: false)
            emitBody(IRInstruction(opcode: .mov, a: home, b: thenMask))
            thenMask = home
        }
        // Under a mask, the else lanes are the mask's lanes the then arm does not take:
        // `start ^ (start & c)` is `start & !c` for masks and conditions of 0s and 1s (what
        // comparisons and mask operations give), in one instruction instead of two — one
        // less on every pass of a sphere tracer's exit test (`if (d < eps) break;`). It
        // reads the then mask's home, so the `and` is still computed straight into it.
        var elseMask = startRegister.map { op(.xor, $0, thenMask) } ?? op(.lnot, condition)
        if canRetire && otherwise != nil {
            let elseHome = newHome(uniform: false)
            emitBody(IRInstruction(opcode: .mov, a: elseHome, b: elseMask))
            elseMask = elseHome
        }
        jump(.jnone, thenMask, elseLabel)
        state.mask = .lanes(thenMask)
        try then(true)
        // An arm that every lane leaves (`if (d < eps) break;`) brings no lane to the join:
        // its mask would be written back as zero only to be or-ed into the other's. The
        // join is the other arm's mask (a sphere tracer's exit test: `running & !c`, no
        // `or`, no write-back, and an empty arm's `jnone` goes with dead-code elimination).
        let thenLeaves = state.mask == .retired
        if canRetire && !thenLeaves { try writeBackMask(thenMask, state.mask) }
        placeLabel(elseLabel)
        var elseLeaves = false
        if let otherwise {
            jump(.jnone, elseMask, joinLabel)
            state.mask = .lanes(elseMask)
            try otherwise(true)
            elseLeaves = state.mask == .retired
            if canRetire && !elseLeaves { try writeBackMask(elseMask, state.mask) }
            placeLabel(joinLabel)
        }
        switch (canRetire, thenLeaves, elseLeaves) {
        case (false, _, _): state.mask = start
        case (true, true, true): state.mask = .retired
        case (true, true, false): state.mask = .lanes(elseMask)
        case (true, false, true): state.mask = .lanes(thenMask)
        case (true, false, false): state.mask = .lanes(op(.or, thenMask, elseMask))
        }
    }

    /// `jz c, else; then; jmp join; else: otherwise; join:`. With `useMaskHome`, the mask is
    /// copied into a home first so arms that retire lanes by mask can update it.
    func uniformBranch(_ condition: VirtualRegister, useMaskHome: Bool,
                       then: (Bool) throws -> Void, otherwise: ((Bool) throws -> Void)?) throws {
        let elseLabel = newLabel(), joinLabel = newLabel()
        var maskHome: VirtualRegister?
        if useMaskHome {
            let home = newHome(uniform: false)
            emitBody(IRInstruction(opcode: .mov, a: home, b: maskRegister))
            maskHome = home
            state.mask = .lanes(home)
        }
        let inner = state.mask
        jump(.jz, condition, elseLabel)
        try then(false)
        let endThen = state.mask
        if let maskHome { try writeBackMask(maskHome, endThen) }
        if otherwise != nil && endThen != .unreachable { jump(joinLabel) }
        placeLabel(elseLabel)
        state.mask = inner
        var endElse = inner
        if let otherwise {
            try otherwise(false)
            endElse = state.mask
            if let maskHome { try writeBackMask(maskHome, endElse) }
            placeLabel(joinLabel)
        }
        if maskHome == nil {
            for end in [endThen, endElse] where end != inner && end != .unreachable {
                throw LoweringError.branchNeedsMaskHome
            }
        }
        if endThen == .unreachable && endElse == .unreachable {
            state.mask = .unreachable
        } else {
            state.mask = inner
        }
    }

    // MARK: - Loops

    /// `scopedLocals`: variables a `for` statement declares, which nothing reads after the loop.
    func lowerLoop(_ condition: TypedExpression?, _ step: TypedExpression?, _ body: [TypedStatement], _ testFirst: Bool,
                   scopedLocals: Set<VariableID> = []) throws {
        if try unrolled(condition, step, body, testFirst) { return }
        if unrollingDepth > 0 { throw LoweringError.notUnrollable }
        let assigned = assignedVariables(body, extra: [condition, step].compactMap { $0 }, program: program)
        enterRegion(assigned: assigned)
        defer { exitRegion() }
        let loop = newLoopID()
        if speculatesUniformLoops {
            try speculativeLoop(condition, step, body, testFirst, assigned, loop: loop, scopedLocals: scopedLocals)
            return
        }
        let facts = uniformity(of: condition, step, body, scopedLocals: scopedLocals)
        if facts.controlIsVarying {
            try maskedLoop(condition, step, body, testFirst, assigned, loop: loop, scopedLocals: scopedLocals)
            return
        }
        // Lowering checks what the analysis promised: a loop it finds needing masks after
        // all, or a home it finds varying, is lowered masked (and counted: the analysis
        // erred, it should only ever err towards varying).
        let saved = state.snapshot()
        for home in homes(of: facts.varyingVariables.intersection(assigned)) { state.isUniform[home] = false }
        do {
            try uniformLoop(condition, step, body, testFirst, assigned, loop: loop)
            return
        } catch LoweringError.respeculate {
            state.restore(saved)
        } catch LoweringError.becameVarying(let home) {
            state.restore(saved)
            // A home of an enclosing loop: that loop's promise failed, not this one's.
            if state.watchedHomes.contains(where: { $0.contains(home) }) { throw LoweringError.becameVarying(home) }
        }
        uniformityMisses += 1
        try maskedLoop(condition, step, body, testFirst, assigned, loop: loop, scopedLocals: scopedLocals)
    }

    /// What `LoopUniformityAnalysis` proves about a loop about to be lowered, from lowering's
    /// view of the variables declared before it.
    func uniformity(of condition: TypedExpression?, _ step: TypedExpression?, _ body: [TypedStatement],
                    scopedLocals: Set<VariableID>) -> LoopUniformityAnalysis.LoopFacts {
        let frame = state.frames[frameIndex]
        var analysis = LoopUniformityAnalysis(
            program: program, function: frame.function, discards: functionDiscards,
            isVaryingBefore: { self.isVaryingNow($0) },
            isMaskedBefore: { id in
                guard let slot = self.slot(self.frameIndex, id) else { return true }
                let root = self.resolveRoot(self.frameIndex, id, nil)
                if root.frame != self.frameIndex, self.state.mask != self.state.frames[root.frame + 1].entryMask { return true }
                let owner = self.slot(root.frame, root.id) ?? slot
                return self.state.divergentDepth > owner.divergentDepth
            },
            returnsAreMasked: state.divergentDepth != frame.divergentDepth,
            pinned: frame.pinned,
            isConstantTableBefore: { id in
                guard self.program.functions[frame.function].variables[id].isConst else { return false }
                let root = self.resolveRoot(self.frameIndex, id, nil)
                let components = self.rootComponents(root.frame, root.id)
                return !components.isEmpty && components.allSatisfy { self.state.knownConstant[$0] != nil }
            },
            shared: uniformityShared)
        return analysis.loop(condition, step, body, scopedLocals: scopedLocals)
    }

    /// The loop lowering of `CompileOptions.speculatesUniformLoops`: jump-based control
    /// tried on a snapshot, restarted with each home that turns varying made varying from
    /// the start (a fixed point), rolled back to a masked loop when control turns out
    /// varying. Kept as the reference the analysis is checked against.
    func speculativeLoop(_ condition: TypedExpression?, _ step: TypedExpression?, _ body: [TypedStatement],
                         _ testFirst: Bool, _ assigned: Set<VariableID>, loop: Int, scopedLocals: Set<VariableID>) throws {
        var varying = Set<VirtualRegister>()
        attempts: while speculationBudget > 0 {
            speculationBudget -= 1
            let saved = state.snapshot()
            for home in varying { state.isUniform[home] = false }
            do {
                try uniformLoop(condition, step, body, testFirst, assigned, loop: loop)
                return
            } catch LoweringError.respeculate {
                state.restore(saved)
                break attempts
            } catch LoweringError.becameVarying(let home) {
                state.restore(saved)
                if state.watchedHomes.contains(where: { $0.contains(home) }) || varying.contains(home) {
                    throw LoweringError.becameVarying(home)
                }
                varying.insert(home)
            }
        }
        try maskedLoop(condition, step, body, testFirst, assigned, loop: loop, scopedLocals: scopedLocals)
    }

    /// Whether `e` reads a texture or a variable that is varying now (its registers are not
    /// all uniform).
    func readsVaryingValue(_ e: TypedExpression) -> Bool {
        var found = false
        StatementScanner.visit(e) { inner in
            switch inner.kind {
            case .textureSample, .layerSample, .textureRead:
                found = true
            case .variable(let id):
                if isVaryingNow(id) { found = true }
            default:
                break
            }
        }
        return found
    }

    /// Whether a variable of the current frame holds a varying value now: any of its
    /// registers (through `thread T &` aliases) is not uniform. False for one not declared.
    func isVaryingNow(_ id: VariableID) -> Bool {
        let root = resolveRoot(frameIndex, id, nil)
        return rootComponents(root.frame, root.id).contains { !state.isUniform[$0] }
    }

    /// A loop whose control is the same in every lane: `jz` before, `jnz` as the back edge.
    func uniformLoop(_ condition: TypedExpression?, _ step: TypedExpression?, _ body: [TypedStatement], _ testFirst: Bool,
                     _ assigned: Set<VariableID>, loop: Int) throws {
        emitDebug(.loopStart(loop: loop))
        state.watchedHomes.append(homes(of: assigned))
        defer { state.watchedHomes.removeLast() }
        let start = state.mask
        let exitLabel = newLabel(), headLabel = newLabel(), continueLabel = newLabel()
        state.breakables.append(Breakable(isLoop: true, isUniform: true, breakLabel: exitLabel, continueLabel: continueLabel,
                                          exitLanes: nil, continueLanes: nil, divergentDepth: state.divergentDepth,
                                          bodyMask: start))
        defer { state.breakables.removeLast() }
        if testFirst, let condition {
            let c = try value(condition)[0]
            guard isUniform(c) else { throw LoweringError.respeculate }
            if state.knownConstant[c] == 0 { return }
            jump(.jz, c, exitLabel)
        }
        placeLabel(headLabel)
        emitDebug(.iteration(loop: loop, mask: debugMask))
        try lowerBlock(body)
        guard state.mask == start || state.mask == .unreachable else { throw LoweringError.respeculate }
        state.mask = start
        placeLabel(continueLabel)
        if let step {
            // The step (`i++`) is a statement of its own for the debugger, on the loop's line.
            _ = try at(step.range) {
                statementEvent()
                return try value(step)
            }
        }
        let c = try condition.map { try value($0)[0] } ?? one
        guard isUniform(c), state.mask == start else { throw LoweringError.respeculate }
        jump(.jnz, c, headLabel)
        placeLabel(exitLabel)
        emitDebug(.loopEnd(loop: loop))
        state.mask = start
    }

    /// A loop that runs while any lane is active: `jany` is the back edge.
    ///
    /// A counter of a `for` statement (`scopedLocals`) that only the step assigns, from
    /// itself and uniform values, stays uniform: the step writes it in every lane that
    /// entered the loop, not only the running ones. Lanes that left have no use for it —
    /// nothing after the loop can name it — and lanes still running all took the same
    /// steps. The sphere tracer's `i < 80; i++` is then two instructions run once per
    /// batch instead of a compare, an add and a masked write per lane.
    func maskedLoop(_ condition: TypedExpression?, _ step: TypedExpression?, _ body: [TypedStatement], _ testFirst: Bool,
                    _ assigned: Set<VariableID>, loop: Int, scopedLocals: Set<VariableID> = []) throws {
        let counters = uniformCounters(step, body, condition, scopedLocals)
        let counterHomes = homes(of: counters)
        emitDebug(.loopStart(loop: loop))
        state.divergentDepth += 1
        defer { state.divergentDepth -= 1 }
        for home in homes(of: assigned).sorted() where !counterHomes.contains(home) { try setUniformity(home, false) }
        let start = state.mask
        let running = newHome(uniform: false)
        emitBody(IRInstruction(opcode: .mov, a: running, b: maskRegister))
        // The lanes that left through the condition or `break` are the mask after the loop
        // only when lanes can also leave it otherwise (`return`, `discard_fragment()`);
        // else the mask after it is the one before, and nobody needs them — a bare
        // `break` is then no code at all, and its `if` no jump.
        let retiresOut = StatementScanner.canRetire(body, discards: functionDiscards, insideLoop: true)
        var exited: VirtualRegister?
        if retiresOut {
            let home = newHome(uniform: false)
            emitBody(IRInstruction(opcode: .mov, a: home, b: zero))
            exited = home
        }
        let continued = StatementScanner.containsContinue(body) ? newHome(uniform: false) : nil
        let headLabel = newLabel(), exitLabel = newLabel()
        state.breakables.append(Breakable(isLoop: true, isUniform: false, breakLabel: exitLabel, continueLabel: exitLabel,
                                          exitLanes: exited, continueLanes: continued, divergentDepth: state.divergentDepth))
        defer { state.breakables.removeLast() }
        func test(_ condition: TypedExpression) throws {
            let c = try value(condition)[0]
            // `while (true)`, `for (;;)`: a condition that holds everywhere keeps every running
            // lane (and exits none), so there is no mask to update on each pass.
            if let known = state.knownConstant[c], known != 0 { return }
            if let exited { try emitInto(exited, .or, exited, op(.and, running, op(.lnot, c))) }
            try emitInto(running, .and, running, c)
        }
        placeLabel(headLabel)
        state.mask = .lanes(running)
        if testFirst, let condition {
            try test(condition)
            jump(.jnone, running, exitLabel)
        }
        if let continued { emitBody(IRInstruction(opcode: .mov, a: continued, b: zero)) }
        state.mask = .lanes(running)
        emitDebug(.iteration(loop: loop, mask: running))
        try lowerBlock(body)
        var next: VirtualRegister?
        if case .lanes(let register) = state.mask { next = register }
        if let continued { next = next.map { op(.or, $0, continued) } ?? continued }
        if next != running { try emitInto(running, .mov, next ?? zero) }
        state.mask = .lanes(running)
        if let step {
            // The step (`i++`) is a statement of its own for the debugger, on the loop's line.
            _ = try at(step.range) {
                statementEvent()
                guard !counters.isEmpty else { return try value(step) }
                // Uniform counters: written where the loop started, unmasked.
                let (mask, depth) = (state.mask, state.divergentDepth)
                (state.mask, state.divergentDepth) = (start, depth - 1)
                defer { (state.mask, state.divergentDepth) = (mask, depth) }
                return try value(step)
            }
        }
        if !testFirst, let condition { try test(condition) }
        jump(.jany, running, headLabel)
        placeLabel(exitLabel)
        emitDebug(.loopEnd(loop: loop))
        // Every lane that entered leaves through `exited` unless it returned or discarded:
        // without those, the mask after the loop is the mask before it (which keeps an
        // enclosing uniform loop uniform).
        state.mask = exited.map { .lanes($0) } ?? start
    }

    /// The `for` counters `maskedLoop` keeps uniform: the candidates
    /// (`StatementScanner.counterCandidates`) of a step that reads nothing varying.
    func uniformCounters(_ step: TypedExpression?, _ body: [TypedStatement], _ condition: TypedExpression?,
                         _ scopedLocals: Set<VariableID>) -> Set<VariableID> {
        let candidates = StatementScanner.counterCandidates(step, body, condition, scopedLocals, program: program)
        guard let step, !candidates.isEmpty, !readsVaryingValue(step) else { return [] }
        return candidates
    }

    func lowerBreak(_ range: SourceRange) throws {
        guard let target = state.breakables.last else { throw fail("'break' outside a loop or switch", range) }
        try leave(target, jumpingTo: target.breakLabel, retiringInto: target.exitLanes)
    }

    func lowerContinue(_ range: SourceRange) throws {
        guard let target = state.breakables.last(where: \.isLoop) else { throw fail("'continue' outside a loop", range) }
        try leave(target, jumpingTo: target.continueLabel, retiringInto: target.continueLanes)
    }

    /// `break` and `continue`: a uniform loop jumps (only while the mask is the one its body
    /// started with — otherwise the loop is lowered again as a masked loop); a masked one
    /// adds the active lanes to `lanes` and retires them for the rest of the body.
    private func leave(_ target: Breakable, jumpingTo label: Int, retiringInto lanes: VirtualRegister?) throws {
        if target.isUniform {
            guard state.divergentDepth == target.divergentDepth, state.mask == target.bodyMask else {
                throw LoweringError.respeculate
            }
            jump(label)
            state.mask = .unreachable
        } else {
            // A masked loop whose exits nobody reads has no `exitLanes`: the lanes just retire.
            if let lanes { try emitInto(lanes, .or, lanes, maskRegister) }
            state.mask = .retired
        }
    }

    func lowerReturn(_ e: TypedExpression?) throws {
        let values = try e.map { try value($0) } ?? []
        let frame = state.frames[frameIndex]
        if frame.hasSingleFinalReturn {
            state.frames[frameIndex].directResult = values
            state.mask = .unreachable
            return
        }
        let mask: VirtualRegister? = state.mask == frame.entryMask ? nil : maskRegister
        for (home, v) in zip(frame.returnHome, values) { try writeHome(home, v, mask: mask) }
        if let returned = frame.returnedLanes { try emitInto(returned, .or, returned, maskRegister) }
        if state.divergentDepth == frame.divergentDepth {
            jump(frame.endLabel)
            state.mask = .unreachable
        } else {
            state.frames[frameIndex].didMaskRetire = true
            state.mask = .retired
        }
    }

    /// `switch`: a compare chain under masks; `active` holds the lanes running the case
    /// bodies (entering at their label, falling through), `broke` those that left by `break`.
    func lowerSwitch(_ subject: TypedExpression, _ cases: [TypedSwitchCase]) throws {
        let s = try value(subject)[0]
        let assigned = assignedVariables(cases.flatMap(\.body), program: program)
        enterRegion(assigned: assigned)
        defer { exitRegion() }
        state.divergentDepth += 1
        defer { state.divergentDepth -= 1 }
        let start = state.mask
        let startRegister = maskRegister
        var hits: [VirtualRegister?] = []
        var anyHit: VirtualRegister?
        for c in cases {
            var hit: VirtualRegister?
            for v in c.values {
                let t = op(.ieq, s, constant(UInt32(truncatingIfNeeded: v)))
                hit = hit.map { op(.or, $0, t) } ?? t
            }
            hits.append(hit)
            if let hit { anyHit = anyHit.map { op(.or, $0, hit) } ?? hit }
        }
        let noHit = anyHit.map { op(.lnot, $0) } ?? one
        let active = newHome(uniform: false)
        emitBody(IRInstruction(opcode: .mov, a: active, b: zero))
        let broke = newHome(uniform: false)
        emitBody(IRInstruction(opcode: .mov, a: broke, b: zero))
        state.breakables.append(Breakable(isLoop: false, isUniform: false, breakLabel: -1, continueLabel: -1,
                                          exitLanes: broke, continueLanes: nil, divergentDepth: state.divergentDepth))
        defer { state.breakables.removeLast() }
        for (index, c) in cases.enumerated() {
            var hit = hits[index]
            if c.isDefault { hit = hit.map { op(.or, $0, noHit) } ?? noHit }
            // Every lane runs the switch (`start` is `all`): a lane enters where it hits.
            if let hit { try emitInto(active, .or, active, start == .all ? hit : op(.and, startRegister, hit)) }
            let skip = newLabel()
            jump(.jnone, active, skip)
            state.mask = .lanes(active)
            try lowerBlock(c.body)
            try writeBackMask(active, state.mask)
            placeLabel(skip)
        }
        // Without return/continue/discard inside, every lane that entered leaves.
        if !StatementScanner.canRetire(cases.flatMap(\.body), discards: functionDiscards, insideSwitch: true) {
            state.mask = start
            return
        }
        var after = op(.or, active, broke)
        if !cases.contains(where: \.isDefault) { after = op(.or, after, op(.and, startRegister, noHit)) }
        state.mask = .lanes(after)
    }

    // MARK: - Calls

    /// Inlines a helper call: parameters bound to the argument registers (aliases for
    /// `thread T &`), the body lowered with its own return handling.
    func inline(_ function: FunctionID, _ arguments: [TypedExpression], _ e: TypedExpression) throws -> [VirtualRegister] {
        guard state.frames.count < 128 else { throw fail("not supported: calls nested this deeply", e.range) }
        // Inlining is the one place lowering work can grow exponentially in the source size.
        inlinedCalls += 1
        guard inlinedCalls <= maxInlinedCalls else {
            throw fail("more than \(maxInlinedCalls) helper calls to inline (CompileOptions.maxInlinedCalls)", e.range)
        }
        guard state.prologue.count + state.body.count <= maxInstructions else {
            throw fail("the function needs more than \(maxInstructions) instructions (LibraryLimits.maxInstructions)", e.range)
        }
        let callee = program.functions[function]
        var bindings: [(VariableID, VariableStorage)] = []
        // References to an element chosen at run time (`f(a[i])`, `f(&a[i])`) are copied in
        // and, when the call returns, out again: an alias cannot name a dynamic element.
        var copiedBack: [(parameter: VariableID, place: LValue)] = []
        // Whether a parameter names a variable of the caller (`thread T &`, `thread T *`).
        var aliasesCaller = false
        for (parameter, argument) in zip(callee.parameters, arguments) {
            if parameter.type.isThreadPointer {
                aliasesCaller = true
                let (storage, dynamic) = try pointee(of: argument)
                bindings.append((parameter.variable, storage))
                if let dynamic { copiedBack.append((parameter.variable, dynamic)) }
                continue
            }
            switch parameter.type {
            case .texture, .layer, .sampler, .pointer:
                bindings.append((parameter.variable, try resource(argument)))
                continue
            default: break
            }
            if parameter.isReference, lvalueRoot(argument) != nil {
                var place: LValue?
                do { place = try lvalue(argument) } catch LoweringError.diagnostic { place = nil }
                if let place, place.dynamic == nil {
                    aliasesCaller = true
                    bindings.append((parameter.variable, .reference(frame: place.frame, variable: place.variable, path: place.components)))
                    continue
                }
                if let place, !callee.variables[parameter.variable].isConst { copiedBack.append((parameter.variable, place)) }
            }
            bindings.append((parameter.variable, .components(stable(try value(argument)))))
        }
        let calleeFacts = facts(of: function)
        let single = calleeFacts.singleFinalReturn && !functionDiscards[function]
        var frame = Frame(function: function, entryMask: state.mask, divergentDepth: state.divergentDepth,
                          endLabel: newLabel(), isEntry: false)
        frame.variables = Array(repeating: nil, count: callee.variables.count)
        frame.activation = newActivation(function, at: e.range.start)
        frame.pinned = calleeFacts.pinned
        frame.hasSingleFinalReturn = single
        if !single {
            frame.returnHome = (0..<count(callee.returnType)).map { _ in newHome(uniform: true) }
        }
        if functionDiscards[function] {
            // Lanes that come back to the caller: all that entered except the discarded.
            let returned = newHome(uniform: false)
            emitBody(IRInstruction(opcode: .mov, a: returned, b: zero))
            frame.returnedLanes = returned
        }
        state.frames.append(frame)
        for (id, storage) in bindings {
            if case .components(let values) = storage, frame.pinned.contains(id) {
                try declareValue(id, type: callee.variables[id].type, values: values, pinned: true)
            } else {
                declare(id, storage: storage)
            }
            bindEvent(frameIndex, id)
        }
        // The helper's rest after an early return is skippable like the entry's when the
        // helper only computes its result: a write through a reference or pointer after the
        // early return renames the caller's variable to a register the skipped code would
        // have made (and a copy-back reads the callee's own variables after its end).
        try lowerBlock(callee.body, skipTo: aliasesCaller || !copiedBack.isEmpty ? nil : state.frames[frameIndex].endLabel)
        if let returned = state.frames[frameIndex].returnedLanes, state.mask.isLive {
            try emitInto(returned, .or, returned, maskRegister)
        }
        placeLabel(state.frames[frameIndex].endLabel)
        let copiedOut = copiedBack.map { (place: $0.place, values: rootComponents(frameIndex, $0.parameter)) }
        let finished = state.frames.removeLast()
        for home in finished.returnHome { state.isHome[home] = false }
        if finished.didMaskRetire, let returned = finished.returnedLanes {
            state.mask = .lanes(returned)
        } else {
            state.mask = finished.entryMask
        }
        for (place, values) in copiedOut { try store(place, values) }
        return finished.directResult ?? finished.returnHome
    }

    /// What a `thread T *` argument points at, as an alias of the caller's components:
    /// `&x` the components of `x`; an array (or `&a[k]`, k constant) the elements from k on,
    /// so the callee may index it; another such parameter, what that one points at.
    /// A pointer to an element chosen at run time points at a copy of it, which goes back
    /// to that place (returned as the second value) when the call returns.
    func pointee(of argument: TypedExpression) throws -> (VariableStorage, copyBack: LValue?) {
        var target = argument
        var first = 0
        if case .addressOf(let inner) = argument.kind {
            target = inner
            if case .index(let array, let index) = inner.kind, case .array(let element, let length) = array.type,
               let k = state.knownConstant[try value(index)[0]], Int(Int32(bitPattern: k)) >= 0, Int(k) < length {
                target = array
                first = Int(k) * count(element)
            }
        }
        let place = try lvalue(target)
        if place.dynamic != nil {
            return (.components(stable(try load(place))), place)
        }
        return (.reference(frame: place.frame, variable: place.variable, path: Array(place.components.dropFirst(first))), nil)
    }

    /// The resource (texture, sampler, buffer) an argument expression names.
    func resource(_ e: TypedExpression) throws -> VariableStorage {
        switch e.kind {
        case .variable(let id):
            if let slot = slot(frameIndex, id) { return slot.storage }
        case .global(let g):
            if let sampler = program.globals[g].sampler { return .sampler(sampler) }
        default: break
        }
        throw fail("not supported: passing this resource to a function", e.range)
    }
}
