import Foundation

/// A file's size in bytes, 0 when it cannot be read.
enum FileSize {
    static func of(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.intValue ?? 0
    }
}
