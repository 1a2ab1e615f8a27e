import CloudCore
import CloudFiles
import CloudService
import Foundation
import Hummingbird
import HummingbirdTesting
import NIOFoundationEssentialsCompat
import SharedTestData
import XCTest

/// `--store-clouds lazy`: an upload keeps its inputs, and its cloud is made from them on first
/// read, byte for byte what `eager` writes at upload.
/// (No stored state: the service's test closures call its helpers.)
final class LazyCloudTests: XCTestCase, @unchecked Sendable {
    /// The TUM frame with a filter step: a field the kept inputs must carry to the remake.
    private func upload() throws -> MultipartBody {
        var upload = try MultipartBody.tumFrame()
        upload.field("voxel", "0.01")
        upload.field("name", "kitchen")
        return upload
    }

    private func harness(_ storing: CloudStoring) throws -> ServiceHarness {
        try ServiceHarness { $0.storeClouds = storing }
    }

    private func post(_ upload: MultipartBody, _ client: any TestClientProtocol) async throws -> [String: Any] {
        let created = try await client.execute(uri: "/v1/captures", method: .post, headers: upload.headers, body: upload.body)
        XCTAssertEqual(created.status, .created, String(buffer: created.body))
        return try created.json()
    }

    private func folder(_ harness: ServiceHarness, _ id: String) -> URL {
        harness.data.appendingPathComponent("captures").appendingPathComponent(id)
    }

    private func entries(_ folder: URL) -> Set<String> {
        Set((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [])
    }

    func testALazyUploadsCloudIsTheEagerOnesBytesAndPCLReadsItAsTheCLIsCapture() async throws {
        let eager = try harness(.eager)
        let lazy = try harness(.lazy)
        defer {
            eager.remove()
            lazy.remove()
        }
        let upload = try upload()
        let (eagerAnswer, eagerPLY) = try await eager.test { client in
            let document = try await self.post(upload, client)
            let id = try XCTUnwrap(document["id"] as? String)
            let ply = try await client.execute(uri: "/v1/captures/\(id)/cloud.ply", method: .get)
            return (document, Data(buffer: ply.body))
        }
        nonisolated(unsafe) let eagerDocument = eagerAnswer  // read only, by the next server's closure
        try await lazy.test { client in
            let document = try await self.post(upload, client)
            let id = try XCTUnwrap(document["id"] as? String)
            // Counted at upload, exactly: the same answer as the eager store's.
            XCTAssertEqual(document["points"] as? Int, eagerDocument["points"] as? Int)
            XCTAssertEqual(document["bytes"] as? Int, eagerDocument["bytes"] as? Int)
            XCTAssertEqual(try XCTUnwrap(document["bounds"] as? NSDictionary), eagerDocument["bounds"] as? NSDictionary)
            // Only the inputs were written: no cloud, no depth map.
            let folder = self.folder(lazy, id)
            XCTAssertEqual(self.entries(folder), ["inputs"])
            XCTAssertEqual(self.entries(folder.appendingPathComponent("inputs")), ["color", "depth", "intrinsics", "order.json"])

            let ply = try await client.execute(uri: "/v1/captures/\(id)/cloud.ply", method: .get)
            XCTAssertEqual(ply.status, .ok, String(buffer: ply.body))
            let bytes = Data(buffer: ply.body)
            XCTAssertEqual(bytes.count, document["bytes"] as? Int)
            XCTAssertEqual(bytes, eagerPLY)
            XCTAssertTrue(self.entries(folder).isSuperset(of: ["cloud.ply", "depth.f32"]))

            // PCL's own reader (pcl_ply2pcd) gets the points the CLI's capture with the same voxel makes.
            let scratch = try makeScratchFolder()
            defer { try? FileManager.default.removeItem(at: scratch) }
            let ours = scratch.appendingPathComponent("lazy.ply").path
            try bytes.write(to: URL(fileURLWithPath: ours))
            let pcl = scratch.appendingPathComponent("lazy.pcd").path
            try runPCLTool("pcl_ply2pcd", ["-format", "1", ours, pcl])
            let read = try CloudReader.read(pcl).cloud
            XCTAssertEqual(read.count, document["points"] as? Int)
            XCTAssertEqual(read.positions, try CloudReader.read(ours).cloud.positions)
        }
    }

    func testALazyUploadsCloudIsMadeAfterARestartBeforeItsFirstDownload() async throws {
        let lazy = try harness(.lazy)
        defer { lazy.remove() }
        let upload = try upload()
        nonisolated(unsafe) let document = try await lazy.test { client in try await self.post(upload, client) }
        let id = try XCTUnwrap(document["id"] as? String)
        // A new server on the same data folder (its start-up reconcile keeps the capture).
        try await lazy.test { client in
            let depth = try await client.execute(uri: "/v1/captures/\(id)/depth.png", method: .get)
            XCTAssertEqual(depth.status, .ok, String(buffer: depth.body))
            let ply = try await client.execute(uri: "/v1/captures/\(id)/cloud.ply", method: .get)
            XCTAssertEqual(ply.status, .ok, String(buffer: ply.body))
            XCTAssertEqual(ply.body.readableBytes, document["bytes"] as? Int)
            let listed = try await client.execute(uri: "/v1/captures", method: .get).json()
            XCTAssertEqual((listed["captures"] as? [[String: Any]])?.compactMap { $0["id"] as? String }, [id])
        }
    }

    func testACaptureWhoseKeptInputsAreDamagedAnswers500AndNamesThePart() async throws {
        let lazy = try harness(.lazy)
        defer { lazy.remove() }
        let upload = try upload()
        try await lazy.test { client in
            let document = try await self.post(upload, client)
            let id = try XCTUnwrap(document["id"] as? String)
            try Data("not a PNG".utf8).write(to: self.folder(lazy, id).appendingPathComponent("inputs/depth"))
            for _ in 0..<2 {
                let ply = try await client.execute(uri: "/v1/captures/\(id)/cloud.ply", method: .get)
                XCTAssertEqual(ply.status, .internalServerError)
                let detail = try XCTUnwrap(try ply.json()["detail"] as? String)
                XCTAssertTrue(detail.contains("cannot be made from its stored inputs"), detail)
                XCTAssertTrue(detail.contains("depth"), detail)
            }
            // The capture itself is still listed and readable; nothing half-made was left.
            let again = try await client.execute(uri: "/v1/captures/\(id)", method: .get)
            XCTAssertEqual(again.status, .ok)
            XCTAssertFalse(self.entries(self.folder(lazy, id)).contains("cloud.ply"))
        }
    }

    func testConcurrentFirstDownloadsMakeTheCloudOnce() async throws {
        let lazy = try harness(.lazy)
        defer { lazy.remove() }
        let upload = try upload()
        try await lazy.test(.live) { client in
            let document = try await self.post(upload, client)
            let id = try XCTUnwrap(document["id"] as? String)
            let bodies = try await withThrowingTaskGroup(of: Data.self) { group in
                for index in 0..<8 {
                    // Every route that reads the cloud, at the same moment.
                    let uri = ["cloud.ply", "cloud.pcd", "preview.png", "depth.png"][index % 4]
                    group.addTask {
                        let answer = try await client.execute(uri: "/v1/captures/\(id)/\(uri)", method: .get)
                        XCTAssertEqual(answer.status, .ok, "\(uri): \(String(buffer: answer.body))")
                        return uri == "cloud.ply" ? Data(buffer: answer.body) : Data()
                    }
                }
                return try await group.reduce(into: Set<Data>()) { $0.insert($1) }
            }
            XCTAssertEqual(bodies.subtracting([Data()]).map(\.count), [document["bytes"] as? Int])
            let metrics = String(buffer: try await client.execute(uri: "/metrics", method: .get).body)
            XCTAssertTrue(metrics.contains("cloudgen_clouds_made_total 1\n"), metrics)
        }
    }

    func testAnEagerUploadWritesItsCloudAndKeepsNoInputs() async throws {
        let eager = try harness(.eager)
        defer { eager.remove() }
        let upload = try upload()
        try await eager.test { client in
            let document = try await self.post(upload, client)
            let id = try XCTUnwrap(document["id"] as? String)
            XCTAssertEqual(self.entries(self.folder(eager, id)), ["cloud.ply", "depth.f32"])
        }
    }
}
