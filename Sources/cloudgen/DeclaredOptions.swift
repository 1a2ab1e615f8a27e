import ArgumentParser
import Foundation

/// A command's long options as ArgumentParser itself describes them (the JSON of
/// `--experimental-dump-help`), so that a config file and the environment know every option a
/// command declares, and which repeat or are bare flags, without a list kept beside the declarations.
struct DeclaredOptions {
    enum Kind: Equatable {
        /// `--name VALUE`; `repeating` when each occurrence adds a value (`--allow-dir`).
        case valued(repeating: Bool)
        /// `--name` alone.
        case flag
    }

    /// Kinds by long name, without the dashes ("max-upload-mb").
    let options: [String: Kind]

    init<Command: ParsableCommand>(_ command: Command.Type) {
        let description = try? JSONDecoder().decode(DumpedHelp.self, from: Data(Command._dumpHelp().utf8))
        var options: [String: Kind] = [:]
        for argument in description?.command.arguments ?? [] {
            guard let name = argument.names?.first(where: { $0.kind == "long" })?.name,
                name != "help" && name != "version" && name != "experimental-dump-help"
            else { continue }
            switch argument.kind {
            case "option": options[name] = .valued(repeating: argument.isRepeating)
            case "flag": options[name] = .flag
            default: continue
            }
        }
        self.options = options
    }

    /// The part of ArgumentParserToolInfo's ToolInfoV0 read here (that module is not a product).
    private struct DumpedHelp: Decodable {
        struct Command: Decodable { var arguments: [Argument]? }
        struct Argument: Decodable {
            struct Name: Decodable {
                var kind: String
                var name: String
            }
            var kind: String
            var isRepeating: Bool
            var names: [Name]?
        }
        var command: Command
    }
}
