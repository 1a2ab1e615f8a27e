import ArgumentParser
import CloudCore
import Foundation
import SafeIO

/// Where a command's options come from besides its command line: `CLOUDGEN_*` environment
/// variables and a `--config FILE` of `key = value` lines (a systemd unit's settings live in a
/// file, a container's in its environment). Per option, the command line wins over the
/// environment, which wins over the file, which wins over the default; a repeatable option set at
/// one level replaces the lower levels' values instead of adding to them.
///
/// Every long option the command declares is covered (DeclaredOptions), and each value from the
/// file or the environment goes through the command's own parsing and validation on its own, so
/// a bad one is reported with its file and line, or its variable, rather than as a flag never typed.
enum OptionSources {
    /// The option that names the file; a command offering config files declares it for its help.
    static let configKey = "config"
    static let environmentPrefix = "CLOUDGEN_"
    /// ArgumentParser's requests for the usage text.
    static let helpFlags: Set<String> = ["--help", "-h", "-help"]

    /// `CLOUDGEN_MAX_UPLOAD_MB` for `max-upload-mb`.
    static func environmentName(of key: String) -> String {
        environmentPrefix + key.uppercased().replacingOccurrences(of: "-", with: "_")
    }

    /// The command's `arguments` (those after its name) with the options they do not give filled
    /// in from `environment` and the config file, as tokens placed before them.
    static func merged<Command: ParsableCommand>(
        _ arguments: [String], for command: Command.Type, environment: [String: String]
    ) throws -> [String] {
        // Help is help whatever the environment says: a unit's CLOUDGEN_CONFIG naming a file not
        // written yet, or a bad line in it, must not stand between the user and the usage text.
        guard !arguments.prefix(while: { $0 != "--" }).contains(where: helpFlags.contains) else { return arguments }
        let catalog = DeclaredOptions(Command.self)
        let given = givenValues(in: arguments, catalog: catalog)

        var fromEnvironment: [String: [String]] = [:]
        for key in catalog.options.keys.sorted() where key != configKey {
            let name = environmentName(of: key)
            guard let value = environment[name], let kind = catalog.options[key] else { continue }
            // One variable holds all of a repeatable option's values: "a,b".
            let values = kind == .valued(repeating: true) ? value.split(separator: ",").map(String.init) : [value]
            for value in values { try check(key, value, kind: kind, for: Command.self, origin: "\(name)=\(value)") }
            fromEnvironment[key] = values
        }

        var fromFile: [String: [String]] = [:]
        if let path = given[configKey]?.last ?? environment[environmentName(of: configKey)] {
            fromFile = try read(configFile: path, catalog: catalog, for: Command.self)
        }

        var injected: [String] = []
        for key in catalog.options.keys.sorted() where key != configKey && given[key] == nil {
            guard let values = fromEnvironment[key] ?? fromFile[key], let kind = catalog.options[key] else { continue }
            for value in values { injected += tokens(key, value, kind: kind) ?? [] }
        }
        return injected + arguments
    }

    /// The `CLOUDGEN_*` variables of `environment` that set none of the command's options (a
    /// misspelt CLOUDGEN_TOKEN_FIEL would otherwise leave a server without its token, silently).
    /// Named at start rather than refused: the environment may hold variables of other tools.
    static func unknownVariables<Command: ParsableCommand>(in environment: [String: String], for command: Command.Type) -> [String] {
        let known = Set(DeclaredOptions(Command.self).options.keys.map(environmentName(of:)))
        return environment.keys.filter { $0.hasPrefix(environmentPrefix) && !known.contains($0) }.sorted()
    }

    /// The values of the long options `arguments` give, by name; a bare flag's value is "true".
    /// "--" ends the options.
    private static func givenValues(in arguments: [String], catalog: DeclaredOptions) -> [String: [String]] {
        var given: [String: [String]] = [:]
        var i = 0
        while i < arguments.count {
            let token = arguments[i]
            i += 1
            if token == "--" { break }
            guard token.hasPrefix("--") else { continue }
            let body = token.dropFirst(2)
            if let equals = body.firstIndex(of: "=") {
                given[String(body[..<equals]), default: []].append(String(body[body.index(after: equals)...]))
            } else if case .valued? = catalog.options[String(body)] {
                // The next token is the value, whatever it looks like.
                given[String(body), default: []].append(i < arguments.count ? arguments[i] : "")
                i += 1
            } else {
                given[String(body), default: []].append("true")
            }
        }
        return given
    }

    /// The config file's values by key. Lines are `key = value`, keys being the command's long
    /// options without "--"; blank lines and lines starting with "#" are skipped. A repeatable
    /// option may have several lines, any other key one.
    static func read<Command: ParsableCommand>(
        configFile path: String, catalog: DeclaredOptions, for command: Command.Type
    ) throws -> [String: [String]] {
        let bytes: [UInt8]
        do {
            bytes = try InputFile.readAll(path, role: "the config file", limit: 1 << 20)
        } catch let error as CloudError {
            // Whatever the reason (a missing file, a permission), it is the configuration that is wrong.
            throw CloudError.badInput(error.message)
        }
        var values: [String: [String]] = [:]
        var firstLine: [String: Int] = [:]
        // Split on the bytes: Swift's String takes "\r\n" for one character, so a file written on
        // Windows would be one line, its keys after the first lost (a token-file among them).
        for (index, raw) in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).enumerated() {
            let line = String(decoding: raw, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            let number = index + 1
            if line.isEmpty || line.hasPrefix("#") { continue }
            func bad(_ problem: String) -> CloudError { CloudError.badInput("\(path):\(number): \(problem)") }
            guard let equals = line.firstIndex(of: "=") else { throw bad("expected `key = value`") }
            let key = line[..<equals].trimmingCharacters(in: .whitespaces)
            let value = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            if key == configKey { throw bad("\(configKey): a config file cannot name another") }
            guard let kind = catalog.options[key] else {
                throw bad("unknown key '\(key)' (the keys are the long options of 'cloudgen \(Command._commandName) --help', without '--')")
            }
            if let first = firstLine[key], kind != .valued(repeating: true) { throw bad("\(key) is set again (first on line \(first))") }
            firstLine[key] = firstLine[key] ?? number
            do {
                try check(key, value, kind: kind, for: Command.self, origin: nil)
            } catch let error as CloudError {
                throw bad(error.message)
            }
            values[key, default: []].append(value)
        }
        return values
    }

    /// Refuses a value the command would refuse as `--key=value`, saying where it came from: the
    /// command is parsed from that option alone (so this suits commands without required arguments).
    private static func check<Command: ParsableCommand>(
        _ key: String, _ value: String, kind: DeclaredOptions.Kind, for command: Command.Type, origin: String?
    ) throws {
        let prefix = origin.map { "\($0): " } ?? ""
        guard let tokens = tokens(key, value, kind: kind) else {
            throw CloudError.badInput("\(prefix)\(key) = \(value): needs true or false")
        }
        if value.isEmpty { throw CloudError.badInput("\(prefix)\(key): has no value") }
        do {
            _ = try Command.parse(tokens)
        } catch {
            throw CloudError.badInput("\(prefix)\(Console.usageProblem(Command.message(for: error)))")
        }
    }

    /// The command-line tokens for `key = value`; nil for a flag whose value is not a boolean.
    /// One token, so that a value starting with "-" is not taken for an option.
    private static func tokens(_ key: String, _ value: String, kind: DeclaredOptions.Kind) -> [String]? {
        guard kind == .flag else { return ["--\(key)=\(value)"] }
        switch value {
        case "true": return ["--\(key)"]
        case "false": return []
        default: return nil
        }
    }
}
