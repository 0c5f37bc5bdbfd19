import Glibc

/// A shared library the binary does not link but loads when a feature first needs it
/// (`dlopen`), and its functions, looked up by name (`dlsym`): a run that does not use the
/// feature neither maps the library nor pays for its relocations at start-up. The one way
/// MeterIO loads libraries (libmicrohttpd for `--listen`, libmosquitto for `--mqtt`); a
/// library stays loaded for the life of the process.
struct RuntimeLibrary {
    /// Why the library or a function could not be had (`dlerror`'s wording, or the name missing).
    struct LoadFailure: Error {
        let reason: String
    }

    private let handle: UnsafeMutableRawPointer
    private let soname: String

    /// Loads `soname` (`libfoo.so.N`, the package's file) with every symbol bound now. A
    /// literal, kept in the binary as written (a `String` of up to 15 bytes would be packed
    /// into the code), where scripts/package checks for it.
    init(_ soname: StaticString) throws(LoadFailure) {
        let soname = soname.description
        guard let handle = dlopen(soname, RTLD_NOW | RTLD_LOCAL) else {
            throw LoadFailure(reason: dlerror().map { String(cString: $0) } ?? "dlopen failed")
        }
        self.handle = handle
        self.soname = soname
    }

    /// The function called `name`, untyped (a variadic one, called through a C helper).
    func function(_ name: String) throws(LoadFailure) -> UnsafeMutableRawPointer {
        guard let f = dlsym(handle, name) else { throw LoadFailure(reason: "\(soname) has no \(name)") }
        return f
    }

    /// The function called `name` as its C type (the shim's `__typeof__` typedef), which the
    /// place the result goes to can give instead of `as`.
    func function<F>(_ name: String, as _: F.Type = F.self) throws(LoadFailure) -> F {
        unsafeBitCast(try function(name), to: F.self)
    }
}
