import CLibUV

/// How a receiver loop's connects went.
struct ConnectOutcome: Sendable {
    var connected = 0
    var refused = 0
    var failed = 0
    /// The first failure's reason, for the error message.
    var firstFailure: String?

    mutating func add(_ other: ConnectOutcome) {
        connected += other.connected
        refused += other.refused
        failed += other.failed
        firstFailure = firstFailure ?? other.firstFailure
    }
}

/// What a receiver loop's sockets count as the events come.
struct ReceiverCounts: Sendable {
    /// Events whose seq did not rise over the one before on their socket.
    var disorder = 0
    /// (message, user) pairs seen again.
    var duplicates = 0
    /// Sockets the server closed after the upgrade.
    var dropped = 0
    /// Upgrades the server answered with something else than 101.
    var refused = 0
    /// Close frames.
    var closed = 0
    /// Frames or events no server sends: each one is a delivery that could not be counted.
    var malformed = 0
}

/// What a receiver loop counted, handed over at the end of the run.
struct ReceiverTally: Sendable {
    /// Unique (post, user) pairs.
    var delivered: Int
    /// Send-to-delivery milliseconds, one per unique delivery of a new message…
    var latencies: [Double]
    /// …and of an edit.
    var editLatencies: [Double]
    var counts: ReceiverCounts
    /// How late the 10 ms timer fired, in milliseconds, from sending to the end.
    var lags: [Double]
}

/// One receiver thread: a libuv loop holding its share of the WebSockets, the counts they make,
/// and a timer that measures the loop's own lag.
final class ReceiverLoop: @unchecked Sendable {
    // @unchecked Sendable: apart from `thread` (itself Sendable) and the immutable `plan`, every
    // property is used only on the loop's thread; the orchestrating thread calls only the methods
    // below, which `post` their work there and answer through a `Handoff`.

    let thread: LoopThread
    let plan: LoadPlan
    var random = FastRandom()
    private var sockets: [ReceiverSocket] = []
    /// At most this many connects in flight per loop, so the server's listen backlog is not overrun.
    private static let connectsInFlight = 200
    private var nextToConnect = 0
    private var inFlight = 0
    private var pacing = false
    private var outcome = ConnectOutcome()
    private var connectsDone: Handoff<ConnectOutcome>?

    /// ((number × kinds + kind) × user count + user), for the unique deliveries.
    private var seen: Set<UInt64>
    private var latencies: [Double]
    private var editLatencies: [Double] = []
    var counts = ReceiverCounts()

    private let lagTimer = UnsafeMutablePointer<uv_timer_t>.allocate(capacity: 1)
    private var lags: [Double] = []
    private var lastTick: Int64 = 0
    private static let lagInterval: Int64 = 10_000_000

    init(name: String, users: [Int], plan: LoadPlan) throws {
        thread = try LoopThread(name: name)
        self.plan = plan
        // Room for every delivery this share of users should get, so the run does not grow them.
        let mine = Set(users)
        let perMessage =
            plan.channels.reduce(0.0) { sum, channel in sum + Double(channel.members.count { mine.contains($0) }) }
            / Double(plan.channels.count)
        let expected = Int(perMessage * Double(plan.messageCount) * 1.1) + 16
        seen = Set(minimumCapacity: expected)
        latencies = []
        latencies.reserveCapacity(expected)
        lags.reserveCapacity((plan.seconds + Int(plan.grace) + 60) * 100)
        try check(uv_timer_init(thread.loop, lagTimer), "uv_timer_init")
        sockets = users.map { ReceiverSocket(owner: self, user: $0) }
        lagTimer.pointee.data = Unmanaged.passUnretained(self).toOpaque()
        thread.start()
    }

    deinit { lagTimer.deallocate() }

    // MARK: Connecting

    /// Connects every socket, at most `connectsInFlight` at a time; `done` gets the outcome once
    /// every attempt has ended.
    func connectAll(reporting done: Handoff<ConnectOutcome>) {
        thread.post { [self] in
            connectsDone = done
            connectMore()
            if sockets.isEmpty { done.put(outcome) }
        }
    }

    private func connectMore() {
        // A connect that fails at once ends its attempt inside this loop: no second loop then.
        guard !pacing else { return }
        pacing = true
        defer { pacing = false }
        while inFlight < Self.connectsInFlight, nextToConnect < sockets.count {
            inFlight += 1
            nextToConnect += 1
            sockets[nextToConnect - 1].connect()
        }
    }

    /// A socket's attempt ended: its hello came, or it failed.
    func attemptEnded(connected: Bool, failure: String?) {
        inFlight -= 1
        if connected {
            outcome.connected += 1
        } else {
            outcome.failed += 1
            if outcome.firstFailure == nil { outcome.firstFailure = failure }
        }
        connectMore()
        if outcome.connected + outcome.failed == sockets.count {
            outcome.refused = counts.refused
            connectsDone?.put(outcome)
        }
    }

    /// The outcome so far, for the message when the connects take too long.
    func connectProgress(into snapshot: Handoff<ConnectOutcome>) {
        thread.post { [self] in
            var progress = outcome
            progress.refused = counts.refused
            snapshot.put(progress)
        }
    }

    // MARK: Counting

    /// An event for post `number` (a reaction's and a deletion's: the message's) reached `user`.
    func delivered(number: Int, _ kind: Post.Kind, to user: Int, latencyNanoseconds: Int64?) {
        guard number >= 0, number < plan.messageCount else {
            counts.malformed += 1
            return
        }
        let key =
            (UInt64(number) &* UInt64(Post.Kind.allCases.count) &+ UInt64(kind.rawValue))
            &* UInt64(plan.users.count) &+ UInt64(user)
        if seen.insert(key).inserted {
            if let latencyNanoseconds {
                let milliseconds = Double(latencyNanoseconds) / 1e6
                if kind == .message { latencies.append(milliseconds) } else { editLatencies.append(milliseconds) }
            }
        } else {
            counts.duplicates += 1
        }
    }

    /// Starts the 10 ms timer whose lateness is the loop's lag.
    func startMeasuringLag() {
        thread.post { [self] in
            lastTick = monotonicNanoseconds()
            uv_timer_start(
                lagTimer,
                { timer in
                    Unmanaged<ReceiverLoop>.fromOpaque(timer!.pointee.data).takeUnretainedValue().tick()
                }, 10, 10)
        }
    }

    private func tick() {
        let now = monotonicNanoseconds()
        // libuv's clock counts whole milliseconds, so a tick can come a little under 10 ms after
        // the last: that is no lag.
        lags.append(Double(max(0, now - lastTick - Self.lagInterval)) / 1e6)
        lastTick = now
    }

    /// Hands the counts over; the sockets stay open (the process ends next).
    func collect(into tally: Handoff<ReceiverTally>) {
        thread.post { [self] in
            uv_timer_stop(lagTimer)
            tally.put(
                ReceiverTally(
                    delivered: seen.count, latencies: latencies, editLatencies: editLatencies, counts: counts,
                    lags: lags))
        }
    }
}
