import Testing
@testable import KilnLanguage
