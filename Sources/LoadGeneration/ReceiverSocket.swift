import CLibUV

/// One user's WebSocket: connects and upgrades, then reads the server's frames and tells its
/// loop what each event means for the counts (delivered, out of order, twice).
///
/// Not thread-safe: lives on its loop's thread, which holds the only strong reference.
final class ReceiverSocket {
    private enum State {
        case idle, connecting, upgrading, open, closed
    }

    unowned let owner: ReceiverLoop
    /// Index into the plan's users.
    let user: Int
    private var tcp: UnsafeMutablePointer<uv_tcp_t>?
    private var state = State.idle
    /// Whether this socket's connect attempt has not ended yet (its hello, or a failure).
    private var attempting = false
    /// The upgrade answer, until its head is whole.
    private var head: [UInt8] = []
    /// A frame cut by the end of a read, until the rest arrives.
    private var pending: [UInt8] = []
    private var lastSeq: Int64?
    /// Longer than any event; a bound, so a broken length cannot make a socket buffer without end.
    private static let maximumFrameBytes = 16 << 20
    private static let switchingStatus = Array(" 101 ".utf8)

    init(owner: ReceiverLoop, user: Int) {
        self.owner = owner
        self.user = user
    }

    private static func of(_ handle: UnsafeMutableRawPointer?) -> ReceiverSocket {
        Unmanaged<ReceiverSocket>.fromOpaque(handle!).takeUnretainedValue()
    }

    func connect() {
        precondition(state == .idle, "a receiver connects once")
        attempting = true
        state = .connecting
        let opened = TCPClient.connect(
            on: owner.thread.loop, to: owner.plan.address, owner: Unmanaged.passUnretained(self).toOpaque()
        ) { handle, status in ReceiverSocket.of(handle!.pointee.data).connected(status) }
        switch opened {
        case .success(let tcp): self.tcp = tcp
        case .failure(let error):
            state = .closed
            endAttempt(connected: false, failure: error.description)
        }
    }

    private func connected(_ status: Int32) {
        guard status == 0, let tcp else {
            close()
            endAttempt(connected: false, failure: "connect: \(uvError(status))")
            return
        }
        let token = owner.plan.users[user].token
        let key = owner.random.webSocketKey()
        state = .upgrading
        TCPClient.write(upgradeRequest(target: "/api/connect?token=\(token)&suggestions=off", key: key), to: tcp)
        let reading = TCPClient.startReading(tcp) { stream, count, buffer in
            let socket = ReceiverSocket.of(stream!.pointee.data)
            if count < 0 {
                socket.readEnded(Int32(count))
            } else if count > 0 {
                socket.received(UnsafeRawBufferPointer(start: buffer!.pointee.base, count: count))
            }
        }
        if reading != 0 { readEnded(reading) }
    }

    private func endAttempt(connected: Bool, failure: String? = nil) {
        guard attempting else { return }
        attempting = false
        owner.attemptEnded(connected: connected, failure: failure)
    }

    private func readEnded(_ code: Int32) {
        let wasOpen = state == .open
        close()
        if wasOpen { owner.counts.dropped += 1 }
        endAttempt(
            connected: false,
            failure: wasOpen
                ? "the server closed a socket before its hello"
                : "the server ended the connection before answering the upgrade (\(uvError(code)))")
    }

    /// Closes our side (the server's drops come through `readEnded`). Leaves `pending` alone: a
    /// frame being read from it may be the reason.
    private func close() {
        guard state != .closed else { return }
        state = .closed
        if let tcp { TCPClient.close(tcp) }
        tcp = nil
    }

    // MARK: Reading

    private func received(_ bytes: UnsafeRawBufferPointer) {
        // The frames of one read arrived together: one clock reading serves them all.
        let now = monotonicNanoseconds()
        switch state {
        case .upgrading:
            head.append(contentsOf: bytes)
            guard let blankLine = head.withUnsafeBytes({ firstIndex(of: endOfHTTPHead, in: $0) }) else {
                if head.count > 16 * 1024 {
                    owner.counts.malformed += 1
                    close()
                    endAttempt(connected: false, failure: "the upgrade answer's head never ended")
                }
                return
            }
            // As the Python client read it: a status line saying 101 within its first bytes.
            let switching = head.withUnsafeBytes {
                firstIndex(of: Self.switchingStatus, in: UnsafeRawBufferPointer(rebasing: $0.prefix(20))) != nil
            }
            guard switching else {
                owner.counts.refused += 1
                let status = String(decoding: head.prefix { $0 != 13 }, as: UTF8.self)
                close()
                endAttempt(connected: false, failure: "upgrade refused: \(status)")
                return
            }
            state = .open
            pending = Array(head[(blankLine + endOfHTTPHead.count)...])
            head = []
            readPending(now: now)
        case .open:
            if pending.isEmpty {
                let used = readFrames(bytes, now: now)
                if state == .open, used < bytes.count {
                    pending.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[used...]))
                }
            } else {
                pending.append(contentsOf: bytes)
                readPending(now: now)
            }
        case .idle, .connecting, .closed:
            break
        }
    }

    private func readPending(now: Int64) {
        let used = pending.withUnsafeBytes { readFrames($0, now: now) }
        if state == .open { pending.removeFirst(used) } else { pending = [] }
    }

    /// Handles every whole frame at the start of `bytes`; returns how many bytes they took (the
    /// rest is a frame the read cut, to finish with the next).
    private func readFrames(_ bytes: UnsafeRawBufferPointer, now: Int64) -> Int {
        var offset = 0
        while state == .open, bytes.count - offset >= 2 {
            let first = bytes[offset]
            let second = bytes[offset + 1]
            guard second & 0x80 == 0 else {
                protocolError()  // a server never masks (RFC 6455 §5.1)
                break
            }
            var length = Int(second & 0x7F)
            var start = offset + 2
            if length == 126 {
                guard bytes.count - offset >= 4 else { break }
                length = Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
                start = offset + 4
            } else if length == 127 {
                guard bytes.count - offset >= 10 else { break }
                var value: UInt64 = 0
                for position in offset + 2..<offset + 10 { value = value << 8 | UInt64(bytes[position]) }
                guard value <= UInt64(Self.maximumFrameBytes) else {
                    protocolError()
                    break
                }
                length = Int(value)
                start = offset + 10
            }
            guard bytes.count - start >= length else { break }
            let payload = UnsafeRawBufferPointer(rebasing: bytes[start..<start + length])
            offset = start + length
            switch first & 0x0F {
            case 0x1: readEvent(payload, now: now)
            case 0x8: owner.counts.closed += 1
            case 0x9: pong(payload)
            default: break  // pongs; binary and continuation frames the server does not send
            }
        }
        return offset
    }

    private func protocolError() {
        owner.counts.malformed += 1
        close()
        endAttempt(connected: false, failure: "a frame no server sends")
    }

    private func readEvent(_ payload: UnsafeRawBufferPointer, now: Int64) {
        guard let fields = EventScanner.scan(payload), let type = fields.type else {
            owner.counts.malformed += 1
            return
        }
        if EventScanner.equal(payload, type, "hello") {
            endAttempt(connected: true)
            return
        }
        if let seq = fields.seq {
            // One log for the server: a user's seqs rise with gaps (other channels' events); a
            // seq that does not rise is an event out of order or sent twice.
            if let lastSeq, seq <= lastSeq { owner.counts.disorder += 1 }
            lastSeq = seq
        }
        // Which post an event answers: a new message's and an edit's text name theirs (and when
        // they were sent); a reaction's names the message reacted to (each gets one); a
        // deletion's message id names the message deleted (each is deleted once).
        if EventScanner.equal(payload, type, "message.new") {
            guard let text = fields.text, let (number, sentAt) = Self.numberAndTime(payload, text, "message ") else {
                owner.counts.malformed += 1
                return
            }
            owner.delivered(number: number, .message, to: user, latencyNanoseconds: now - sentAt)
        } else if EventScanner.equal(payload, type, "message.updated") {
            guard let text = fields.text else {
                owner.counts.malformed += 1
                return
            }
            if let (number, sentAt) = Self.numberAndTime(payload, text, "edit ") {
                owner.delivered(number: number, .edit, to: user, latencyNanoseconds: now - sentAt)
            } else if let (number, _) = Self.numberAndTime(payload, text, "message ") {
                owner.delivered(number: number, .react, to: user, latencyNanoseconds: nil)
            } else {
                owner.counts.malformed += 1
            }
        } else if EventScanner.equal(payload, type, "message.deleted") {
            var index = (fields.id?.lowerBound ?? 0) + 5
            guard let id = fields.id, id.count > 5,
                EventScanner.equal(payload, id.lowerBound..<index, "load-"),
                let number = Self.decimal(payload, &index, end: id.upperBound), index == id.upperBound
            else {
                owner.counts.malformed += 1
                return
            }
            owner.delivered(number: Int(number), .delete, to: user, latencyNanoseconds: nil)
        }
    }

    /// N and T of a load text, `PREFIX N T`.
    private static func numberAndTime(_ bytes: UnsafeRawBufferPointer, _ text: Range<Int>, _ prefix: StaticString)
        -> (Int, Int64)?
    {
        let afterPrefix = text.lowerBound + prefix.utf8CodeUnitCount
        guard afterPrefix <= text.upperBound,
            EventScanner.equal(bytes, text.lowerBound..<afterPrefix, prefix)
        else { return nil }
        var index = afterPrefix
        guard let number = decimal(bytes, &index, end: text.upperBound), index < text.upperBound,
            bytes[index] == UInt8(ascii: " ")
        else { return nil }
        index += 1
        guard let time = decimal(bytes, &index, end: text.upperBound), index == text.upperBound else { return nil }
        return (Int(number), time)
    }

    private static func decimal(_ bytes: UnsafeRawBufferPointer, _ index: inout Int, end: Int) -> Int64? {
        let start = index
        var value: Int64 = 0
        while index < end, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9"), index - start < 18 {
            value = value * 10 + Int64(bytes[index] - UInt8(ascii: "0"))
            index += 1
        }
        return index > start ? value : nil
    }

    /// Answers a ping with its payload, masked as a client must (RFC 6455 §5.3).
    private func pong(_ payload: UnsafeRawBufferPointer) {
        guard let tcp else { return }
        guard payload.count <= 125 else {
            protocolError()  // a control frame's payload fits in 125 bytes
            return
        }
        let mask = withUnsafeBytes(of: UInt32(truncatingIfNeeded: owner.random.next())) { Array($0) }
        var frame: [UInt8] = [0x8A, 0x80 | UInt8(payload.count)] + mask
        for (offset, byte) in payload.enumerated() { frame.append(byte ^ mask[offset % 4]) }
        TCPClient.write(frame, to: tcp)
    }
}
