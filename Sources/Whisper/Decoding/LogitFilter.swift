/// Whisper's suppression rules, as CTranslate2 applies them for faster-whisper: the tokens of
/// `suppress_ids` (symbols, the special tokens) are never produced, and at the first step
/// neither are those of `suppress_ids_begin` (a blank, end of text).
struct LogitFilter: Sendable {
    let suppressed: [Int]
    let suppressedAtBegin: [Int]

    /// Applies the rules for generation step `step` (0 is the first generated token).
    func apply(_ logits: UnsafeMutablePointer<Float>, step: Int) {
        for id in suppressed { logits[id] = -.infinity }
        if step == 0 {
            for id in suppressedAtBegin { logits[id] = -.infinity }
        }
    }
}
