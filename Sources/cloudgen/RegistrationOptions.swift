import ArgumentParser

/// `--register` and `--trajectory`, which `capture` and `measure` share: poses from the frames
/// themselves, and the poses a capture placed its frames by.
struct RegistrationOptions: ParsableArguments {
    @Flag(
        help:
            "Find each frame's pose from the frames themselves (RGB-D odometry against keyframes), ignoring any the source has; the world frame is the first frame's camera frame. A frame that cannot be registered is named and left out."
    )
    var register = false

    @Option(
        help: ArgumentHelp(
            "Write the poses the frames were placed by: TUM lines (timestamp tx ty tz qx qy qz qw), or Redwood's trajectory.log for a .log name.",
            valueName: "file"))
    var trajectory: String?
}
