import CloudCore
import CloudFiles
import CloudPCL
import Foundation

/// The one place the benchmark calls CloudPCL's writer: the product's whole write path, with its
/// temporary file, header check and rename, because that is what a user waits for.
func writeCloud(_ cloud: PointCloud, to path: String, format: CloudFileFormat) throws {
    try CloudWriter.write(cloud, to: path, format: format)
}

/// The JSON both sides of the benchmark exchange: snake_case keys, as Python names them, sorted.
func benchJSON<T: Encodable>(_ value: T) throws -> Data {
    let encoder = JSONEncoder()
    encoder.keyEncodingStrategy = .convertToSnakeCase
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    return try encoder.encode(value)
}

/// A written file's size in bytes (0 if it cannot be read: the figures then show it).
func fileSize(_ path: String) -> Int {
    ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.intValue ?? 0
}
