import Foundation
import Hummingbird
import HummingbirdTesting
import XCTest

/// GET /v1/captures?q=&tag=&sort=: search, tags (all of them) and each order, paged through the
/// `next` links, against the order the documents themselves imply.
final class CaptureSearchTests: XCTestCase {
    /// Five TUM uploads with names (two the same but for case: ordered by id), tags and leaves that
    /// give each a different point count.
    private static let uploads: [(name: String?, tags: String, voxel: String?)] = [
        ("delta", "kitchen,floor1", nil), ("Alpha", "kitchen", "0.01"), ("Delta", "floor1", "0.02"),
        (nil, "kitchen,floor1,wide", "0.05"), ("bravo 100% a+b&c\\d", "", "0.1")
    ]

    func testSearchTagsAndEveryOrderPageCorrectlyThroughNextLinks() async throws {
        let harness = try ServiceHarness()
        defer { harness.remove() }
        var bodies: [MultipartBody] = []
        for upload in Self.uploads {
            var body = try MultipartBody.tumFrame()
            if let name = upload.name { body.field("name", name) }
            body.field("tags", upload.tags)
            if let voxel = upload.voxel { body.field("voxel", voxel) }
            bodies.append(body)
        }
        let sent = bodies
        try await harness.test { client in
            var documents: [[String: Any]] = []
            for body in sent {
                let created = try await client.execute(uri: "/v1/captures", method: .post, headers: body.headers, body: body.body)
                XCTAssertEqual(created.status, .created, String(buffer: created.body))
                documents.append(try created.json())
            }
            let ids = documents.map { $0["id"] as! String }
            XCTAssertEqual(Set(documents.map { $0["points"] as! Int }).count, 5, "the leaves give five point counts")

            // Each order, two to a page, through the next links; ties (none here) would go by id.
            func key(_ d: [String: Any], _ sort: String) -> String {
                switch sort.trimmingCharacters(in: ["-"]) {
                case "name": return ((d["name"] as? String) ?? "").lowercased()
                case "points": return String(format: "%012d", d["points"] as! Int)
                default: return d["id"] as! String
                }
            }
            for sort in ["created", "-created", "name", "-name", "points", "-points"] {
                var expected = documents.sorted { (key($0, sort), $0["id"] as! String) < (key($1, sort), $1["id"] as! String) }.map {
                    $0["id"] as! String
                }
                if sort.hasPrefix("-") { expected.reverse() }
                let listed = try await listedPages(client, "/v1/captures?limit=2&sort=\(sort)", key: "captures")
                XCTAssertEqual(listed.ids, expected, sort)
                XCTAssertEqual(listed.pages, 3, sort)
            }
            let newestFirst = try await listedPages(client, "/v1/captures?limit=2", key: "captures")
            XCTAssertEqual(newestFirst.ids, ids.reversed(), "the default order is newest first, as before")

            // Text in the name, case-insensitive; in the uploaded file names; % is a character, not a wildcard.
            let alpha = try await listedPages(client, "/v1/captures?q=ALPH", key: "captures")
            XCTAssertEqual(alpha.ids, [ids[1]])
            let byFile = try await listedPages(client, "/v1/captures?q=TUM_depth", key: "captures")
            XCTAssertEqual(byFile.ids.count, 5)
            let percent = try await listedPages(client, "/v1/captures?q=100%25", key: "captures")
            XCTAssertEqual(percent.ids, [ids[4]])
            // '+', '&' and the LIKE escape character '\' are characters too, in the search and in the
            // next link that carries it on (a '+' left as it is would come back as a space).
            let plain = try await client.execute(uri: "/v1/captures?limit=1&q=a%2Bb%26c%5Cd", method: .get).json()
            XCTAssertEqual((plain["captures"] as? [[String: Any]])?.compactMap { $0["id"] as? String }, [ids[4]])
            XCTAssertEqual(plain["next"] as? String, "/v1/captures?limit=1&q=a%2Bb%26c%5Cd&after=\(ids[4])")
            let wildcard = try await listedPages(client, "/v1/captures?q=lph_", key: "captures")
            XCTAssertEqual(wildcard.ids, [], "_ matches an underscore only")
            // Tags: repeated means all of them, and the filter holds across pages.
            let both = try await listedPages(client, "/v1/captures?tag=kitchen&tag=floor1&limit=1&sort=name", key: "captures")
            XCTAssertEqual(both.ids, [ids[3], ids[0]])
            XCTAssertEqual(both.pages, 3, "the last full page still has a next link, to an empty page")
            let kitchenAlpha = try await listedPages(client, "/v1/captures?tag=kitchen&q=alpha", key: "captures")
            XCTAssertEqual(kitchenAlpha.ids, [ids[1]])

            let refused = try await client.execute(uri: "/v1/captures?sort=size", method: .get)
            XCTAssertEqual(refused.status, .badRequest)
            XCTAssertEqual(try refused.json()["field"] as? String, "sort")
        }
    }
}
