// The CPU backend: every kernel of the operator set, single-threaded, from the families of
// cpu_*.inc.hpp (each kernel's name belongs to one family, so no family hides another's).
struct Cpu : CpuBoundary, CpuProducts, CpuWindows, CpuMovement, CpuResampling, CpuRecurrent, CpuReductions {};

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC pop_options
#endif
