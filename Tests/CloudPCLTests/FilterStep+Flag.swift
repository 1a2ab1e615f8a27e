import CloudPCL

extension FilterArguments {
    /// The step a filter flag stands for ("--voxel", "0.01"): these tests write their steps and
    /// expect their messages as a command line spells them.
    static func step(flag: String, value: String?) throws -> FilterStep {
        try step(option: String(flag.dropFirst(2)), value: value)
    }
}
