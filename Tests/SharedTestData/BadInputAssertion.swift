import CloudCore
import XCTest

/// Asserts that `body` throws `CloudError.badInput` whose one-line message names `name`.
public func assertBadInput<T>(
    naming name: String, containing detail: String? = nil,
    file: StaticString = #filePath, line: UInt = #line, _ body: () throws -> T
) {
    do {
        _ = try body()
        XCTFail("expected a bad-input error naming \(name), got success", file: file, line: line)
    } catch let error as CloudError {
        XCTAssertEqual(error.kind, .badInput, "wrong kind for: \(error.message)", file: file, line: line)
        XCTAssertTrue(error.message.hasPrefix(name + ": "), "message does not start with \(name): \(error.message)", file: file, line: line)
        XCTAssertFalse(error.message.contains("\n"), "message is not one line: \(error.message)", file: file, line: line)
        if let detail {
            XCTAssertTrue(error.message.contains(detail), "message does not say '\(detail)': \(error.message)", file: file, line: line)
        }
    } catch {
        XCTFail("expected a CloudError, got \(error)", file: file, line: line)
    }
}
