import CloudCore

/// A filter step as the user asked for it: the option and value as given (for messages and
/// reports, which each door words its own way) and the filter they mean.
public struct FilterStep: Equatable, Sendable {
    /// voxel 0.01, foreground.
    public var option: CloudError.Option
    public var filter: CloudFilter

    public init(option: CloudError.Option, filter: CloudFilter) {
        self.option = option
        self.filter = filter
    }
}

/// The filter options' syntax, shared by every door that filters (the CLI's flags and `--filter
/// NAME=VALUE`, the service's fields and `filters` entries): a row of `FilterKind.all` by its name,
/// and a value of numbers separated by commas in the row's form (`voxel 0.01`, `sor 20,2`), or none
/// for a switch (`foreground`) or a value with a default (`normals`). Values are read leniently and
/// judged by the row's grammar and `CloudFilter.problem`, so that every refusal can say what a
/// sensible value would be.
public enum FilterArguments {
    /// The filter `option` (named without dashes) and `value` stand for; a `CloudError.badInput`
    /// about the option and value when the value is malformed or its parameters would not work.
    /// An option of `optionalValues` without a value takes its default.
    public static func step(option name: String, value: String?) throws -> FilterStep {
        guard let kind = FilterKind.named(name) else {
            throw CloudError.badInput(.option(CloudError.Option(name)), "is not a filter option")
        }
        let value = value ?? kind.defaultValue
        var option = kind.form == nil ? CloudError.Option.switch(name) : CloudError.Option(name, value)
        if !kind.flagged { option.entry = "filter" }
        let numbers = value.map { $0.split(separator: ",", omittingEmptySubsequences: false).map { Double($0) } } ?? []
        func bad(_ what: String) -> CloudError { CloudError.badInput(.option(option), CloudError.Reason(what)) }
        let filter = CloudFilter(kind, try kind.parse(numbers, bad))
        if let problem = filter.problem { throw bad(problem) }
        return FilterStep(option: option, filter: filter)
    }

    /// Options whose value may be left out, with the value that stands for it.
    public static let optionalValues = Dictionary(
        uniqueKeysWithValues: FilterKind.all.compactMap { kind in kind.defaultValue.map { (kind.name, $0) } })
}
