/// Frame numbers as a person reads a list of them: runs of consecutive numbers as ranges, so that
/// a warning about 300 missing frames of a long export stays one line ("3, 17-20, 40").
enum FrameNumberRanges {
    /// `numbers` (in any order, each once) as "a, b-c, ...", ascending.
    static func text(_ numbers: [Int]) -> String {
        var runs: [(first: Int, last: Int)] = []
        for n in numbers.sorted() {
            if let last = runs.last?.last, n == last + 1 {
                runs[runs.count - 1].last = n
            } else {
                runs.append((n, n))
            }
        }
        return runs.map { $0.first == $0.last ? "\($0.first)" : "\($0.first)-\($0.last)" }.joined(separator: ", ")
    }
}
