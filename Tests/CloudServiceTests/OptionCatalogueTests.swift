import CloudCapture
import CloudPipeline
import Foundation
import XCTest

@testable import CloudService

/// Both doors against `OptionCatalogue.all`: each CLI command's flags (as ArgumentParser dumps
/// them), each route's fields and parameters (as /openapi.json documents them) and the service
/// page's upload controls are the catalogue's, spelled alike, with the same words and defaults.
final class OptionCatalogueTests: XCTestCase {
    /// Request parts that are inputs or labels rather than options of the work.
    static let notOptions: Set<String> = ["depth", "color", "photo", "bundle", "cloud", "name", "note", "tags"]

    func testEveryCommandsFlagsAreTheCatalogues() throws {
        for command in CatalogueOption.Command.allCases {
            let flags = try Self.flags(of: command.rawValue)
            let listed = OptionCatalogue.all.filter { $0.commands.contains(command) }.compactMap(\.flag)
            XCTAssertEqual(Set(flags.keys), Set(listed), "cloudgen \(command.rawValue)")
            XCTAssertEqual(listed.count, Set(listed).count, "a flag of \(command.rawValue) is listed twice")
            for (flag, dumped) in flags {
                guard let option = OptionCatalogue.flag(flag) else { continue }
                // The CLI's choices are the catalogue's words (an alias may stand for one).
                if let choices = dumped.choices {
                    XCTAssertEqual(Set(choices.map { option.aliases[$0] ?? $0 }), Set(option.vocabulary), "--\(flag)'s words")
                }
                if let value = dumped.defaultValue, !option.vocabulary.isEmpty || option.defaultValue != nil {
                    XCTAssertEqual(option.aliases[value] ?? value, option.defaultValue, "--\(flag)'s default")
                }
            }
        }
    }

    func testEveryRoutesFieldsAreTheCatalogues() throws {
        let document = try OpenAPI(text: ServiceIntrospection.openAPIDocument)
        for route in CatalogueOption.Route.allCases {
            let documented = Self.fields(of: route, in: document)
            let listed = OptionCatalogue.all.filter { $0.routes.contains(route) }.compactMap(\.field)
            XCTAssertEqual(Set(documented.keys), Set(listed), route.rawValue)
            for (field, schema) in documented {
                guard let option = OptionCatalogue.field(field), let words = schema["enum"] as? [String] else { continue }
                if option.vocabulary.isEmpty {
                    // A value of another form (a source spec) that this route narrows to some words.
                    XCTAssertEqual(field, "source", "\(route.rawValue): \(field) has words the catalogue lacks")
                    XCTAssertTrue(Set(words).isSubset(of: SourceKind.all.map(\.name)), "\(route.rawValue): \(words)")
                } else if route == .export {
                    // PLY has no compressed encoding: its route takes the words it can write.
                    XCTAssertTrue(Set(words).isSubset(of: option.vocabulary), "\(route.rawValue): \(field)'s words")
                } else {
                    XCTAssertEqual(Set(words), Set(option.vocabulary), "\(route.rawValue): \(field)'s words")
                }
            }
        }
        // Every option either door takes is in some command or route, and each name is used once.
        let flags = OptionCatalogue.all.compactMap(\.flag)
        let fields = OptionCatalogue.all.compactMap(\.field)
        XCTAssertEqual(flags.count, Set(flags).count)
        XCTAssertEqual(fields.count, Set(fields).count)
        for option in OptionCatalogue.all {
            XCTAssertFalse(option.commands.isEmpty && option.routes.isEmpty, "\(option.flag ?? option.field ?? "?") is taken nowhere")
            // A field is the flag with underscores, so that one name is learnt for both doors.
            if let flag = option.flag, let field = option.field {
                XCTAssertEqual(field, flag.replacingOccurrences(of: "-", with: "_"))
            }
        }
    }

    /// The options only some sources take are the ones the source table names.
    func testSourceOptionsAreTheSourceTables() {
        let marked = OptionCatalogue.all.compactMap(\.sourceOption)
        XCTAssertEqual(Set(marked), Set(SourceKind.Option.allCases))
        for option in OptionCatalogue.all {
            if let sourceOption = option.sourceOption { XCTAssertEqual(option.flag, sourceOption.rawValue) }
        }
    }

    /// The page's upload form sends only fields the capture route documents.
    func testThePagesControlsAreCatalogueFields() throws {
        let form = try XCTUnwrap(
            ServicePage.html.components(separatedBy: "id=\"upload\"").dropFirst().first?
                .components(separatedBy: "</form>").first)
        let names = Set(
            try NSRegularExpression(pattern: #"name="([a-z_]+)""#)
                .matches(in: form, range: NSRange(form.startIndex..., in: form))
                .map { String(form[Range($0.range(at: 1), in: form)!]) })
        XCTAssertFalse(names.isEmpty)
        for name in names.subtracting(Self.notOptions) {
            XCTAssertTrue(
                OptionCatalogue.field(name)?.routes.contains(.captureForm) == true, "the page sends \(name), which is no capture option")
        }
    }

    // MARK: What the doors say they take

    struct DumpedFlag {
        var choices: [String]?
        var defaultValue: String?
    }

    /// `cloudgen COMMAND`'s long flags, from ArgumentParser's own description of them.
    static func flags(of command: String) throws -> [String: DumpedFlag] {
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("cloudgen")
        let process = Process()
        process.executableURL = executable
        process.arguments = [command, "--experimental-dump-help"]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let root = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let arguments = (root["command"] as? [String: Any])?["arguments"] as? [[String: Any]] ?? []
        var flags: [String: DumpedFlag] = [:]
        for argument in arguments {
            let names = argument["names"] as? [[String: Any]] ?? []
            guard let long = names.first(where: { $0["kind"] as? String == "long" })?["name"] as? String,
                !["help", "version"].contains(long)
            else { continue }
            flags[long] = DumpedFlag(choices: argument["allValues"] as? [String], defaultValue: argument["defaultValue"] as? String)
        }
        return flags
    }

    /// A route's options as the document lists them: body properties or query parameters (not
    /// headers, not path parameters), without inputs and labels.
    static func fields(of route: CatalogueOption.Route, in document: OpenAPI) -> [String: [String: Any]] {
        let words = route.rawValue.split(separator: " ").map(String.init)
        let (method, path) = (words[0].lowercased(), words[1])
        var fields: [String: [String: Any]] = [:]
        if words.count == 3 {
            let operation = document.paths[path]?[method] as? [String: Any] ?? [:]
            let content = (operation["requestBody"] as? [String: Any])?["content"] as? [String: Any] ?? [:]
            let schema = document.resolved((content[words[2]] as? [String: Any])?["schema"] ?? [:])
            for (name, property) in schema["properties"] as? [String: Any] ?? [:] { fields[name] = document.resolved(property) }
        } else {
            for parameter in document.parameters(path: path, method: method) where parameter["in"] as? String == "query" {
                if let name = parameter["name"] as? String { fields[name] = document.resolved(parameter["schema"] ?? [:]) }
            }
        }
        return fields.filter { !notOptions.contains($0.key) }
    }
}
