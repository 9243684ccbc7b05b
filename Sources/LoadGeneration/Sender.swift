import CLibUV

/// One request to send: its number, what it does, and the channel and user drawn for it when it
/// fell due.
struct Post {
    enum Kind: Int, CaseIterable {
        /// A new message, `load-<number>`.
        case message
        /// Its author edits message `target`: the text becomes `edit <number> <time>`.
        case edit
        /// A member reacts to message `target` (each message at most once, and never one that is
        /// edited, so the event's text names it).
        case react
        /// Its author deletes message `target` (once, with no edit of it in flight).
        case delete

        var name: String { ["message", "edit", "react", "delete"][rawValue] }
    }

    let number: Int
    var kind = Kind.message
    /// The message a change is to (`load-<target>`); the post's own number for a new one.
    var target: Int
    /// Index into the plan's channels.
    let channel: Int
    /// Index into the plan's users.
    let author: Int

    init(number: Int, kind: Kind = .message, target: Int? = nil, channel: Int, author: Int) {
        self.number = number
        self.kind = kind
        self.target = target ?? number
        self.channel = channel
        self.author = author
    }
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
    /// Requests answered with success, by kind (`Post.Kind.rawValue`).
    var done = [0, 0, 0, 0]
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
    /// Stored messages a change may go to: odd-numbered ones are edited (and at last perhaps
    /// deleted), even-numbered ones get one reaction; each with its channel and author.
    private var editable: [Int] = []
    private var reactable: [Int] = []
    private var sentTo: [Int: (channel: Int, author: Int)] = [:]
    /// Edits sent and not yet answered, by message: a deletion waits until there are none.
    private var editsInFlight: [Int: Int] = [:]

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
            let post = change(next) ?? newMessage(next)
            connections[next % connections.count].enqueue(post)
            next += 1
        }
        if next == plan.messageCount { uv_timer_stop(timer) }
    }

    private func newMessage(_ number: Int) -> Post {
        let channel = random.below(plan.channels.count)
        let members = plan.channels[channel].members
        return Post(number: number, channel: channel, author: members[random.below(members.count)])
    }

    /// Post `number` as a change (`plan.changes` of the posts, when there is a message for it):
    /// half edits, three tenths reactions, a fifth deletions.
    private func change(_ number: Int) -> Post? {
        guard plan.changes > 0, random.below(1000) < Int(plan.changes * 1000) else { return nil }
        let draw = random.below(10)
        if draw < 5 || draw >= 8 {
            guard !editable.isEmpty else { return nil }
            let index = random.below(editable.count)
            let target = editable[index]
            guard let (channel, author) = sentTo[target] else { return nil }
            if draw < 5 {
                editsInFlight[target, default: 0] += 1
                return Post(number: number, kind: .edit, target: target, channel: channel, author: author)
            }
            guard editsInFlight[target] == nil else { return nil }
            editable.swapAt(index, editable.count - 1)
            editable.removeLast()
            return Post(number: number, kind: .delete, target: target, channel: channel, author: author)
        }
        guard !reactable.isEmpty else { return nil }
        let index = random.below(reactable.count)
        let target = reactable[index]
        reactable.swapAt(index, reactable.count - 1)
        reactable.removeLast()
        guard let (channel, _) = sentTo[target] else { return nil }
        let members = plan.channels[channel].members
        return Post(
            number: number, kind: .react, target: target, channel: channel,
            author: members[random.below(members.count)])
    }

    /// A request was answered (`roundTrip` nil when no answer came at all).
    func answered(_ post: Post, ok: Bool, roundTrip: Int64?, failure: String) {
        outcome.answered += 1
        if let roundTrip { outcome.roundTrips.append(Double(roundTrip) / 1e6) }
        if post.kind == .edit {
            editsInFlight[post.target, default: 1] -= 1
            if editsInFlight[post.target] == 0 { editsInFlight[post.target] = nil }
        }
        if ok {
            outcome.sent += 1
            outcome.done[post.kind.rawValue] += 1
            // Each kind's event goes to every member of the channel, the sender included.
            outcome.expected += plan.channels[post.channel].members.count
            if post.kind == .message && plan.changes > 0 {
                sentTo[post.number] = (post.channel, post.author)
                if post.number % 2 == 1 { editable.append(post.number) } else { reactable.append(post.number) }
            }
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
