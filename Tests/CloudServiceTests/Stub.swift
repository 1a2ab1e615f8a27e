import XCTest
import HummingbirdTesting
final class StubTests: XCTestCase {}
