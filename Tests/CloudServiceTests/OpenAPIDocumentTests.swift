import CloudCapture
import CloudService
import Foundation
import Hummingbird
import HummingbirdTesting
import NIOFoundationEssentialsCompat
import XCTest

/// GET /openapi.json holds to the server: it is OpenAPI 3.1 whose references all resolve, it
/// documents exactly the routes the server registers, and real answers (successes and each
/// kind of error) have a documented status, a documented media type and a body that satisfies
/// the documented schema.
final class OpenAPIDocumentTests: XCTestCase {
    // The document comes from ServiceIntrospection here, not from an app: an app that lives only
    // milliseconds can be released before its worker threads start, which crashes them (they
    // reach their pool unowned). testRealAnswers... checks that the app serves this document.
    func testTheDocumentIsOpenAPI31AndEveryReferenceResolves() throws {
        let document = try OpenAPI(text: ServiceIntrospection.openAPIDocument)
        XCTAssertEqual(document.root["openapi"] as? String, "3.1.0")
        let info = try XCTUnwrap(document.root["info"] as? [String: Any])
        XCTAssertNotNil(info["title"] as? String)
        XCTAssertNotNil(info["version"] as? String)

        for reference in OpenAPI.references(in: document.root) {
            XCTAssertNotNil(document.resolve(reference), "\(reference) names nothing in the document")
        }
        var operationIDs: [String] = []
        for (path, method, operation) in document.operations {
            let name = "\(method.uppercased()) \(path)"
            if let id = operation["operationId"] as? String { operationIDs.append(id) } else { XCTFail("\(name): no operationId") }
            let responses = operation["responses"] as? [String: Any] ?? [:]
            // A WebSocket's success is its upgrade, 101.
            XCTAssertTrue(responses.keys.contains { $0.hasPrefix("2") || $0 == "101" }, "\(name): no success documented")
            // Every error is problem+json with the Problem schema.
            for (status, entry) in responses where Int(status).map({ $0 >= 400 }) ?? false {
                let response = document.resolved(entry)
                let content = response["content"] as? [String: Any] ?? [:]
                XCTAssertEqual(Array(content.keys), ["application/problem+json"], "\(name) \(status)")
                let schema = (content["application/problem+json"] as? [String: Any])?["schema"] as? [String: Any]
                XCTAssertEqual(schema?["$ref"] as? String, "#/components/schemas/Problem", "\(name) \(status)")
            }
            // Each {name} of the path is a required path parameter, and no other is declared.
            let templated = Set(path.split(separator: "/").filter { $0.hasPrefix("{") }.map { String($0.dropFirst().dropLast()) })
            let declared = document.parameters(path: path, method: method).filter { $0["in"] as? String == "path" }
            XCTAssertEqual(Set(declared.compactMap { $0["name"] as? String }), templated, name)
            XCTAssertTrue(declared.allSatisfy { $0["required"] as? Bool == true }, "\(name): a path parameter must be required")
        }
        XCTAssertEqual(operationIDs.count, Set(operationIDs).count, "operationIds repeat: \(operationIDs.sorted())")
    }

    func testEveryRegisteredRouteIsDocumentedAndEveryDocumentedRouteIsRegistered() throws {
        let harness = try ServiceHarness()
        defer { harness.remove() }
        let document = try OpenAPI(text: ServiceIntrospection.openAPIDocument)
        let routes = try ServiceIntrospection.routes(harness.configuration)
        let registered = routes.map { "\($0.method.rawValue) \($0.path)" }
        XCTAssertEqual(registered.count, Set(registered).count, "a route is registered twice: \(registered.sorted())")
        let documented = Set(document.operations.map { "\($0.method.uppercased()) \($0.path)" })
        XCTAssertEqual(Set(registered).subtracting(documented).sorted(), [], "registered but not in /openapi.json")
        XCTAssertEqual(documented.subtracting(registered).sorted(), [], "in /openapi.json but not registered")
        // The main routes are there (the comparison above would pass for two empty sets).
        for route in ["POST /v1/captures", "GET /v1/captures/{id}/preview.png", "GET /v1/jobs/{id}/events", "POST /v1/convert", "GET /"] {
            XCTAssertTrue(documented.contains(route), route)
        }
    }

    func testRealAnswersHaveDocumentedStatusesMediaTypesAndBodies() async throws {
        let harness = try ServiceHarness()
        defer { harness.remove() }
        try await harness.test { client in
            let document = try await OpenAPI.fetch(client)
            XCTAssertEqual(
                NSDictionary(dictionary: document.root),
                NSDictionary(dictionary: try OpenAPI(text: ServiceIntrospection.openAPIDocument).root))
            let upload = try MultipartBody.tumFrame()
            let created = try await client.execute(uri: "/v1/captures", method: .post, headers: upload.headers, body: upload.body)
            XCTAssertEqual(created.status, .created, String(buffer: created.body))
            document.check(created, "post", "/v1/captures")
            let id = try XCTUnwrap(try created.json()["id"] as? String)

            let fetched = try await client.execute(uri: "/v1/captures/\(id)", method: .get)
            XCTAssertEqual(fetched.status, .ok)
            document.check(fetched, "get", "/v1/captures/{id}")

            let second = try await client.execute(uri: "/v1/captures", method: .post, headers: upload.headers, body: upload.body)
            XCTAssertEqual(second.status, .created)
            let page = try await client.execute(uri: "/v1/captures?limit=1", method: .get)
            XCTAssertEqual(page.status, .ok)
            document.check(page, "get", "/v1/captures")
            let next = try XCTUnwrap(try page.json()["next"] as? String, "two captures, one per page: a next page")
            let last = try await client.execute(uri: next, method: .get)
            document.check(last, "get", "/v1/captures")
            XCTAssertEqual(((try last.json()["captures"] as? [[String: Any]])?.first)?["id"] as? String, id, "oldest last")

            let badLimit = try await client.execute(uri: "/v1/captures?limit=0", method: .get)
            XCTAssertEqual(badLimit.status, .badRequest)
            document.check(badLimit, "get", "/v1/captures")
            XCTAssertEqual(try badLimit.json()["field"] as? String, "limit")

            var badScale = try MultipartBody.tumFrame()
            badScale.field("depth_scale", "-5")
            let refused = try await client.execute(uri: "/v1/captures", method: .post, headers: badScale.headers, body: badScale.body)
            XCTAssertEqual(refused.status, .unprocessableContent, String(buffer: refused.body))
            document.check(refused, "post", "/v1/captures")
            XCTAssertEqual(try refused.json()["field"] as? String, "depth_scale")

            let text = try await client.execute(
                uri: "/v1/captures", method: .post, headers: [.contentType: "text/plain"], body: ByteBuffer(string: "depth"))
            XCTAssertEqual(text.status, .unsupportedMediaType)
            document.check(text, "post", "/v1/captures")

            let preview = try await client.execute(uri: "/v1/captures/\(id)/preview.png?azimuth=30&width=64&height=48", method: .get)
            XCTAssertEqual(preview.status, .ok)
            document.check(preview, "get", "/v1/captures/{id}/preview.png")
            XCTAssertEqual(Array(Data(buffer: preview.body).prefix(4)), [0x89, 0x50, 0x4E, 0x47], "a PNG")
            let badWidth = try await client.execute(uri: "/v1/captures/\(id)/preview.png?width=8", method: .get)
            XCTAssertEqual(badWidth.status, .badRequest)
            document.check(badWidth, "get", "/v1/captures/{id}/preview.png")

            let pcd = try await client.execute(uri: "/v1/captures/\(id)/cloud.pcd?format=ascii&voxel=0.05", method: .get)
            XCTAssertEqual(pcd.status, .ok, String(buffer: pcd.body))
            document.check(pcd, "get", "/v1/captures/{id}/cloud.pcd")
            let ply = try await client.execute(uri: "/v1/captures/\(id)/cloud.ply", method: .get, headers: [.range: "bytes=0-99"])
            XCTAssertEqual(ply.status, .partialContent)
            document.check(ply, "get", "/v1/captures/{id}/cloud.ply")

            var convert = MultipartBody()
            convert.file(
                "cloud", Data(buffer: try await client.execute(uri: "/v1/captures/\(id)/cloud.ply", method: .get).body),
                filename: "scan.ply")
            convert.field("format", "pcd")
            let converted = try await client.execute(uri: "/v1/convert", method: .post, headers: convert.headers, body: convert.body)
            XCTAssertEqual(converted.status, .ok, String(buffer: converted.body))
            document.check(converted, "post", "/v1/convert")

            for (path, template) in [("/healthz", "/healthz"), ("/metrics", "/metrics"), ("/", "/"), ("/v1/devices", "/v1/devices")] {
                let answer = try await client.execute(uri: path, method: .get)
                XCTAssertEqual(answer.status, .ok, "\(path): \(String(buffer: answer.body))")
                document.check(answer, "get", template)
            }
            let noJob = try await client.execute(uri: "/v1/jobs/\(id)", method: .get)
            XCTAssertEqual(noJob.status, .notFound)
            document.check(noJob, "get", "/v1/jobs/{id}")

            let deleted = try await client.execute(uri: "/v1/captures/\(id)", method: .delete)
            XCTAssertEqual(deleted.status, .noContent)
            document.check(deleted, "delete", "/v1/captures/{id}")
            let gone = try await client.execute(uri: "/v1/captures/\(id)", method: .get)
            XCTAssertEqual(gone.status, .notFound)
            document.check(gone, "get", "/v1/captures/{id}")

            // No operation answers these: they must match the shared responses, and 405's Allow
            // must list the methods the document gives the path.
            let unknown = try await client.execute(uri: "/v1/nothing/here", method: .get)
            XCTAssertEqual(unknown.status, .notFound)
            document.check(unknown, component: "NotFound")
            let wrongMethod = try await client.execute(uri: "/v1/captures", method: .put, body: ByteBuffer(string: "{}"))
            XCTAssertEqual(wrongMethod.status, .methodNotAllowed)
            document.check(wrongMethod, component: "MethodNotAllowed")
            let allowed = Set(
                (wrongMethod.headers[.allow] ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() })
            // HEAD is answered wherever GET is (the document says so once, in its description).
            XCTAssertEqual(allowed.subtracting(["head"]), Set(document.methods(of: "/v1/captures")))
            XCTAssertEqual(allowed.contains("head"), document.methods(of: "/v1/captures").contains("get"))
        }
    }

    /// The routes users reach for (labels, search, jobs, the archive, photos) answer as documented.
    func testLabelSearchJobAndArchiveAnswersAreDocumented() async throws {
        let harness = try ServiceHarness()
        defer { harness.remove() }
        var upload = try MultipartBody.tumFrame()
        upload.field("name", "desk")
        upload.field("tags", "tum")
        let body = upload
        try await harness.test { client in
            let document = try await OpenAPI.fetch(client)
            let created = try await client.execute(uri: "/v1/captures", method: .post, headers: body.headers, body: body.body)
            document.check(created, "post", "/v1/captures")
            let id = try XCTUnwrap(try created.json()["id"] as? String)
            let patch: HTTPFields = [.contentType: "application/merge-patch+json"]
            for (text, status) in [
                (#"{"note": "by the window", "tags": ["tum", "office"]}"#, HTTPResponse.Status.ok),
                (#"{"tags": ["no spaces"]}"#, .unprocessableContent), (#"{"id": "x"}"#, .badRequest)
            ] {
                let answer = try await client.execute(
                    uri: "/v1/captures/\(id)", method: .patch, headers: patch, body: ByteBuffer(string: text))
                XCTAssertEqual(answer.status, status, text)
                document.check(answer, "patch", "/v1/captures/{id}")
            }
            let text = try await client.execute(
                uri: "/v1/captures/\(id)", method: .patch, headers: [.contentType: "text/plain"], body: ByteBuffer(string: "x"))
            XCTAssertEqual(text.status, .unsupportedMediaType)
            document.check(text, "patch", "/v1/captures/{id}")
            let missing = try await client.execute(
                uri: "/v1/captures/\(String(repeating: "0", count: 26))", method: .patch, headers: patch,
                body: ByteBuffer(string: "{}"))
            XCTAssertEqual(missing.status, .notFound)
            document.check(missing, "patch", "/v1/captures/{id}")

            for query in ["sort=-points&tag=tum&tag=office&q=desk", "sort=name&limit=1"] {
                let answer = try await client.execute(uri: "/v1/captures?\(query)", method: .get)
                XCTAssertEqual(answer.status, .ok, query)
                document.check(answer, "get", "/v1/captures")
            }
            let jobs = try await client.execute(uri: "/v1/jobs?state=failed&limit=5", method: .get)
            XCTAssertEqual(jobs.status, .ok)
            document.check(jobs, "get", "/v1/jobs")
            let badState = try await client.execute(uri: "/v1/jobs?state=done", method: .get)
            XCTAssertEqual(badState.status, .badRequest)
            document.check(badState, "get", "/v1/jobs")
            let zip = try await client.execute(uri: "/v1/captures/\(id)/capture.zip", method: .get)
            XCTAssertEqual(zip.status, .ok)
            document.check(zip, "get", "/v1/captures/{id}/capture.zip")

            var photo = MultipartBody()
            try photo.file("photo", path: sharedData("phone/iphonex-portrait-depth.jpg"))
            photo.field("known_distance", "1512,2016=0.6")
            let photoBody = photo
            let fromPhoto = try await client.execute(uri: "/v1/captures", method: .post, headers: photoBody.headers, body: photoBody.body)
            XCTAssertEqual(fromPhoto.status, .created, String(buffer: fromPhoto.body))
            document.check(fromPhoto, "post", "/v1/captures")
        }
    }

    func testAnUploadOverTheLimitAnswersTheDocumented413() async throws {
        let harness = try ServiceHarness { $0.maxUploadBytes = 1 << 20 }
        defer { harness.remove() }
        try await harness.test { client in
            let document = try await OpenAPI.fetch(client)
            var body = MultipartBody()
            body.file("depth", Data(repeating: 7, count: 2 << 20), filename: "depth.png", type: "image/png")
            let answer = try await client.execute(uri: "/v1/captures", method: .post, headers: body.headers, body: body.body)
            XCTAssertEqual(answer.status, .contentTooLarge)
            document.check(answer, "post", "/v1/captures")
            // Nothing of the refused body stays in uploads/.
            let left = try FileManager.default.contentsOfDirectory(atPath: harness.data.appendingPathComponent("uploads").path)
            XCTAssertEqual(left, [])
        }
    }
}

/// The document as served, and the checks of answers against it.
struct OpenAPI {
    let root: [String: Any]

    static func fetch(_ client: any TestClientProtocol) async throws -> OpenAPI {
        let answer = try await client.execute(uri: "/openapi.json", method: .get)
        XCTAssertEqual(answer.status, .ok)
        XCTAssertEqual(answer.headers[.contentType], "application/json")
        return try OpenAPI(text: String(buffer: answer.body))
    }

    init(text: String) throws {
        let object = try JSONSerialization.jsonObject(with: Data(text.utf8))
        root = try XCTUnwrap(object as? [String: Any], "/openapi.json is not a JSON object")
    }

    static let methodNames = ["get", "put", "post", "delete", "options", "head", "patch", "trace"]

    var paths: [String: [String: Any]] { root["paths"] as? [String: [String: Any]] ?? [:] }

    var operations: [(path: String, method: String, operation: [String: Any])] {
        paths.flatMap { path, item in
            Self.methodNames.compactMap { method in (item[method] as? [String: Any]).map { (path, method, $0) } }
        }
    }

    func methods(of path: String) -> [String] {
        Self.methodNames.filter { paths[path]?[$0] != nil }
    }

    /// The path item's parameters and the operation's, resolved.
    func parameters(path: String, method: String) -> [[String: Any]] {
        let item = paths[path] ?? [:]
        let shared = item["parameters"] as? [[String: Any]] ?? []
        let own = (item[method] as? [String: Any])?["parameters"] as? [[String: Any]] ?? []
        return (shared + own).map(resolved)
    }

    /// `#/components/schemas/Capture` -> that object.
    func resolve(_ reference: String) -> [String: Any]? {
        guard reference.hasPrefix("#/") else { return nil }
        var node: Any = root
        for key in reference.dropFirst(2).split(separator: "/") {
            guard let object = node as? [String: Any], let child = object[String(key)] else { return nil }
            node = child
        }
        return node as? [String: Any]
    }

    func resolved(_ node: Any) -> [String: Any] {
        var object = node as? [String: Any] ?? [:]
        while let reference = object["$ref"] as? String, let target = resolve(reference) { object = target }
        return object
    }

    static func references(in node: Any) -> [String] {
        if let object = node as? [String: Any] {
            return ((object["$ref"] as? String).map { [$0] } ?? []) + object.values.flatMap(references)
        }
        if let array = node as? [Any] { return array.flatMap(references) }
        return []
    }

    /// The answer's status is documented for the operation, and it matches that response.
    func check(_ answer: TestResponse, _ method: String, _ path: String, file: StaticString = #filePath, line: UInt = #line) {
        guard let operation = paths[path]?[method] as? [String: Any] else {
            return XCTFail("\(method.uppercased()) \(path) is not in the document", file: file, line: line)
        }
        let responses = operation["responses"] as? [String: Any] ?? [:]
        guard let entry = responses[String(answer.status.code)] else {
            return XCTFail(
                "\(method.uppercased()) \(path) answered \(answer.status.code), which the document does not list (\(responses.keys.sorted()))",
                file: file, line: line)
        }
        check(answer, against: resolved(entry), "\(method.uppercased()) \(path) \(answer.status.code)", file: file, line: line)
    }

    /// The answer matches the shared response `components/responses/NAME`.
    func check(_ answer: TestResponse, component name: String, file: StaticString = #filePath, line: UInt = #line) {
        guard let response = resolve("#/components/responses/\(name)") else {
            return XCTFail("no components.responses.\(name)", file: file, line: line)
        }
        check(answer, against: response, name, file: file, line: line)
    }

    private func check(_ answer: TestResponse, against response: [String: Any], _ name: String, file: StaticString, line: UInt) {
        let content = response["content"] as? [String: Any] ?? [:]
        guard !content.isEmpty else {
            XCTAssertEqual(answer.body.readableBytes, 0, "\(name): documented without a body", file: file, line: line)
            return
        }
        let type = (answer.headers[.contentType] ?? "").split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        guard let media = content[type] as? [String: Any] else {
            return XCTFail("\(name): Content-Type \(type) is not documented (\(content.keys.sorted()))", file: file, line: line)
        }
        guard type.hasSuffix("json"), let schema = media["schema"] else { return }
        guard let body = try? JSONSerialization.jsonObject(with: Data(buffer: answer.body), options: [.fragmentsAllowed]) else {
            return XCTFail("\(name): the body is not JSON: \(String(buffer: answer.body).prefix(200))", file: file, line: line)
        }
        let problems = SchemaCheck(document: self).problems(body, schema, at: "$")
        XCTAssertEqual(problems, [], "\(name): the body does not match its schema", file: file, line: line)
    }
}

/// The JSON Schema keywords the document's answers use, checked honestly: $ref, type (with
/// null and integer), required, properties, items, enum, const, oneOf (exactly one) and anyOf,
/// minimum, maximum, pattern, minItems, maxItems. Formats and descriptions are not checked.
private struct SchemaCheck {
    let document: OpenAPI

    func problems(_ value: Any, _ schemaNode: Any, at path: String) -> [String] {
        let schema = document.resolved(schemaNode)
        var found: [String] = []
        if let allowed = schema["type"] {
            let types = (allowed as? [String]) ?? [(allowed as? String) ?? ""]
            if !types.contains(where: { Self.matches(value, type: $0) }) {
                return ["\(path): \(Self.kind(of: value)) where the schema wants \(types.joined(separator: " or "))"]
            }
        }
        if let options = schema["enum"] as? [Any], !options.contains(where: { Self.equal($0, value) }) {
            found.append("\(path): \(value) is not one of \(options)")
        }
        if let constant = schema["const"], !Self.equal(constant, value) {
            found.append("\(path): \(value) is not \(constant)")
        }
        if let choices = schema["oneOf"] as? [Any] {
            let fitting = choices.filter { problems(value, $0, at: path).isEmpty }.count
            if fitting != 1 { found.append("\(path): matches \(fitting) of oneOf's \(choices.count) schemas, not exactly one") }
        }
        if let choices = schema["anyOf"] as? [Any], !choices.contains(where: { problems(value, $0, at: path).isEmpty }) {
            found.append("\(path): matches none of anyOf's schemas")
        }
        if let object = value as? [String: Any] {
            for key in schema["required"] as? [String] ?? [] where object[key] == nil {
                found.append("\(path): required property \(key) is missing")
            }
            for (key, property) in schema["properties"] as? [String: Any] ?? [:] {
                if let child = object[key] { found += problems(child, property, at: "\(path).\(key)") }
            }
        }
        if let array = value as? [Any] {
            if let items = schema["items"] {
                for (i, item) in array.enumerated() { found += problems(item, items, at: "\(path)[\(i)]") }
            }
            if let least = schema["minItems"] as? Int, array.count < least { found.append("\(path): fewer than \(least) items") }
            if let most = schema["maxItems"] as? Int, array.count > most { found.append("\(path): more than \(most) items") }
        }
        if let number = value as? NSNumber, !Self.isBoolean(number) {
            if let least = schema["minimum"] as? Double, number.doubleValue < least { found.append("\(path): \(number) < \(least)") }
            if let most = schema["maximum"] as? Double, number.doubleValue > most { found.append("\(path): \(number) > \(most)") }
        }
        if let text = value as? String, let pattern = schema["pattern"] as? String,
            text.range(of: pattern, options: .regularExpression) == nil
        {
            found.append("\(path): \(text) does not match \(pattern)")
        }
        return found
    }

    static func isBoolean(_ number: NSNumber) -> Bool {
        String(cString: number.objCType) == "c"
    }

    static func matches(_ value: Any, type: String) -> Bool {
        switch type {
        case "null": return value is NSNull
        case "object": return value is [String: Any]
        case "array": return value is [Any]
        case "string": return value is String
        case "boolean": return (value as? NSNumber).map(isBoolean) ?? false
        case "number": return (value as? NSNumber).map { !isBoolean($0) } ?? false
        case "integer":
            guard let number = value as? NSNumber, !isBoolean(number) else { return false }
            return number.doubleValue.rounded() == number.doubleValue
        default: return false
        }
    }

    static func kind(of value: Any) -> String {
        ["null", "boolean", "integer", "number", "string", "array", "object"].first { matches(value, type: $0) } ?? "\(type(of: value))"
    }

    static func equal(_ a: Any, _ b: Any) -> Bool {
        (a as? NSObject)?.isEqual(b) ?? false
    }
}

/// The kinds an uploaded archive may name in its `source` field are the source table's kinds that
/// read a folder, as the document's enum says.
final class OpenAPISourceKindTests: XCTestCase {
    func testTheArchiveSourceEnumIsTheTable() throws {
        let document = try OpenAPI(text: ServiceIntrospection.openAPIDocument)
        var enums: [[String]] = []
        func visit(_ value: Any) {
            if let object = value as? [String: Any] {
                if let source = object["source"] as? [String: Any], let options = source["enum"] as? [String] { enums.append(options) }
                object.values.forEach(visit)
            } else if let array = value as? [Any] {
                array.forEach(visit)
            }
        }
        visit(document.root)
        XCTAssertFalse(enums.isEmpty, "no source enum in the document")
        for options in enums {
            XCTAssertEqual(Set(options), Set(SourceKind.all.filter { $0.layout != nil }.map(\.name)))
        }
    }
}
