// Kernels module.
