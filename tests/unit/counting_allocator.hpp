// A replacement of the global operator new that counts the requests this thread makes while
// `counting_allocator::on` is set: what the memory plan's tests hold a steady forward to. Include it
// in one file of a program (it defines the replaceable allocation functions).
#pragma once

#include <cstddef>
#include <cstdlib>
#include <new>

namespace counting_allocator {
inline thread_local bool on = false;
inline thread_local std::size_t requests = 0;
}  // namespace counting_allocator

void* operator new(std::size_t n) {
  if (counting_allocator::on) ++counting_allocator::requests;
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
void* operator new(std::size_t n, std::align_val_t a) {
  if (counting_allocator::on) ++counting_allocator::requests;
  const std::size_t align = static_cast<std::size_t>(a);
  if (void* p = std::aligned_alloc(align, (n + align - 1) / align * align)) return p;
  throw std::bad_alloc();
}
// These operator new allocate with malloc, so free is their match; GCC, seeing free on what an
// operator new returned, warns of a mismatch it cannot see is none.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
#pragma GCC diagnostic pop
