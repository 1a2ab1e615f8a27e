import CloudCore
import Foundation

/// A small dense square matrix (row-major) and the few operations the pose refinement's normal
/// equations need: sizes are at most a few dozen, so plain elimination is enough.
struct SquareMatrix {
    let size: Int
    var values: [Double]

    init(size: Int) {
        self.size = size
        values = [Double](repeating: 0, count: size * size)
    }

    subscript(row: Int, column: Int) -> Double {
        get { values[row * size + column] }
        set { values[row * size + column] = newValue }
    }

    /// x with self x = b, by Gaussian elimination with partial pivoting; nil when singular.
    func solve(_ b: [Double]) -> [Double]? {
        var a = values
        var x = b
        let n = size
        for column in 0..<n {
            var pivot = column
            for row in (column + 1)..<max(column + 1, n) where abs(a[row * n + column]) > abs(a[pivot * n + column]) { pivot = row }
            guard abs(a[pivot * n + column]) > 1e-300 else { return nil }
            if pivot != column {
                for k in 0..<n { a.swapAt(pivot * n + k, column * n + k) }
                x.swapAt(pivot, column)
            }
            let inverse = 1 / a[column * n + column]
            for row in (column + 1)..<max(column + 1, n) {
                let factor = a[row * n + column] * inverse
                guard factor != 0 else { continue }
                for k in column..<n { a[row * n + k] -= factor * a[column * n + k] }
                x[row] -= factor * x[column]
            }
        }
        for row in stride(from: n - 1, through: 0, by: -1) {
            var sum = x[row]
            for k in (row + 1)..<max(row + 1, n) { sum -= a[row * n + k] * x[k] }
            x[row] = sum / a[row * n + row]
        }
        return x
    }

    /// self⁻¹ column by column; nil when singular.
    func inverse() -> SquareMatrix? {
        var result = SquareMatrix(size: size)
        for column in 0..<size {
            var unit = [Double](repeating: 0, count: size)
            unit[column] = 1
            guard let x = solve(unit) else { return nil }
            for row in 0..<size { result[row, column] = x[row] }
        }
        return result
    }
}

extension Pose {
    /// `self` after `first`: p -> self.apply(first.apply(p)).
    func after(_ first: Pose) -> Pose {
        let r = rotation
        let columns = (
            SIMD3(first.rotation.0.x, first.rotation.1.x, first.rotation.2.x),
            SIMD3(first.rotation.0.y, first.rotation.1.y, first.rotation.2.y),
            SIMD3(first.rotation.0.z, first.rotation.1.z, first.rotation.2.z)
        )
        func row(_ a: SIMD3<Double>) -> SIMD3<Double> { SIMD3(dot(a, columns.0), dot(a, columns.1), dot(a, columns.2)) }
        return Pose(rows: (row(r.0), row(r.1), row(r.2)), translation: apply(first.translation))
    }
}
