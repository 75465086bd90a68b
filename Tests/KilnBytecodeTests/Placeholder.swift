import Testing
@testable import KilnBytecode
