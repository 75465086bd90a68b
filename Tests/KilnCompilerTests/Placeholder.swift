import Testing
@testable import KilnCompiler
