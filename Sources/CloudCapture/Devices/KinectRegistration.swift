import CloudCore

extension KinectCalibration {
    /// Raw 11-bit depth (640x480, host order) as 16-bit little-endian millimetres seen from the RGB
    /// camera: a depth pixel moves along the row by the parallax between the IR and RGB
    /// cameras, f * baseline / z pixels, and where two land on one pixel the nearer wins (the
    /// farther one is hidden from the RGB camera). The two cameras are taken as rectified pinholes
    /// with the IR camera's intrinsics, the RGB camera `baseline` to the right (x) of the IR camera:
    /// the direction libfreenect's registration shifts in. libfreenect additionally warps by a
    /// per-device polynomial (reg_info) of a few pixels, which this does not apply (Docs/devices.md).
    public func registeredMillimetres(raw: UnsafeBufferPointer<UInt16>, table: [UInt16]) -> [UInt8] {
        let width = Self.width
        let height = Self.height
        precondition(raw.count >= width * height && table.count == 2048)
        var registered = [UInt16](repeating: 0, count: width * height)
        // The parallax in pixels is parallaxNumerator / millimetres.
        let parallaxNumerator = Float(focalLength * baseline)
        table.withUnsafeBufferPointer { table in
            registered.withUnsafeMutableBufferPointer { out in
                for v in 0..<height {
                    let row = v * width
                    for u in 0..<width {
                        let sample = raw[row + u]
                        guard sample < 2048 else { continue }
                        let mm = table[Int(sample)]
                        guard mm > 0 else { continue }
                        let target = Int((Float(u) - parallaxNumerator / Float(mm)).rounded())
                        guard target >= 0 && target < width else { continue }
                        let current = out[row + target]
                        if current == 0 || mm < current { out[row + target] = mm }
                    }
                }
            }
        }
        // Host order is little-endian on every platform cloudgen builds for.
        return registered.withUnsafeBytes { [UInt8]($0) }
    }
}
