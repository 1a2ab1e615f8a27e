import CloudCore
import CloudPCL
import XCTest

final class TmpGoldenDump: XCTestCase {
    func testDump() throws {
        try CloudWriter.write(syntheticCloud(colors: true, normals: false, organized: false), to: "/tmp/golden/u-c1n0.pcd", format: .pcd(.binary))
        try CloudWriter.write(syntheticCloud(colors: true, normals: true, organized: true), to: "/tmp/golden/o-c1n1.pcd", format: .pcd(.binary))
        try CloudWriter.write(syntheticCloud(colors: true, normals: false, organized: false), to: "/tmp/golden/u-c1n0.pcdz", format: .pcd(.compressed))
        try CloudWriter.write(syntheticCloud(colors: true, normals: true, organized: true), to: "/tmp/golden/o-c1n1.pcdz", format: .pcd(.compressed))
    }
}
