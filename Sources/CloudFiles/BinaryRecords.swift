/// Decoding runs of fixed-size binary records (binary PLY, binary PCD) or field planes (PCD
/// binary_compressed) into a cloud's channels: one tight loop per channel, the type and byte
/// order decided once per run, not once per value.
struct BinaryRecords {
    /// Byte offset of each field's first value (by the file's field index), and the bytes from
    /// one point's value to the next: the record size for records, the field's size for planes.
    var offsets: [Int]
    var strides: [Int]
    var bigEndian: Bool
    let channels: CloudChannels

    /// Records of `step` bytes whose fields start at `offsets` within them.
    init(records offsets: [Int], step: Int, bigEndian: Bool, channels: CloudChannels) {
        self.init(offsets: offsets, strides: Array(repeating: step, count: offsets.count), bigEndian: bigEndian, channels: channels)
    }

    init(offsets: [Int], strides: [Int], bigEndian: Bool, channels: CloudChannels) {
        self.offsets = offsets
        self.strides = strides
        self.bigEndian = bigEndian
        self.channels = channels
    }

    /// Decodes `count` records of `step` bytes from `stream`, as many per window as it holds, into
    /// `output`'s first `count` points. `what` names a record in messages ("vertex").
    func decode(from stream: inout ByteStream, count: Int, step: Int, into output: inout CloudOutput, what: String) throws {
        var done = 0
        while done < count {
            let window = try stream.window(atLeast: step, atMost: (count - done) * step, what: "\(what) \(done)")
            let n = window.count / step
            decode(window.baseAddress!, count: n, into: &output, at: done)
            stream.advance(n * step)
            done += n
        }
    }

    /// Decodes `count` records at `records` into `output`'s points [start, start + count).
    func decode(_ records: UnsafeRawPointer, count: Int, into output: inout CloudOutput, at start: Int) {
        output.positions.withUnsafeMutableBufferPointer { p in
            let out = p.baseAddress! + 3 * start
            for (axis, source) in [channels.x, channels.y, channels.z].enumerated() {
                floats(
                    records + offsets[source.index], source.type, stride: strides[source.index], count: count, into: out + axis,
                    outStride: 3)
            }
        }
        if let color = channels.color {
            output.colors!.withUnsafeMutableBufferPointer { c in
                colors(records, color, count: count, into: c.baseAddress! + 3 * start)
            }
        }
        if let normal = channels.normal {
            output.normals!.withUnsafeMutableBufferPointer { n in
                for (axis, source) in [normal.0, normal.1, normal.2].enumerated() {
                    floats(
                        records + offsets[source.index], source.type, stride: strides[source.index], count: count,
                        into: n.baseAddress! + 3 * start + axis, outStride: 3)
                }
            }
        }
        if let curvature = channels.curvature {
            output.curvature!.withUnsafeMutableBufferPointer { c in
                floats(
                    records + offsets[curvature.index], curvature.type, stride: strides[curvature.index], count: count,
                    into: c.baseAddress! + start, outStride: 1)
            }
        }
    }

    /// The value at `first` and every `stride` bytes after it, as Float.
    private func floats(
        _ first: UnsafeRawPointer, _ type: ScalarType, stride: Int, count: Int, into out: UnsafeMutablePointer<Float>, outStride: Int
    ) {
        if type == .float32 && !bigEndian {
            for i in 0..<count { out[i * outStride] = first.loadUnaligned(fromByteOffset: i * stride, as: Float.self) }
        } else {
            for i in 0..<count { out[i * outStride] = Float(type.load(first + i * stride, bigEndian: bigEndian)) }
        }
    }

    private func colors(_ records: UnsafeRawPointer, _ color: CloudChannels.Color, count: Int, into out: UnsafeMutablePointer<UInt8>) {
        switch color {
        case let .packed(source):
            let first = records + offsets[source.index]
            let stride = strides[source.index]
            for i in 0..<count {
                let bits = source.type.loadBits32(first + i * stride, bigEndian: bigEndian)
                out[3 * i] = UInt8(truncatingIfNeeded: bits >> 16)
                out[3 * i + 1] = UInt8(truncatingIfNeeded: bits >> 8)
                out[3 * i + 2] = UInt8(truncatingIfNeeded: bits)
            }
        case let .separate(r, g, b):
            for (channel, source) in [r, g, b].enumerated() {
                let first = records + offsets[source.index]
                let stride = strides[source.index]
                if source.type == .uint8 {
                    for i in 0..<count { out[3 * i + channel] = first.load(fromByteOffset: i * stride, as: UInt8.self) }
                } else {
                    for i in 0..<count {
                        out[3 * i + channel] = colorByte(source.type.load(first + i * stride, bigEndian: bigEndian), source.type)
                    }
                }
            }
        }
    }
}
