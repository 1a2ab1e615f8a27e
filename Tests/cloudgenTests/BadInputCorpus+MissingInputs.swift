import Foundation

extension BadInputCorpus {
    /// Inputs that are not there, not files, or not readable.
    static let missingAndSpecialInputs: [BadInput] = [
        BadInput(
            name: "info of a missing file", arguments: ["info", "{dir}/missing.ply"], expect: .badInput,
            names: "{dir}/missing.ply"),
        BadInput(
            name: "convert of a folder", arguments: ["convert", "{dir}/folder.ply", "--pcd", "{dir}/out.pcd"], expect: .badInput,
            names: "{dir}/folder.ply",
            prepare: {
                try FileManager.default.createDirectory(at: $0.appendingPathComponent("folder.ply"), withIntermediateDirectories: false)
            }),
        BadInput(
            name: "render of an empty file", files: ["empty.ply": []], arguments: ["render", "{dir}/empty.ply", "--out", "{dir}/out.png"],
            expect: .badInput, names: "{dir}/empty.ply"),
        BadInput(
            name: "info of an unreadable file, as an unprivileged user", files: ["secret.pcd": Array("VERSION 0.7\n".utf8)],
            arguments: ["info", "{dir}/secret.pcd"], expect: .io, names: "{dir}/secret.pcd", unprivileged: true,
            prepare: { chmod($0.appendingPathComponent("secret.pcd").path, 0) }),
        BadInput(
            name: "convert over an existing output, input missing", arguments: ["convert", "{dir}/nope.pcd", "--ply", "{dir}/keep.ply"],
            expect: .badInput, names: "{dir}/nope.pcd", existing: ["keep.ply": Array("precious".utf8)])
    ]
}
