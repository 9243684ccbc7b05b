@_extern(c, "expf") @usableFromInline func expf(_ x: Float) -> Float
