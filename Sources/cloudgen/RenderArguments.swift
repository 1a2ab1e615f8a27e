import CloudCore
import CloudRender

/// The render flags that take text, read here rather than by ArgumentParser so that a refusal can
/// say what a sensible value would be (exit 2, one line).
enum RenderArguments {
    /// `--size WxH`.
    static func size(_ text: String) throws -> (width: Int, height: Int) {
        let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]) else {
            throw CloudError.badInput("--size \(text): needs WIDTHxHEIGHT in pixels, e.g. 1280x720")
        }
        return (w, h)
    }

    static func up(_ text: String) throws -> UpAxis {
        guard let axis = UpAxis(text) else {
            throw CloudError.badInput(
                "--up \(text): needs an axis with an optional sign: -y for camera-frame clouds, +z for world-frame rooms")
        }
        return axis
    }

    static func color(_ text: String) throws -> ColorMode {
        guard let mode = ColorMode(rawValue: text.lowercased()) else {
            throw CloudError.badInput("--color \(text): needs one of \(ColorMode.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return mode
    }

    static func background(_ text: String) throws -> RGB8 {
        guard let color = RGB8(text) else {
            throw CloudError.badInput("--background \(text): needs #rrggbb or one of \(RGB8.names.map(\.0).joined(separator: ", "))")
        }
        return color
    }

    static let pointSizes = 1...64

    static func pointSize(_ size: Int) throws -> Int {
        guard pointSizes.contains(size) else {
            throw CloudError.badInput(
                "--point-size \(size): needs a square side in pixels within \(pointSizes.lowerBound)...\(pointSizes.upperBound), e.g. 2")
        }
        return size
    }
}
