@testable import CloudCapture

/// TUM RGB-D index files (rgb.txt, depth.txt) and the association of depth to color frames. The
/// input up to its first NUL byte is rgb.txt, the rest depth.txt (without a NUL, both are the
/// input). The frame files they name need not exist: TUMSource checks them after these steps.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = fuzzBytes(data, size)
    let split = bytes.firstIndex(of: 0)
    let colorList = FuzzFolder.write(UnsafeRawBufferPointer(rebasing: bytes[..<(split ?? bytes.count)]), to: "rgb.txt")
    let depthList = FuzzFolder.write(UnsafeRawBufferPointer(rebasing: bytes[(split.map { $0 + 1 } ?? 0)...]), to: "depth.txt")
    // Every message names a list, or a frame file resolved inside the folder.
    FuzzContract.check(origin: FuzzFolder.path) {
        let colors = try TUMSource.readList(colorList, directory: FuzzFolder.path)
        let depths = try TUMSource.readList(depthList, directory: FuzzFolder.path)
        guard !colors.isEmpty, !depths.isEmpty else { return }
        _ = try TUMSource.associate(depths: depths, colors: colors, depthList: depthList)
    }
    return 0
}
