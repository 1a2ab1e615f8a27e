import CloudCore

/// The depth encodings the simulated camera can deliver (`format=` in a synthetic source spec):
/// the four AVFoundation float planes and Kinect-style 16-bit millimetres, so that every decoding
/// path in `DepthMap` is exercised by the same scene.
public enum SyntheticDepthFormat: String, CaseIterable, Sendable {
    case depth16, depth32, disparity16, disparity32, mm16

    public var encoding: DepthEncoding {
        switch self {
        case .depth16: return .depthFloat16
        case .depth32: return .depthFloat32
        case .disparity16: return .disparityFloat16
        case .disparity32: return .disparityFloat32
        case .mm16: return .uint16(unitsPerMetre: 1000)
        }
    }

    /// Writes depth `z` (metres along the optical axis; 0 for none) as little-endian sample `index`
    /// of `row`. Millimetres beyond 65.535 m do not fit and are stored as 0 (no depth), as a
    /// sensor past its range reports.
    @inline(__always)
    func store(_ z: Double, into row: UnsafeMutableRawBufferPointer, at index: Int) {
        let valid = z > 0 && z.isFinite
        switch self {
        case .depth16:
            put(Float16(valid ? z : 0).bitPattern, row, index)
        case .depth32:
            put(Float(valid ? z : 0).bitPattern, row, index)
        case .disparity16:
            put(Float16(valid ? 1 / z : 0).bitPattern, row, index)
        case .disparity32:
            put(Float(valid ? 1 / z : 0).bitPattern, row, index)
        case .mm16:
            let mm = valid ? (z * 1000).rounded() : 0
            put(mm <= Double(UInt16.max) ? UInt16(mm) : 0, row, index)
        }
    }

    @inline(__always)
    private func put<T: FixedWidthInteger>(_ value: T, _ row: UnsafeMutableRawBufferPointer, _ index: Int) {
        row.storeBytes(of: value.littleEndian, toByteOffset: index * MemoryLayout<T>.size, as: T.self)
    }
}
