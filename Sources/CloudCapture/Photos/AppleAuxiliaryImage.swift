import CloudImages

/// What one of a photo's further images is, from its own XMP, as Image I/O writes auxiliary images
/// (Docs/formats.md, "Photos with depth", cites the documents): the depth or disparity map, the
/// portrait effects matte, or another auxiliary image (the semantic segmentation mattes of skin,
/// hair, teeth, glasses or sky, the HDR gain map), which is neither and must not be taken for one.
enum AppleAuxiliaryImage: Equatable {
    case depth
    case portraitEffectsMatte
    case other

    /// Spelt `portraitEffectsMatte` by Apple's files and by Google's image_io (kXmpAppleMatteId);
    /// compared without case, as it is also quoted all in lower case.
    static let portraitMatteNamespace = "http://ns.apple.com/portraiteffectsmatte/1.0/"
    static let semanticMatteNamespace = "http://ns.apple.com/semanticsegmentationmatte/1.0/"
    static let gainMapNamespace = "http://ns.apple.com/hdrgainmap/1.0/"
    /// The names a portrait effects matte goes by as apdi:AuxiliaryImageType or SubType: HEIF's auxC
    /// URN, Image I/O's auxiliary data type, and the subtype an iPhone writes.
    static let portraitMatteNames: Set<String> = [
        "urn:com:apple:photo:2018:aux:portraiteffectsmatte",
        "kcgimageauxiliarydatatypeportraiteffectsmatte", "portraiteffectsmatte"
    ]

    /// nil when the packet says nothing of what the image is.
    init?(_ xmp: XMPPacket) {
        func inNamespace(_ namespace: String) -> Bool { xmp.properties.contains { $0.namespace.lowercased() == namespace } }
        let type = xmp.values(AppleDepthMetadata.pixelDataInfo, "AuxiliaryImageType")?.first?.lowercased()
        let subtype = xmp.values(AppleDepthMetadata.pixelDataInfo, "AuxiliaryImageSubType")?.first?.lowercased()
        let names = [type, subtype].compactMap { $0 }
        // The matte first: an iPhone's matte says AuxiliaryImageType "depth", its subtype says what it is.
        if inNamespace(Self.portraitMatteNamespace) || names.contains(where: Self.portraitMatteNames.contains) {
            self = .portraitEffectsMatte
        } else if inNamespace(Self.semanticMatteNamespace) || inNamespace(Self.gainMapNamespace)
            || names.contains(where: { $0.contains("matte") || $0.contains("gainmap") })
        {
            // Another matte or a gain map, whatever type it also gives, is no depth.
            self = .other
        } else if type == "depth" || type == "disparity" || xmp.values(AppleDepthMetadata.depthData, "IntrinsicMatrix") != nil {
            self = .depth
        } else {
            return nil
        }
    }
}
