/// The numeric types cloud files store: PLY's char ... double (and their int8 ... float64
/// aliases), PCD's TYPE and SIZE pairs.
enum ScalarType: Equatable, Sendable {
    case int8, uint8, int16, uint16, int32, uint32, int64, uint64, float32, float64

    var size: Int {
        switch self {
        case .int8, .uint8: return 1
        case .int16, .uint16: return 2
        case .int32, .uint32, .float32: return 4
        case .int64, .uint64, .float64: return 8
        }
    }

    var isInteger: Bool { self != .float32 && self != .float64 }

    /// PLY's type names, both spellings.
    init?(plyName: String) {
        switch plyName {
        case "char", "int8": self = .int8
        case "uchar", "uint8": self = .uint8
        case "short", "int16": self = .int16
        case "ushort", "uint16": self = .uint16
        case "int", "int32": self = .int32
        case "uint", "uint32": self = .uint32
        case "float", "float32": self = .float32
        case "double", "float64": self = .float64
        default: return nil
        }
    }

    /// PCD's TYPE letter (F, I, U) with its SIZE; nil for pairs PCL cannot read (F 2, U 3, ...).
    init?(pcdType: UInt8, size: Int) {
        switch (pcdType, size) {
        case (UInt8(ascii: "F"), 4): self = .float32
        case (UInt8(ascii: "F"), 8): self = .float64
        case (UInt8(ascii: "I"), 1): self = .int8
        case (UInt8(ascii: "I"), 2): self = .int16
        case (UInt8(ascii: "I"), 4): self = .int32
        case (UInt8(ascii: "I"), 8): self = .int64
        case (UInt8(ascii: "U"), 1): self = .uint8
        case (UInt8(ascii: "U"), 2): self = .uint16
        case (UInt8(ascii: "U"), 4): self = .uint32
        case (UInt8(ascii: "U"), 8): self = .uint64
        default: return nil
        }
    }

    /// The values an integer type holds (floats: all of them).
    var range: ClosedRange<Double> {
        switch self {
        case .int8: return Double(Int8.min)...Double(Int8.max)
        case .uint8: return 0...Double(UInt8.max)
        case .int16: return Double(Int16.min)...Double(Int16.max)
        case .uint16: return 0...Double(UInt16.max)
        case .int32: return Double(Int32.min)...Double(Int32.max)
        case .uint32: return 0...Double(UInt32.max)
        case .int64: return Double(Int64.min)...Double(Int64.max)
        case .uint64: return 0...Double(UInt64.max)
        case .float32, .float64: return -Double.infinity...Double.infinity
        }
    }

    /// What a color channel of this type counts as full intensity: an integer type's largest
    /// value, 1 for floats (0...1 intensities).
    var maxColorValue: Double { isInteger ? range.upperBound : 1 }

    /// The value at `pointer` as a Double (exact for every type but 64-bit integers past 2^53).
    @inline(__always)
    func load(_ pointer: UnsafeRawPointer, bigEndian: Bool) -> Double {
        switch self {
        case .int8: return Double(pointer.load(as: Int8.self))
        case .uint8: return Double(pointer.load(as: UInt8.self))
        case .int16: return Double(Int16(bitPattern: word(pointer, UInt16.self, bigEndian)))
        case .uint16: return Double(word(pointer, UInt16.self, bigEndian))
        case .int32: return Double(Int32(bitPattern: word(pointer, UInt32.self, bigEndian)))
        case .uint32: return Double(word(pointer, UInt32.self, bigEndian))
        case .int64: return Double(Int64(bitPattern: word(pointer, UInt64.self, bigEndian)))
        case .uint64: return Double(word(pointer, UInt64.self, bigEndian))
        case .float32: return Double(Float(bitPattern: word(pointer, UInt32.self, bigEndian)))
        case .float64: return Double(bitPattern: word(pointer, UInt64.self, bigEndian))
        }
    }

    /// The raw bits of a 4-byte value (packed colors).
    @inline(__always)
    func loadBits32(_ pointer: UnsafeRawPointer, bigEndian: Bool) -> UInt32 {
        word(pointer, UInt32.self, bigEndian)
    }
}

@inline(__always)
func word<T: FixedWidthInteger>(_ pointer: UnsafeRawPointer, _: T.Type, _ bigEndian: Bool) -> T {
    let value = pointer.loadUnaligned(as: T.self)
    return bigEndian ? T(bigEndian: value) : T(littleEndian: value)
}
