import CloudCore
import SafeIO

/// Reads the elements of a PLY file after its header, in the header's order: the vertex element
/// into the cloud's channels, PCL's range_grid into the organized grid, and every other element
/// (faces, PCL's camera, ...) read past with the same checks, so that a lying count or list
/// length is an error wherever it is.
struct PLYBodyReader {
    let header: PLYHeader
    let channels: CloudChannels
    let path: String

    /// What the data holds: the vertices, and for each grid cell its vertex (-1: empty), when the
    /// file has a range_grid.
    struct Body {
        var vertices: CloudOutput
        var cells: [Int32]?
    }

    init(header: PLYHeader, path: String) throws {
        self.header = header
        self.path = path
        let vertex = header.vertex
        channels = try CloudChannels(
            names: vertex.properties.map(\.name),
            types: vertex.properties.map { $0.listCount == nil ? $0.type : nil }, path: path)
    }

    func read(_ stream: inout ByteStream) throws -> Body {
        try checkLeastData(stream.remaining)
        // The vertices, and the grid they are placed in when the file has a range_grid.
        let gridCells = header.rangeGridIndex.map { header.elements[$0].count } ?? 0
        try MemoryBudget.require(
            (header.vertex.count + gridCells) * channels.bytesPerPoint + 5 * gridCells,
            for: "a cloud of \(header.vertex.count) points", about: .file(path))
        var vertices: CloudOutput?
        var cells: [Int32]?
        if header.ascii {
            var lines = AsciiLines(stream: stream)
            defer { stream = lines.stream }
            for element in header.elements {
                switch element.name {
                case "vertex": vertices = try readAsciiVertices(&lines)
                case "range_grid": cells = try readRangeGrid(element) { try asciiRow(&lines, element) }
                default: try skipAscii(element, &lines)
                }
            }
            while let line = try lines.next() {
                var tokens = AsciiTokens()
                tokens.split(line)
                guard tokens.count == 0 else { throw bad("line \(lines.lineNumber) of the data follows the last element") }
            }
        } else {
            for element in header.elements {
                switch element.name {
                case "vertex": vertices = try readBinaryVertices(&stream)
                case "range_grid": cells = try readRangeGrid(element) { try binaryRow(&stream, element) }
                default: try skipBinary(element, &stream)
                }
            }
            guard stream.atEnd else { throw bad("\(stream.remaining) bytes follow the last element") }
        }
        return Body(vertices: vertices!, cells: cells)
    }

    /// Holds the elements' counts against the data there is before anything is allocated for
    /// them: a binary row takes at least its scalars and list counts, an ascii value at least a
    /// character and a separator.
    private func checkLeastData(_ available: Int) throws {
        var least = 0
        for element in header.elements {
            let row = header.ascii ? 2 * element.properties.count : element.minimumRowBytes
            guard let total = CloudFileLimits.product(element.count, row, plus: least) else {
                throw bad("element \(element.name) \(element.count) needs more data than any file holds")
            }
            least = total
        }
        if header.ascii, least > 0 { least -= 1 }  // the last line break is optional
        guard available >= least else {
            throw bad("truncated: the header's elements need at least \(least) bytes of data, the file holds \(available) after the header")
        }
    }

    // MARK: Vertices

    private func readBinaryVertices(_ stream: inout ByteStream) throws -> CloudOutput {
        let vertex = header.vertex
        var output = CloudOutput(count: vertex.count, channels: channels)
        guard let step = vertex.fixedRowBytes else {
            // A list among the vertex properties: rows differ in size, read one at a time.
            let record = DecodedRecord(channels: channels)
            for i in 0..<vertex.count { record.store(try binaryRow(&stream, vertex), into: &output, at: i) }
            return output
        }
        guard let needed = CloudFileLimits.product(vertex.count, step), needed <= stream.remaining else {
            throw bad("truncated: element vertex needs \(vertex.count) x \(step) bytes, the file has \(stream.remaining) left")
        }
        var offsets: [Int] = []
        var offset = 0
        for property in vertex.properties {
            offsets.append(offset)
            offset += property.type.size
        }
        let records = BinaryRecords(records: offsets, step: step, bigEndian: header.bigEndian, channels: channels)
        try records.decode(from: &stream, count: vertex.count, step: step, into: &output, what: "vertex")
        return output
    }

    private func readAsciiVertices(_ lines: inout AsciiLines) throws -> CloudOutput {
        let vertex = header.vertex
        var output = CloudOutput(count: vertex.count, channels: channels)
        let record = DecodedRecord(channels: channels)
        for i in 0..<vertex.count {
            record.store(try asciiRow(&lines, vertex), into: &output, at: i)
        }
        return output
    }

    // MARK: The grid

    /// Each cell's vertex from range_grid rows (an empty list: no point there). Every index must
    /// name a vertex, and no vertex two cells.
    private func readRangeGrid(_ element: PLYHeader.Element, row: () throws -> [Double]) throws -> [Int32] {
        let vertexCount = header.vertex.count
        var cells = [Int32](repeating: -1, count: element.count)
        var placed = [Bool](repeating: false, count: vertexCount)
        for cell in 0..<element.count {
            let values = try row()
            let listed = Int(values[0])
            guard listed <= 1 else { throw bad("range_grid cell \(cell) lists \(listed) vertices; a cell holds at most one point") }
            guard listed == 1 else { continue }
            let index = values[1]
            guard index >= 0, index < Double(vertexCount) else {
                throw bad("range_grid cell \(cell) names vertex \(index.countText), but there are \(vertexCount) vertices")
            }
            guard !placed[Int(index)] else { throw bad("range_grid cell \(cell) names vertex \(Int(index)), which another cell holds") }
            placed[Int(index)] = true
            cells[cell] = Int32(index)
        }
        if let missing = placed.firstIndex(of: false) {
            throw bad("vertex \(missing) is in no range_grid cell")
        }
        return cells
    }

    // MARK: Rows, binary and ascii

    /// One row's values by property: a scalar's value, a list's length (and, for range_grid, its
    /// first item after it). Every list length is held against the bytes left before it is used.
    private func binaryRow(_ stream: inout ByteStream, _ element: PLYHeader.Element) throws -> [Double] {
        var values: [Double] = []
        values.reserveCapacity(element.properties.count + 1)
        for property in element.properties {
            let size = (property.listCount ?? property.type).size
            let scalar = try stream.window(atLeast: size, atMost: size, what: "element \(element.name) property \(property.name)")
            let value = (property.listCount ?? property.type).load(scalar.baseAddress!, bigEndian: header.bigEndian)
            stream.advance(size)
            values.append(value)
            guard property.listCount != nil else { continue }
            guard value >= 0, value * Double(property.type.size) <= Double(stream.remaining) else {
                throw bad(
                    "element \(element.name) property \(property.name) lists \(value.countText) items at byte \(stream.position - size), more than the file holds"
                )
            }
            let length = Int(value) * property.type.size
            if length > 0, element.name == "range_grid" {
                let first = try stream.window(atLeast: property.type.size, atMost: property.type.size, what: "a range_grid index")
                values.append(property.type.load(first.baseAddress!, bigEndian: header.bigEndian))
            }
            stream.advance(length)
        }
        return values
    }

    private func asciiRow(_ lines: inout AsciiLines, _ element: PLYHeader.Element) throws -> [Double] {
        var line: UnsafeRawBufferPointer
        var tokens = AsciiTokens()
        repeat {
            guard let next = try lines.next() else {
                throw bad("truncated: the ascii data ends before element \(element.name) has its \(element.count) rows")
            }
            line = next
            tokens.split(line)
        } while tokens.count == 0
        var values: [Double] = []
        var column = 0
        func number(_ type: ScalarType, _ what: String) throws -> Double {
            guard column < tokens.count else {
                let cut = lines.stream.atEnd ? "truncated: " : ""
                throw bad("\(cut)line \(lines.lineNumber) of the data has \(tokens.count) values, too few for element \(element.name)")
            }
            let token = UnsafeRawBufferPointer(rebasing: line[tokens.ranges[column]])
            column += 1
            guard let value = AsciiNumber.value(token, as: type) else {
                throw bad(
                    "line \(lines.lineNumber) of the data: '\(String(decoding: token.prefix(40), as: UTF8.self))' is not \(describe(type)) (element \(element.name.prefix(40)) property \(what.prefix(40)))"
                )
            }
            return value
        }
        for property in element.properties {
            guard let countType = property.listCount else {
                values.append(try number(property.type, property.name))
                continue
            }
            let length = try number(countType, property.name)
            guard length >= 0, length <= Double(tokens.count - column) else {
                throw bad(
                    "line \(lines.lineNumber) of the data: list \(property.name.prefix(40)) says \(length.countText) items, the line has \(tokens.count - column) more values"
                )
            }
            values.append(length)
            for k in 0..<Int(length) {
                let item = try number(property.type, property.name)
                if k == 0, element.name == "range_grid" { values.append(item) }
            }
        }
        guard column == tokens.count else {
            throw bad("line \(lines.lineNumber) of the data has \(tokens.count) values, element \(element.name.prefix(40)) takes \(column)")
        }
        return values
    }

    // MARK: Elements read past

    private func skipBinary(_ element: PLYHeader.Element, _ stream: inout ByteStream) throws {
        if element.name == "camera" {
            for _ in 0..<element.count { try checkCamera(element, try binaryRow(&stream, element)) }
        } else if let step = element.fixedRowBytes {
            guard let length = CloudFileLimits.product(element.count, step), length <= stream.remaining else {
                throw bad(
                    "truncated: element \(element.name) needs \(element.count) x \(step) bytes, the file has \(stream.remaining) left")
            }
            stream.advance(length)
        } else {
            for _ in 0..<element.count { _ = try binaryRow(&stream, element) }
        }
    }

    private func skipAscii(_ element: PLYHeader.Element, _ lines: inout AsciiLines) throws {
        for _ in 0..<element.count {
            let values = try asciiRow(&lines, element)
            if element.name == "camera" { try checkCamera(element, values) }
        }
    }

    /// PCL's `element camera` gives the cloud's grid as viewportx x viewporty, and PCL's reader
    /// believes it: one that disagrees with the points is a file that lies about its data.
    private func checkCamera(_ element: PLYHeader.Element, _ values: [Double]) throws {
        guard let xi = element.index(of: "viewportx"), let yi = element.index(of: "viewporty") else { return }
        let (x, y) = (values[xi], values[yi])
        let cells = header.rangeGridIndex.map { header.elements[$0].count } ?? header.vertex.count
        guard x * y == Double(cells) else {
            throw bad("element camera's viewport \(x.countText) x \(y.countText) disagrees with the \(cells) points")
        }
    }

    private func bad(_ problem: String) -> CloudError {
        CloudError.badInput(.file(path), "\(problem)")
    }
}

extension Double {
    /// An integral value without ".0", anything else as Swift prints it (for messages).
    var countText: String {
        isFinite && self == rounded() && abs(self) < 1e18 ? String(Int64(self)) : String(describing: self)
    }
}
