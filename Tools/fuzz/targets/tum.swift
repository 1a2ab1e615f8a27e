@testable import CloudCapture

/// TUM RGB-D index files (rgb.txt, depth.txt), groundtruth.txt, and the association of depth
/// frames to color frames and poses. The input's NUL bytes cut it into rgb.txt, depth.txt and
/// groundtruth.txt; a part that is missing is the whole input. The frame files they name need not
/// exist: TUMSource checks them after these steps.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = fuzzBytes(data, size)
    let parts = bytes.split(separator: 0, maxSplits: 2, omittingEmptySubsequences: false)
    func part(_ index: Int) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: parts.count > index ? parts[index] : bytes[...])
    }
    let colorList = FuzzFolder.write(part(0), to: "rgb.txt")
    let depthList = FuzzFolder.write(part(1), to: "depth.txt")
    let groundTruth = FuzzFolder.write(part(2), to: TUMGroundTruth.fileName)
    // Every message names a list, the ground truth, or a frame file resolved inside the folder.
    // The ground truth is read on its own, so that one the lists' bytes do not make still lets
    // the lists be read.
    var truth: TUMGroundTruth?
    FuzzContract.check(origin: FuzzFolder.path) { truth = try TUMGroundTruth(path: groundTruth) }
    FuzzContract.check(origin: FuzzFolder.path) {
        let colors = try TUMSource.readList(colorList, directory: FuzzFolder.path)
        let depths = try TUMSource.readList(depthList, directory: FuzzFolder.path)
        guard !colors.isEmpty, !depths.isEmpty else { return }
        for pair in try TUMSource.associate(depths: depths, colors: colors, depthList: depthList) {
            if let pose = truth?.pose(at: pair.depth.timestamp), !pose.isRigid() {
                FuzzContract.fail("a ground-truth pose that is not a rotation")
            }
        }
    }
    return 0
}
