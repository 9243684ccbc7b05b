// GGUF files name their tensors' element types with TensorFormats' `GGMLType`.
@_exported import TensorFormats
