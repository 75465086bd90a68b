import Testing
@testable import KilnRender
