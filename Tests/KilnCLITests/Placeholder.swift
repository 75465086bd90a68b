import Testing
@testable import KilnCLI
