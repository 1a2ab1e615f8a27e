import CloudCore
import Foundation

@testable import CloudArchives

#if canImport(Glibc)
import Glibc
#endif

/// Uploaded archives (tar and zip): the input is the archive file, extracted into a fresh folder
/// under small limits (so that a mutated size cannot make a run slow). Beyond the error contract,
/// a refused archive must leave its folder empty, as ArchiveExtractor promises; an extracted one
/// is cleared for the next input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let archive = FuzzFolder.write(fuzzBytes(data, size), to: "input.archive")
    let folder = "\(FuzzFolder.path)/out"
    mkdir(folder, 0o700)
    let limits = ArchiveLimits(maxTotalBytes: 4 << 20, maxMembers: 200, maxMemberBytes: 2 << 20, maxPathDepth: 8, maxPathBytes: 256)
    var failed = false
    FuzzContract.check(origin: archive) {
        do {
            _ = try ArchiveExtractor.extract(archive: archive, into: folder, limits: limits)
        } catch {
            failed = true
            throw error
        }
    }
    let left = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
    if failed && !left.isEmpty { FuzzContract.fail("a refused archive left \(left) in the folder") }
    for name in left { try? FileManager.default.removeItem(atPath: "\(folder)/\(name)") }
    return 0
}
