import CloudCapture
import CloudCore
import CloudImages
import CloudPCL
import Foundation

/// The cleaning pipeline of issue 4 on one real frame, by stage: read the frame's files, convert,
/// back-project, voxel grid 1 cm, statistical outlier removal (20, 2), normals within 5 cm facing
/// the camera, binary PLY. The steps are the ones `capture --voxel 0.01 --sor 20,2 --normals 0.05`
/// runs, in that order, each timed on its own.
struct FilterPipelineResult: Codable {
    var source: String
    /// Points after each stage that makes or drops points ("backproject", "voxel", "sor").
    var points: [String: Int]
    var bytes: Int
    var timing: StagedTiming
}

/// What `open3d_bench.py` needs to run the same pipeline on the same files. Its "open" stage does
/// what ours does before decoding: read the calibration file (`intrinsicsFile`, where the frame
/// has one) or the TUM index files (`tumFolder`), which name the images.
struct FilterPipelineInput: Codable {
    var intrinsicsFile: String?
    var tumFolder: String?
    var colorFile: String
    var depthFile: String
    /// Raw depth units per metre.
    var depthScale: Double
    var width: Int
    var height: Int
    var fx: Double
    var fy: Double
    var cx: Double
    var cy: Double
    var cloudgenPly: String
}

enum FilterPipelineBench {
    /// `--voxel 0.01 --sor 20,2 --normals 0.05`.
    static let options = [("voxel", "0.01"), ("sor", "20,2"), ("normals", "0.05")]

    static func run(spec: String, output: String, laps: inout Laps, points: inout [String: Int]) throws -> PointCloud {
        let steps = try options.map { try FilterArguments.step(option: $0.0, value: $0.1) }
        // Opening the source (its calibration or index files) and decoding the images are one
        // stage, "read": the whole cost of getting a frame off the disk, on both sides.
        var cloud = try DatasetBench.firstCloud(spec: spec, laps: &laps, openStage: nil, readStage: "read")
        points["backproject"] = cloud.count
        for step in steps {
            (cloud, points[step.filter.name]) = try step.filter.apply(to: cloud, option: step.option)
            laps.lap(step.filter.name)
        }
        try writeCloud(cloud, to: output, format: .ply(.binary))
        laps.lap("write")
        return cloud
    }

    /// The PCL grabber frame as Open3D reads a frame: color and 16-bit millimetre depth PNGs and an
    /// Open3D intrinsics file (the grabber XML's fx = fy = 525, cx = 320, cy = 240), written by
    /// `capture --rgbd`'s exporter into `workdir/grabber`; both sides then read those files
    /// (`redwood:` reads that layout). The grabber's depth is whole millimetres: nothing is lost.
    static func exportGrabberFrame(_ grabber: URL, workdir: URL) throws -> (folder: URL, frame: RGBDFrame) {
        let folder = workdir.appendingPathComponent("grabber")
        if FileManager.default.fileExists(atPath: folder.path) { try FileManager.default.removeItem(at: folder) }
        let source = try SourceSpec(parsing: "pclgrabber:\(grabber.path)").open()
        guard let captured = try source.nextFrame() else { throw CloudError.io("\(source.name): no frame") }
        let frame = try RGBDFrame(decoding: captured, origin: source.name, colorAtDepthResolution: true)
        let exporter = try RGBDExporter(directory: folder.path)
        try exporter.write(frame)
        try exporter.finish()
        return (folder, frame)
    }

    /// Times the pipeline on the grabber frame and on the TUM frame folder, and leaves
    /// `filter_pipelines.json` for Open3D's side.
    static func run(grabber: URL, data: URL, workdir: URL, runs: Int, warmup: Int) throws -> [String: FilterPipelineResult] {
        let tum = try DatasetBench.makeTUMFolder(data: data, workdir: workdir)
        let out = workdir.appendingPathComponent("cloudgen-out")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        let (grabberFolder, grabberFrame) = try exportGrabberFrame(grabber, workdir: workdir)
        let k = grabberFrame.intrinsics.scaled(toWidth: grabberFrame.depth.width, height: grabberFrame.depth.height)
        // TUM's default calibration, which `tum:` assumes, at the frame's own 640x480.
        let tumK = TUMSource.defaultIntrinsics
        let cases: [(key: String, spec: String, input: FilterPipelineInput)] = [
            (
                "grabber_frame", "redwood:\(grabberFolder.path)",
                FilterPipelineInput(
                    intrinsicsFile: grabberFolder.appendingPathComponent("camera_intrinsic.json").path,
                    colorFile: grabberFolder.appendingPathComponent("color/000000.png").path,
                    depthFile: grabberFolder.appendingPathComponent("depth/000000.png").path,
                    depthScale: 1000, width: k.referenceWidth, height: k.referenceHeight,
                    fx: k.fx, fy: k.fy, cx: k.cx, cy: k.cy,
                    cloudgenPly: out.appendingPathComponent("grabber-filtered.ply").path)
            ),
            (
                "tum_frame", "tum:\(tum.folder.path)",
                FilterPipelineInput(
                    tumFolder: tum.folder.path, colorFile: tum.color.path, depthFile: tum.depth.path, depthScale: 5000,
                    width: 640, height: 480, fx: tumK.fx, fy: tumK.fy, cx: tumK.cx, cy: tumK.cy,
                    cloudgenPly: out.appendingPathComponent("tum-filtered.ply").path)
            )
        ]
        var results: [String: FilterPipelineResult] = [:]
        var inputs: [String: FilterPipelineInput] = [:]
        for (key, spec, input) in cases {
            var points: [String: Int] = [:]
            let timing = try measureStages(runs: runs, warmup: warmup) { laps in
                try run(spec: spec, output: input.cloudgenPly, laps: &laps, points: &points).count
            }
            results[key] = FilterPipelineResult(source: spec, points: points, bytes: fileSize(input.cloudgenPly), timing: timing)
            inputs[key] = input
        }
        try benchJSON(inputs).write(to: workdir.appendingPathComponent("filter_pipelines.json"))
        return results
    }
}
