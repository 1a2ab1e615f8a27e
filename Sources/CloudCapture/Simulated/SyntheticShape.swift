/// The floor plan of the simulated room (`shape=`).
public enum SyntheticShape: String, CaseIterable, Sendable {
    /// The W x D rectangle: four walls.
    case box
    /// The rectangle less a full-height block in its south-east corner (`SyntheticScene.notch`),
    /// 0.4 W x 0.4 D: six walls, one inner corner. The south-east corner is the one the furniture
    /// and the camera's view leave free, so the block neither swallows them nor hides the far
    /// corner the camera looks at, and the camera still sees the block's faces at the side.
    case L

    /// The block's share of the room's width and depth.
    static let notchFraction = 0.4
}
