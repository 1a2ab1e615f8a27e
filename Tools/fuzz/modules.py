#!/usr/bin/env python3
"""The modules a fuzz target is built from, read from the package itself.

Usage: modules.py PACKAGE_JSON SOURCE.swift...

PACKAGE_JSON is `swift package dump-package`'s output. The roots are the package's modules that
the given Swift files import (`import X`, `@testable import X`); the answer is every package
module they depend on, dependencies first, one line each: NAME, then the linker flags
Package.swift gives it. An import that names no module of the package and no system module
(Glibc, Foundation) is an error (exit 2), so a target cannot silently fuzz nothing.
"""
import json
import re
import sys

# Modules that come with the toolchain or the system, not from Package.swift.
SYSTEM_MODULES = {"Glibc", "Foundation", "FoundationEssentials", "Dispatch", "Swift", "XCTest"}
IMPORT = re.compile(r"^\s*(?:@testable\s+)?import\s+(?:(?:struct|class|enum|func|protocol)\s+)?(\w+)", re.M)


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: modules.py PACKAGE_JSON SOURCE.swift...")
    with open(sys.argv[1]) as handle:
        package = json.load(handle)
    targets = {t["name"]: t for t in package["targets"]}
    roots = []
    for source in sys.argv[2:]:
        with open(source) as handle:
            for name in IMPORT.findall(handle.read()):
                if name in SYSTEM_MODULES:
                    continue
                if name not in targets:
                    print(f"fuzz: {source} imports {name}, which is no module of Package.swift", file=sys.stderr)
                    sys.exit(2)
                roots.append(name)

    order = []

    def visit(name):
        if name in order:
            return
        for dependency in targets[name].get("dependencies", []):
            # Local targets only ("byName" or "target"); products of other packages are not fuzzed.
            for kind in ("byName", "target"):
                if kind in dependency and dependency[kind][0] in targets:
                    visit(dependency[kind][0])
        order.append(name)

    for root in roots:
        visit(root)
    for name in order:
        libraries = [s["kind"]["linkedLibrary"]["_0"] for s in targets[name].get("settings", [])
                     if s.get("tool") == "linker" and "linkedLibrary" in s.get("kind", {})]
        print(" ".join([name] + ["-l" + library for library in libraries]))


if __name__ == "__main__":
    main()
