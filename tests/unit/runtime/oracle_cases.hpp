// The cases make_oracle_cases.py wrote: per case a namespace under loam_oracle::oracle holding its
// inputs and what onnxruntime computed (out0, out1, ...), each a shape and row-major values.
#pragma once

#include <cstdint>
#include <vector>

namespace loam_oracle {

template <class T>
struct OracleTensor {
  std::vector<std::int64_t> shape;
  std::vector<T> values;
};

namespace oracle {
#include "oracle_cases.inc"
}

}  // namespace loam_oracle
