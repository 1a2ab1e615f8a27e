import CShims
import CloudCore

#if canImport(Glibc)
import Glibc
#endif

/// The PCL shim (CShims), opened with dlopen on first use rather than linked: linking it would load
/// and initialise PCL's libraries in every cloudgen process, `--version` included, where most
/// commands never filter (Docs/architecture.md, "Start-up"). The library is found through the
/// runpath Package.swift gives every program that links CloudPCL: `$ORIGIN/../lib/cloudgen`, where
/// Tools/install puts it beside an installed binary, then CShims/build of the checkout it was built
/// in (which Tools/install strips from the installed binary's runpath).
enum PCLShim {
    static let libraryName = "libcloudgen_shim.so"

    /// The shim's entry points, loading the library (and PCL with it) on the first call; a library
    /// that cannot be loaded is an I/O error naming it, on this call and every later one.
    static func entryPoints() throws -> cg_shim_entry_points {
        try loaded.get()
    }

    // Swift runs a static's initializer once, thread-safely, on first access.
    private static let loaded: Result<cg_shim_entry_points, CloudError> = {
        guard let library = dlopen(libraryName, RTLD_NOW | RTLD_LOCAL) else {
            // dlerror names only the file; the folders are what someone fixing it needs.
            let reason = loaderError()
            return .failure(
                .io(
                    "\(libraryName) cannot be loaded from \(installedDirectory) (Tools/install puts it there)"
                        + " or, in a build, the checkout's CShims/build (Tools/bootstrap builds it): \(reason)"))
        }
        guard let table = dlsym(library, CG_SHIM_TABLE_SYMBOL) else {
            return .failure(
                .io("\(libraryName) has no entry-point table (built from another checkout? run Tools/bootstrap): \(loaderError())"))
        }
        return .success(table.load(as: cg_shim_entry_points.self))
    }()

    /// `$ORIGIN/../lib/cloudgen` as the loader expands it: beside the executable's real path.
    private static var installedDirectory: String {
        guard let executable = realpath("/proc/self/exe", nil) else { return "$ORIGIN/../lib/cloudgen" }
        defer { free(executable) }
        let path = String(cString: executable)
        let bin = path[..<(path.lastIndex(of: "/") ?? path.endIndex)]
        let prefix = bin[..<(bin.lastIndex(of: "/") ?? bin.startIndex)]
        return "\(prefix)/lib/cloudgen"
    }

    private static func loaderError() -> String {
        dlerror().map { String(cString: $0) } ?? "no reason given"
    }
}
