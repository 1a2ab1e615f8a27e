/// A 3x5 pixel font for the renderer's labels: digits, lowercase letters (capitals are drawn as
/// them) and the punctuation of measurements ("4.02 x 3.01 m, 12.1 m²"). Drawn by hand for this
/// renderer, so that labels need no font library; a character it lacks is drawn blank.
enum PixelFont {
    static let glyphWidth = 3
    static let glyphHeight = 5

    /// Five rows of three bits each, top row first, leftmost pixel the highest bit.
    private static let glyphs: [Character: [UInt8]] = [
        "0": [0b111, 0b101, 0b101, 0b101, 0b111],
        "1": [0b010, 0b110, 0b010, 0b010, 0b111],
        "2": [0b111, 0b001, 0b111, 0b100, 0b111],
        "3": [0b111, 0b001, 0b011, 0b001, 0b111],
        "4": [0b101, 0b101, 0b111, 0b001, 0b001],
        "5": [0b111, 0b100, 0b111, 0b001, 0b111],
        "6": [0b111, 0b100, 0b111, 0b101, 0b111],
        "7": [0b111, 0b001, 0b010, 0b010, 0b010],
        "8": [0b111, 0b101, 0b111, 0b101, 0b111],
        "9": [0b111, 0b101, 0b111, 0b001, 0b111],
        ".": [0b000, 0b000, 0b000, 0b000, 0b010],
        "-": [0b000, 0b000, 0b111, 0b000, 0b000],
        " ": [0, 0, 0, 0, 0],
        // Lowercase: x-height is the lower four rows, ascenders reach the top row; there is no
        // room for descenders, so g, p, q and y sit on the line.
        "a": [0b000, 0b110, 0b011, 0b101, 0b111],
        "b": [0b100, 0b100, 0b111, 0b101, 0b111],
        "c": [0b000, 0b000, 0b111, 0b100, 0b111],
        "d": [0b001, 0b001, 0b111, 0b101, 0b111],
        "e": [0b000, 0b011, 0b111, 0b100, 0b011],
        "f": [0b011, 0b010, 0b111, 0b010, 0b010],
        "g": [0b000, 0b011, 0b101, 0b011, 0b110],
        "h": [0b100, 0b100, 0b111, 0b101, 0b101],
        "i": [0b010, 0b000, 0b010, 0b010, 0b010],
        "j": [0b001, 0b000, 0b001, 0b101, 0b010],
        "k": [0b100, 0b101, 0b110, 0b110, 0b101],
        "l": [0b110, 0b010, 0b010, 0b010, 0b011],
        "m": [0b000, 0b110, 0b111, 0b101, 0b101],
        "n": [0b000, 0b000, 0b110, 0b101, 0b101],
        "o": [0b000, 0b000, 0b111, 0b101, 0b111],
        "p": [0b000, 0b111, 0b101, 0b111, 0b100],
        "q": [0b000, 0b111, 0b101, 0b111, 0b001],
        "r": [0b000, 0b000, 0b011, 0b100, 0b100],
        "s": [0b000, 0b011, 0b110, 0b011, 0b110],
        "t": [0b010, 0b111, 0b010, 0b010, 0b011],
        "u": [0b000, 0b000, 0b101, 0b101, 0b111],
        "v": [0b000, 0b000, 0b101, 0b101, 0b010],
        "w": [0b000, 0b000, 0b101, 0b111, 0b111],
        "x": [0b000, 0b000, 0b101, 0b010, 0b101],
        "y": [0b000, 0b101, 0b111, 0b001, 0b110],
        "z": [0b000, 0b111, 0b011, 0b100, 0b111],
        ",": [0b000, 0b000, 0b000, 0b010, 0b100],
        ":": [0b000, 0b010, 0b000, 0b010, 0b000],
        "(": [0b010, 0b100, 0b100, 0b100, 0b010],
        ")": [0b010, 0b001, 0b001, 0b001, 0b010],
        "/": [0b001, 0b001, 0b010, 0b100, 0b100],
        "%": [0b101, 0b001, 0b010, 0b100, 0b101],
        "+": [0b000, 0b010, 0b111, 0b010, 0b000],
        "=": [0b000, 0b111, 0b000, 0b111, 0b000],
        "±": [0b010, 0b111, 0b010, 0b000, 0b111],
        "×": [0b000, 0b000, 0b101, 0b010, 0b101],
        "²": [0b110, 0b010, 0b100, 0b110, 0b000],
        "°": [0b010, 0b101, 0b010, 0b000, 0b000]
    ]

    /// Width in pixels of `text` at `scale`, one blank column between glyphs.
    static func width(_ text: String, scale: Int) -> Int {
        text.isEmpty ? 0 : (text.count * (glyphWidth + 1) - 1) * scale
    }

    /// Draws `text` with its top-left corner at (x, y), clipped to the image.
    static func draw(_ text: String, x: Int, y: Int, scale: Int, color: SIMD3<UInt8>, into image: inout Canvas) {
        var left = x
        for character in text {
            let rows = glyphs[character] ?? character.lowercased().first.flatMap { glyphs[$0] } ?? glyphs[" "]!
            for (row, bits) in rows.enumerated() {
                for column in 0..<glyphWidth where bits & (1 << (glyphWidth - 1 - column)) != 0 {
                    image.fill(x: left + column * scale, y: y + row * scale, width: scale, height: scale, color: color)
                }
            }
            left += (glyphWidth + 1) * scale
        }
    }
}

/// An RGB image being drawn on, with clipped rectangle fills.
struct Canvas {
    let width: Int
    let height: Int
    var rgb: [UInt8]

    init(width: Int, height: Int, background: SIMD3<UInt8>) {
        self.width = width
        self.height = height
        rgb = [UInt8](repeating: 0, count: width * height * 3)
        fill(x: 0, y: 0, width: width, height: height, color: background)
    }

    mutating func fill(x: Int, y: Int, width w: Int, height h: Int, color: SIMD3<UInt8>) {
        let (x0, y0, x1, y1) = (max(x, 0), max(y, 0), min(x + w, width), min(y + h, height))
        guard x0 < x1, y0 < y1 else { return }
        for yy in y0..<y1 {
            for xx in x0..<x1 {
                set(xx, yy, color)
            }
        }
    }

    @inline(__always) mutating func set(_ x: Int, _ y: Int, _ c: SIMD3<UInt8>) {
        let i = 3 * (y * width + x)
        rgb[i] = c.x
        rgb[i + 1] = c.y
        rgb[i + 2] = c.z
    }
}
