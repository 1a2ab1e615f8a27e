import CloudCore
import CloudStream
import Foundation

/// One message of the stream framing, as a peer's socket delivers it: split, its header decoded
/// into a header that announces its payloads' sizes, and the body cut into them. Whatever the
/// length, header or sizes say, a bad message is one line of bad input and nothing is allocated
/// past what arrived.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    struct Header: Decodable {
        var frame: Int
        var sizes: [Int]
    }
    let message = Data(fuzzBytes(data, size))
    FuzzContract.check(origin: "socket") {
        let (header, payloads) = try StreamMessage.decode(message, origin: "socket", as: Header.self) { $0.sizes }
        if payloads.map(\.count) != header.sizes { FuzzContract.fail("payloads \(payloads.map(\.count)) for sizes \(header.sizes)") }
    }
    return 0
}
