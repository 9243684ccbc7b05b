// Scalar conversions of 16-bit floats (IEEE binary16 and bfloat16) stored little-endian.

@inlinable @inline(__always)
public func halfToFloat(_ bits: UInt16) -> Float { Float(Float16(bitPattern: bits)) }

@inlinable @inline(__always)
public func bf16ToFloat(_ bits: UInt16) -> Float { Float(bitPattern: UInt32(bits) << 16) }

@inlinable @inline(__always)
public func loadHalf(_ p: UnsafeRawPointer, _ byteOffset: Int = 0) -> Float {
    halfToFloat(p.loadUnaligned(fromByteOffset: byteOffset, as: UInt16.self))
}

@inlinable @inline(__always)
public func loadU8(_ p: UnsafeRawPointer, _ byteOffset: Int) -> Int32 {
    Int32(p.load(fromByteOffset: byteOffset, as: UInt8.self))
}
