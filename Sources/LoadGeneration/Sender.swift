import CLibUV

/// One message to send: its number, and the channel and author drawn for it when it fell due.
struct Post {
    let number: Int
    /// Index into the plan's channels.
    let channel: Int
    /// Index into the plan's users.
    let author: Int
}

/// What the sender counted, handed over when every send was answered.
struct SendOutcome: Sendable {
    var sent = 0
    var failed = 0
    /// Deliveries the sent messages owe: each channel's member count, the author's included.
    var expected = 0
    /// Round trips of the POSTs that got an answer, in milliseconds.
    var roundTrips: [Double] = []
    /// When the first message fell due, and when the last answer came (monotonic nanoseconds).
    var startedAt: Int64 = 0
    var finishedAt: Int64 = 0
    /// Answers so far (all of them once handed over).
    var answered = 0
    /// The first failed send's reason, for the report.
    var firstFailure: String?
}

/// The sending thread: `rate × seconds` POSTs on schedule over kept-alive connections, message n
/// due at start + n / rate and sent on connection n % connections.
final class Sender: @unchecked Sendable {
    // @unchecked Sendable: apart from `thread` (itself Sendable) and the immutable `plan`, every
    // property is used only on the loop's thread; the orchestrating thread calls only the methods
    // below, which `post` their work there and answer through a `Handoff`.

    let thread: LoopThread
    let plan: LoadPlan
    private var connections: [PostConnection] = []
    private let timer = UnsafeMutablePointer<uv_timer_t>.allocate(capacity: 1)
    private var random = FastRandom()
    private var next = 0
    private var outcome = SendOutcome()
    private var finished: Handoff<SendOutcome>?

    init(plan: LoadPlan) throws {
        thread = try LoopThread(name: "sender")
        self.plan = plan
        outcome.roundTrips.reserveCapacity(plan.messageCount)
        try check(uv_timer_init(thread.loop, timer), "uv_timer_init")
        connections = (0..<plan.connections).map { _ in PostConnection(sender: self) }
        timer.pointee.data = Unmanaged.passUnretained(self).toOpaque()
        thread.start()
    }

    deinit { timer.deallocate() }

    /// Starts sending now; `finished` gets the outcome when every send is answered.
    func start(reporting finished: Handoff<SendOutcome>) {
        thread.post { [self] in
            self.finished = finished
            outcome.startedAt = monotonicNanoseconds()
            // Every millisecond: sends all that fell due since the last tick.
            uv_timer_start(
                timer, { timer in Unmanaged<Sender>.fromOpaque(timer!.pointee.data).takeUnretainedValue().tick() },
                0, 1)
        }
    }

    /// The counts so far, for the message when answers stop coming.
    func progress(into snapshot: Handoff<SendOutcome>) {
        thread.post { [self] in snapshot.put(outcome) }
    }

    private func tick() {
        let now = monotonicNanoseconds()
        while next < plan.messageCount {
            let due = outcome.startedAt + Int64(next) * 1_000_000_000 / Int64(plan.rate)
            guard due <= now else { break }
            let channel = random.below(plan.channels.count)
            let members = plan.channels[channel].members
            let post = Post(number: next, channel: channel, author: members[random.below(members.count)])
            connections[next % connections.count].enqueue(post)
            next += 1
        }
        if next == plan.messageCount { uv_timer_stop(timer) }
    }

    /// A POST was answered (`roundTrip` nil when no answer came at all).
    func answered(_ post: Post, ok: Bool, roundTrip: Int64?, failure: String) {
        outcome.answered += 1
        if let roundTrip { outcome.roundTrips.append(Double(roundTrip) / 1e6) }
        if ok {
            outcome.sent += 1
            outcome.expected += plan.channels[post.channel].members.count
        } else {
            outcome.failed += 1
            if outcome.firstFailure == nil { outcome.firstFailure = "message \(post.number): \(failure)" }
        }
        if outcome.answered == plan.messageCount {
            outcome.finishedAt = monotonicNanoseconds()
            finished?.put(outcome)
        }
    }
}
