import Testing
@testable import KilnVM
