@testable import CloudArchives

/// The service's multipart/form-data parser, fed as a network would: the first byte picks the
/// chunk size, the rest is the body (boundary "b"). Parts may be refused, never trap, and never
/// yield more content than the body holds.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = fuzzBytes(data, size)
    guard let first = bytes.first else { return 0 }
    let body = Array(bytes.dropFirst())
    let chunk = Int(first) + 1
    var parser = MultipartParser(boundary: "b")
    var content = 0
    do {
        var start = 0
        while start < body.count {
            let end = min(body.count, start + chunk)
            try parser.feed(body[start..<end]) { event in
                if case .content(let piece) = event { content += piece.count }
            }
            start = end
        }
    } catch is MultipartParser.Failure {
        return 0
    } catch {
        fatalError("the multipart parser threw \(error), not a MultipartParser.Failure")
    }
    precondition(content <= body.count, "more content than the body held")
    return 0
}
