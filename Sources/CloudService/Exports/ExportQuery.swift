import Foundation
import Hummingbird

/// A route's query parameters, in order, taken one by one; what is left over is refused by name.
struct ExportQuery {
    private(set) var remaining: [(name: String, value: String)]
    private let allowed: Set<String>

    init(_ request: Request, allowed: Set<String>) {
        self.allowed = allowed
        remaining = request.uri.queryParameters.map { (String($0.key), String($0.value)) }
    }

    mutating func take(_ name: String) -> String? {
        guard let i = remaining.lastIndex(where: { $0.name == name }) else { return nil }
        let value = remaining[i].value
        remaining.removeAll { $0.name == name }
        return value
    }

    mutating func number(_ name: String, default value: Double, within range: ClosedRange<Double>, whole: Bool = false) throws -> Double {
        guard let text = take(name) else { return value }
        guard let number = Double(text), range.contains(number), !whole || number.rounded() == number else {
            let limits = String(format: "%g...%g", range.lowerBound, range.upperBound)
            throw Problem.badRequest(
                "\(name) \(MessageTextShort.of(text)): needs a \(whole ? "whole number" : "number") within \(limits)", field: name)
        }
        return number
    }

    /// Refuses parameters the route does not take (a typo must not be silently ignored).
    func finish() throws {
        if let unknown = remaining.first(where: { !allowed.contains($0.name) }) {
            throw Problem.badRequest(
                "unknown query parameter \(MessageTextShort.of(unknown.name)); this route takes \(allowed.isEmpty ? "none" : allowed.sorted().joined(separator: ", "))",
                field: unknown.name)
        }
    }
}
