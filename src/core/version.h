/* version.h - etinspect's version (semantic versioning). */
#ifndef ET_VERSION_H
#define ET_VERSION_H

#define ETINSPECT_VERSION "0.1.0"

#endif
