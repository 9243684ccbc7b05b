import Kernels
import KernelsCore
import TensorFormats
import TestSupport
import Testing

@Suite struct LayoutTests {
    @Test(.onTestThreads) func blockSizesMatchGGML() {
        #expect(MemoryLayout<BlockQ4_0>.size == 18)
        #expect(MemoryLayout<BlockQ4_1>.size == 20)
        #expect(MemoryLayout<BlockQ5_0>.size == 22)
        #expect(MemoryLayout<BlockQ5_1>.size == 24)
        #expect(MemoryLayout<BlockQ8_0>.size == 34)
        #expect(MemoryLayout<BlockQ8_1>.size == 36)
        #expect(MemoryLayout<BlockQ4_K>.size == 144)
        #expect(MemoryLayout<BlockQ5_K>.size == 176)
        #expect(MemoryLayout<BlockQ6_K>.size == 210)
        #expect(MemoryLayout<BlockQ8_K>.size == 292)
    }

    @Test(.onTestThreads) func blockSizesMatchTypeTable() {
        #expect(MemoryLayout<BlockQ4_0>.size == GGMLType.q4_0.bytesPerBlock)
        #expect(MemoryLayout<BlockQ4_1>.size == GGMLType.q4_1.bytesPerBlock)
        #expect(MemoryLayout<BlockQ5_0>.size == GGMLType.q5_0.bytesPerBlock)
        #expect(MemoryLayout<BlockQ5_1>.size == GGMLType.q5_1.bytesPerBlock)
        #expect(MemoryLayout<BlockQ8_0>.size == GGMLType.q8_0.bytesPerBlock)
        #expect(MemoryLayout<BlockQ8_1>.size == GGMLType.q8_1.bytesPerBlock)
        #expect(MemoryLayout<BlockQ4_K>.size == GGMLType.q4_K.bytesPerBlock)
        #expect(MemoryLayout<BlockQ5_K>.size == GGMLType.q5_K.bytesPerBlock)
        #expect(MemoryLayout<BlockQ6_K>.size == GGMLType.q6_K.bytesPerBlock)
        #expect(MemoryLayout<BlockQ8_K>.size == GGMLType.q8_K.bytesPerBlock)
    }

    @Test(.onTestThreads) func fieldOffsets() {
        #expect(MemoryLayout<BlockQ5_0>.offset(of: \.qs) == Layout.q5_0Qs)
        #expect(MemoryLayout<BlockQ5_1>.offset(of: \.qh) == Layout.q5_1Qh)
        #expect(MemoryLayout<BlockQ5_1>.offset(of: \.qs) == Layout.q5_1Qs)
        #expect(MemoryLayout<BlockQ4_K>.offset(of: \.qs) == Layout.q4_KQs)
        #expect(MemoryLayout<BlockQ5_K>.offset(of: \.qh) == Layout.q5_KQh)
        #expect(MemoryLayout<BlockQ5_K>.offset(of: \.qs) == Layout.q5_KQs)
        #expect(MemoryLayout<BlockQ6_K>.offset(of: \.qh) == Layout.q6_KQh)
        #expect(MemoryLayout<BlockQ6_K>.offset(of: \.scales) == Layout.q6_KScales)
        #expect(MemoryLayout<BlockQ6_K>.offset(of: \.d) == Layout.q6_KD)
        #expect(MemoryLayout<BlockQ8_K>.offset(of: \.bsums) == 260)
    }
}
