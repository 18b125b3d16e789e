// The standard-library headers the Loom runtime needs. Emitted C++ includes this list (as text)
// ahead of its namespace; the body files listed in MANIFEST are then pasted inside that namespace.
// Body files carry no #include of their own, so every header they use is named here.
#pragma once

#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <type_traits>
