import CImageCodecs
import CloudCore
import SafeIO

/// The properties of an XMP packet (RDF/XML), read with expat (`cic_xmp_parse`): what Apple's
/// depth photos keep their calibration in. Only the flat form Apple writes is kept: simple values
/// and ordered lists (rdf:Seq) of the properties directly inside rdf:Description, as elements or
/// attributes; structured values (nested resources) are skipped.
public struct XMPPacket: Sendable {
    public struct Property: Equatable, Sendable {
        public var namespace: String
        public var name: String
        /// One value for a simple property, the items in order for a list.
        public var values: [String]
    }

    public private(set) var properties: [Property] = []

    /// Parses `bytes`; `origin` names the packet (a file and where in it) in errors.
    public init(_ bytes: [UInt8], origin: String) throws {
        final class Collector {
            var properties: [Property] = []
            var index: [String: Int] = [:]
        }
        let collector = Collector()
        var status = cic_status()
        let callback: cic_xmp_property = { context, namespace, name, value, _ in
            let collector = Unmanaged<Collector>.fromOpaque(context!).takeUnretainedValue()
            let namespace = String(cString: namespace!)
            let name = String(cString: name!)
            let value = String(cString: value!)
            let key = namespace + " " + name
            if let i = collector.index[key] {
                collector.properties[i].values.append(value)
            } else {
                collector.index[key] = collector.properties.count
                collector.properties.append(Property(namespace: namespace, name: name, values: [value]))
            }
            return Int32(CIC_OK)
        }
        let code = bytes.withUnsafeBufferPointer {
            cic_xmp_parse($0.baseAddress, $0.count, callback, Unmanaged.passUnretained(collector).toOpaque(), &status)
        }
        if code != CIC_OK { throw status.failure(about: .file(origin)) }
        properties = collector.properties
    }

    /// The values of `name` in `namespace`, or nil when the packet does not have it.
    public func values(_ namespace: String, _ name: String) -> [String]? {
        properties.first { $0.namespace == namespace && $0.name == name }?.values
    }
}
