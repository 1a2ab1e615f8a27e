import CloudCapture
import Foundation
import Hummingbird
import HummingbirdTesting
import XCTest

/// The small routes: health, devices (as `cloudgen devices --json`), metrics after some traffic.
final class ServiceRoutesTests: XCTestCase {
    func testHealthDevicesAndMetrics() async throws {
        let harness = try ServiceHarness()
        defer { harness.remove() }
        let upload = try MultipartBody.tumFrame()
        try await harness.test { client in
            let health = try await client.execute(uri: "/healthz", method: .get)
            XCTAssertEqual(try health.json()["status"] as? String, "ok")

            let devices = try await client.execute(uri: "/v1/devices", method: .get).json()
            let expected = try DeviceReport.discover()
            XCTAssertEqual(devices["usbDevices"] as? Int, expected.usbDevices)
            XCTAssertEqual((devices["devices"] as? [Any])?.count, expected.devices.count)

            let created = try await client.execute(uri: "/v1/captures", method: .post, headers: upload.headers, body: upload.body).json()
            let id = try XCTUnwrap(created["id"] as? String)
            // The first download makes the cloud the upload only counted (--store-clouds lazy).
            _ = try await client.execute(uri: "/v1/captures/\(id)/cloud.ply", method: .get)
            _ = try await client.execute(uri: "/v1/captures/nope", method: .get)
            let metrics = String(buffer: try await client.execute(uri: "/metrics", method: .get).body)
            for line in [
                "cloudgen_http_requests_total{route=\"/v1/captures\",method=\"POST\",status=\"201\"} 1",
                "cloudgen_http_requests_total{route=\"/v1/captures/{id}\",method=\"GET\",status=\"404\"} 1",
                "cloudgen_captures_stored 1", "cloudgen_jobs_queued 0", "cloudgen_jobs_running 0",
                "cloudgen_pool_running{pool=\"capture\"} 0", "cloudgen_pool_queued{pool=\"export\"} 0",
                "cloudgen_http_request_duration_seconds_count{route=\"/v1/captures\"} 1", "cloudgen_clouds_made_total 1"
            ] {
                XCTAssertTrue(metrics.contains(line), "missing \(line) in\n\(metrics)")
            }
            let written = metrics.split(separator: "\n").first { $0.hasPrefix("cloudgen_bytes_written_total ") }
            let bytes = written.flatMap { Double($0.split(separator: " ").last!) } ?? 0
            // The upload's three parts and the cloud made from them.
            XCTAssertGreaterThan(bytes, Double(upload.bytes.count))
        }
    }
}
