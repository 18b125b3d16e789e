// The standard-library headers the Loam runtime needs. A generated module includes this list (as
// text) ahead of its namespace; the body files listed in MANIFEST are then pasted inside that
// namespace. Body files carry no #include of their own, so every header they use is named here.
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cctype>
#include <cmath>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <condition_variable>
#include <exception>
#include <expected>
#include <initializer_list>
#include <limits>
#include <memory>
#include <mutex>
#include <new>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

// x86-64: the SGEMM microkernel is compiled for AVX2+FMA with a target attribute and chosen at run
// time, so a module built without -mavx2 still runs the vector path on a machine that has it.
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#endif
