import CloudCore
import CloudPipeline

/// How the service words the engine's options: as the fields a client sends (a form part, a JSON
/// key, a query parameter), where the CLI has flags. `depth-scale` is the field `depth_scale`;
/// a value is given as `voxel=0`; turning a switch on is `fuse=true`.
enum FieldWording {
    /// The field an option is sent as.
    static func field(_ option: CloudError.Option) -> String {
        String(option.name.map { $0 == "-" ? "_" : $0 })
    }

    /// The option as a client would write it. An option no route takes (`--min-confidence`, which
    /// an uploaded export's warning mentions) keeps its flag: no field could say it.
    static func text(_ option: CloudError.Option) -> String {
        if let known = OptionCatalogue.flag(option.name), known.field == nil { return option.flag }
        if option.isSwitch { return "\(field(option))=true" }
        return option.value.map { "\(field(option))=\($0)" } ?? field(option)
    }

    /// The error's line with options as fields: "voxel=0: needs ...".
    static func detail(_ error: CloudError) -> String {
        error.rendered(option: text)
    }

    /// The warning's line with options as fields: "rgbd:color,depth: ...; pass depth_scale=S ...".
    static func line(_ warning: CloudWarning) -> String {
        warning.rendered(option: text)
    }
}
