// The kernel-set interface types (`KernelSetID`, …) are part of this module's API.
@_exported import KernelsCore
