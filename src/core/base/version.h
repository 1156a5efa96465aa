/* version.h - etinspect's version (semantic versioning).
 *
 * The one place the version is written.  The program (--version), the Lua
 * module (etinspect.version) and the man pages (make man) take it from
 * here; debian/changelog and the rockspec's name and version field cannot,
 * and tests/e2e/deb.t and tests/e2e/rockspec.t check that they agree
 * (docs/install.md "One version" says what to change for a release). */
#ifndef ET_VERSION_H
#define ET_VERSION_H

#define ETINSPECT_VERSION "0.1.0"

#endif
