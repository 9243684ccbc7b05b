// The 32-element block formats with 4- or 5-bit quants in the 8-row interleaved layout the AVX2
// and portable sets share (KernelsCore/Interleave.swift): where each part of a group block column
// lies, for kernels generic over the format.

/// One of Q4_0, Q4_1, Q5_0, Q5_1 in the 8-row layout.
public protocol NibbleFormat {
    /// Bytes of one group block column.
    static var bytes: Int { get }
    /// Offset of the 8 mins (f16), if the format has them.
    static var mins: Int? { get }
    /// Offset of the nibbles.
    static var quants: Int { get }
    /// Offset of the fifth-bit masks, if the format has them.
    static var fifthBits: Int? { get }
    /// What is subtracted from every quant (8 for Q4_0, 16 for Q5_0, 0 with mins).
    static var offset: Float { get }
}

/// The four nibble formats of the 8-row layout.
public enum EightRowNibbles {
    public enum Q4_0: NibbleFormat {
        @inlinable public static var bytes: Int { 144 }
        @inlinable public static var mins: Int? { nil }
        @inlinable public static var quants: Int { 16 }
        @inlinable public static var fifthBits: Int? { nil }
        @inlinable public static var offset: Float { 8 }
    }

    public enum Q4_1: NibbleFormat {
        @inlinable public static var bytes: Int { 160 }
        @inlinable public static var mins: Int? { 16 }
        @inlinable public static var quants: Int { 32 }
        @inlinable public static var fifthBits: Int? { nil }
        @inlinable public static var offset: Float { 0 }
    }

    public enum Q5_0: NibbleFormat {
        @inlinable public static var bytes: Int { 176 }
        @inlinable public static var mins: Int? { nil }
        @inlinable public static var quants: Int { 16 }
        @inlinable public static var fifthBits: Int? { 144 }
        @inlinable public static var offset: Float { 16 }
    }

    public enum Q5_1: NibbleFormat {
        @inlinable public static var bytes: Int { 192 }
        @inlinable public static var mins: Int? { 16 }
        @inlinable public static var quants: Int { 32 }
        @inlinable public static var fifthBits: Int? { 160 }
        @inlinable public static var offset: Float { 0 }
    }
}
