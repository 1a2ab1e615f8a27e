import CloudCore
import SafeIO

/// Reads the points of a PCD file after its header: ascii lines, binary records, or the
/// binary_compressed block (LZF over the fields laid out one plane after another).
struct PCDBodyReader {
    let header: PCDHeader
    let channels: CloudChannels
    let path: String

    init(header: PCDHeader, path: String) throws {
        self.header = header
        self.path = path
        channels = try CloudChannels(
            names: header.fields.map(\.name), types: header.fields.map { $0.count == 1 ? $0.type : nil }, path: path)
    }

    func read(_ stream: inout ByteStream) throws -> CloudOutput {
        try checkLeastData(stream.remaining)
        // The cloud, and for binary_compressed its unpacked planes beside it.
        let planes = header.encoding == .compressed ? header.points * header.pointStep : 0
        try MemoryBudget.require(
            header.points * channels.bytesPerPoint + planes, for: "a cloud of \(header.points) points", about: .file(path))
        var output = CloudOutput(count: header.points, channels: channels)
        guard header.points > 0 else { return output }
        switch header.encoding {
        case .binary: try readBinary(&stream, into: &output)
        case .compressed: try readCompressed(&stream, into: &output)
        case .ascii: try readAscii(&stream, into: &output)
        }
        return output
    }

    /// Holds POINTS against the data there is before anything is allocated for them: binary
    /// records are a fixed size, an ascii value takes at least a character and a separator, and
    /// LZF unpacks one byte into at most 88 (`LZF.canExpand`).
    private func checkLeastData(_ available: Int) throws {
        guard header.points > 0 else { return }
        switch header.encoding {
        case .binary:
            guard let needed = CloudFileLimits.product(header.points, header.pointStep), needed <= available else {
                throw bad(
                    "truncated: the binary data holds \(available) bytes, the header needs \(header.points) points x \(header.pointStep) bytes"
                )
            }
        case .ascii:
            guard let least = CloudFileLimits.product(header.points, 2 * header.valuesPerPoint, plus: -1), least <= available else {
                throw bad(
                    "truncated: \(available) bytes of ascii data cannot hold \(header.points) points of \(header.valuesPerPoint) values")
            }
        case .compressed:
            guard let unpacked = CloudFileLimits.product(header.points, header.pointStep),
                LZF.canExpand(max(0, available - 8), to: unpacked)
            else {
                throw bad(
                    "truncated: \(available) bytes of binary_compressed data cannot unpack to \(header.points) points x \(header.pointStep) bytes"
                )
            }
        }
    }

    private func readBinary(_ stream: inout ByteStream, into output: inout CloudOutput) throws {
        let step = header.pointStep
        let records = BinaryRecords(records: header.fields.map(\.offset), step: step, bigEndian: false, channels: channels)
        try records.decode(from: &stream, count: header.points, step: step, into: &output, what: "point")
        // Whatever follows is PCL's page padding (its writers rounded binary files up for mmap).
    }

    private func readCompressed(_ stream: inout ByteStream, into output: inout CloudOutput) throws {
        let prefix = try stream.window(atLeast: 8, atMost: 8, what: "the binary_compressed sizes")
        let compressed = Int(prefix.loadUnaligned(fromByteOffset: 0, as: UInt32.self).littleEndian)
        let uncompressed = Int(prefix.loadUnaligned(fromByteOffset: 4, as: UInt32.self).littleEndian)
        stream.advance(8)
        guard uncompressed == CloudFileLimits.product(header.points, header.pointStep) else {
            throw bad(
                "the binary_compressed data unpacks to \(uncompressed) bytes, not POINTS x point size (\(header.points) x \(header.pointStep))"
            )
        }
        guard compressed > 0, compressed <= stream.remaining else {
            throw bad(
                "truncated: the binary_compressed data needs \(8 + compressed) bytes, the file holds \(stream.remaining + 8) after the header"
            )
        }
        guard LZF.canExpand(compressed, to: uncompressed) else {
            throw bad("compressed block of \(compressed) bytes cannot unpack to \(uncompressed) bytes")
        }
        let input = try stream.window(atLeast: compressed, atMost: compressed, what: "the compressed block")
        let planes = UnsafeMutableRawBufferPointer.allocate(byteCount: uncompressed, alignment: 16)
        HugePages.advise(planes.baseAddress!, count: uncompressed)
        defer { planes.deallocate() }
        try LZF.decompress(input, into: planes, origin: path)
        stream.advance(compressed)
        // Field k's plane holds every point's value of field k, after the planes of fields before it.
        var offsets: [Int] = []
        var planeStart = 0
        for field in header.fields {
            offsets.append(planeStart)
            planeStart += header.points * field.bytes
        }
        let records = BinaryRecords(offsets: offsets, strides: header.fields.map(\.bytes), bigEndian: false, channels: channels)
        records.decode(UnsafeRawPointer(planes.baseAddress!), count: header.points, into: &output, at: 0)
    }

    private func readAscii(_ stream: inout ByteStream, into output: inout CloudOutput) throws {
        var lines = AsciiLines(stream: stream)
        defer { stream = lines.stream }
        var tokens = AsciiTokens()
        var values = [Double](repeating: 0, count: header.fields.count)
        let record = DecodedRecord(channels: channels)
        var point = 0
        while let line = try lines.next() {
            tokens.split(line)
            guard tokens.count > 0 else { continue }
            guard point < header.points else {
                throw bad("line \(lines.lineNumber) of the ascii data is past the \(header.points) points the header declares")
            }
            guard tokens.count == header.valuesPerPoint else {
                // A short last line is where a cut file ends.
                let cut = tokens.count < header.valuesPerPoint && lines.stream.atEnd ? "truncated: " : ""
                throw bad(
                    "\(cut)line \(lines.lineNumber) of the ascii data has \(tokens.count) values, FIELDS and COUNT give \(header.valuesPerPoint)"
                )
            }
            var column = 0
            for (index, field) in header.fields.enumerated() {
                for k in 0..<field.count {
                    let token = UnsafeRawBufferPointer(rebasing: line[tokens.ranges[column]])
                    guard let value = AsciiNumber.value(token, as: field.type) else {
                        throw bad(
                            "line \(lines.lineNumber) of the ascii data: '\(String(decoding: token.prefix(40), as: UTF8.self))' is not \(describe(field.type)) (field \(field.name.prefix(40)))"
                        )
                    }
                    if k == 0 { values[index] = value }
                    column += 1
                }
            }
            record.store(values, into: &output, at: point)
            point += 1
        }
        guard point == header.points else {
            throw bad("truncated: the ascii data has \(point) points, the header declares \(header.points)")
        }
    }

    private func bad(_ problem: String) -> CloudError {
        CloudError.badInput(.file(path), "\(problem)")
    }
}

/// "a float", "an integer from 0 to 255", ... for messages about ascii values.
func describe(_ type: ScalarType) -> String {
    switch type {
    case .float32, .float64: return "a number"
    case .uint8: return "an integer from 0 to 255"
    case .int8: return "an integer from -128 to 127"
    case .uint16: return "an integer from 0 to 65535"
    case .int16: return "an integer from -32768 to 32767"
    case .uint32: return "an integer from 0 to 4294967295"
    case .int32: return "an integer from -2147483648 to 2147483647"
    case .uint64, .int64: return "a 64-bit integer"
    }
}
