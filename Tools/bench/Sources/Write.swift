import CloudCore
import CloudPCL

/// The one place the benchmark calls CloudPCL's writer: the product's whole write path, with its
/// temporary file, header check and rename, because that is what a user waits for.
func writeCloud(_ cloud: PointCloud, to path: String, format: CloudFileFormat) throws {
    try CloudWriter.write(cloud, to: path, format: format)
}
