/// How much a person is waiting for a request: the engine's scheduler serves higher first.
public enum GenerationPriority: Int, Sendable, Comparable, CaseIterable, CustomStringConvertible {
    /// Nobody is waiting: conversation titles, smart replies, prewarms.
    case background = 0
    /// Offered, not awaited: reply suggestions.
    case suggestion = 1
    /// A person is waiting for it: an assistant answer, an API call, a writing tool, a translation.
    case interactive = 2

    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }

    public var description: String {
        switch self {
        case .background: "background"
        case .suggestion: "suggestion"
        case .interactive: "interactive"
        }
    }

    /// The priority named `name` (`interactive`, `suggestion`, `background`), or nil.
    public init?(name: String) {
        guard let match = Self.allCases.first(where: { $0.description == name }) else { return nil }
        self = match
    }
}

/// Which requests the engine runs and how much of their prompts it reads in each step: a state
/// machine without model, threads or time, so its rules are tested alone.
///
/// - **Priority.** Waiting requests start highest priority first; one slot is kept for
///   interactive requests (lower ones never take the last free slot), and interactive prompts
///   are read before lower ones'.
/// - **Background last.** A background request does not start while a request of higher
///   priority runs or waits, and one that runs sits out the steps while a request of higher
///   priority runs (each for at most `backgroundPatience` steps, so it is never starved).
/// - **Fairness.** Among equals, the user with the fewest requests running goes first, then the
///   one served least, then the oldest request.
/// - **Staleness.** A request may carry a staleness key (a suggestion's channel and reader): a
///   newer request with the same key, or ``markStale(key:)``, drops the older ones that have not
///   started and stops those that have.
/// - **Batching.** Every request that is generating moves on one token per step, together; what
///   is left of the step's rows reads prompts, at most `prefillWhileDecoding` rows while others
///   are generating (so a long prompt does not freeze their streams), `prefillAlone` otherwise;
///   lower prompts read at most `prefillWhileDecoding` rows in all a step even alone (a person who
///   arrives waits for a short step), and while an interactive request runs at most
///   `prefillBesideInteractive`, none in a step that reads the interactive prompt.
/// - **Shared prefixes.** A prompt that shares its start with a prompt read earlier waits while
///   that one is read, then takes the shared part from it (the engine copies the KV rows), so
///   instructions every request shares are evaluated once.
struct BatchScheduler {
    /// What the scheduler knows of a request.
    struct Ticket: Equatable {
        let id: Int
        var priority: GenerationPriority = .interactive
        var user = ""
        var stalenessKey: String?
        var prompt: [Int]
        var readsPromptOnly = false
        /// The ``admit()`` round it was submitted in, and the steps it has sat out while running
        /// (background requests: see `backgroundPatience`).
        var arrival = 0
        var satOut = 0
    }

    /// What the engine must do.
    enum Action: Equatable {
        /// Start `id` on `slot`, whose cache holds `sharedPrefix` of its prompt (a new slot:
        /// create its cache).
        case start(id: Int, slot: Int, sharedPrefix: Int, isNewSlot: Bool)
        /// End `id` without running it: it went stale, or its prompt is already read (a prewarm).
        case drop(id: Int, reason: DropReason)
        /// Stop `id`, which is running: it went stale.
        case stop(id: Int)
    }

    enum DropReason: Equatable {
        case stale
        case alreadyRead
    }

    struct Limits: Equatable {
        /// KV slots.
        var slots: Int
        /// Rows of one forward step.
        var rowBudget = 128
        /// Prompt rows per step of an interactive request when nothing else is generating
        /// (lower ones read at most `prefillWhileDecoding` in all a step even alone: past eight rows a
        /// step costs the same per row, 9–11 ms on the 1.5B model on two cores, and a person
        /// who arrives waits for a step of 32 rows, not of 128).
        var prefillAlone = 128
        /// Prompt rows per step while others are generating.
        var prefillWhileDecoding = 32
        /// Prompt rows per step for requests of lower priority while an interactive request runs
        /// (none in a step that reads the interactive one's prompt): a step costs about 10 ms a
        /// row past eight rows on two cores (1.5B, avx2), and the person waits for every step.
        var prefillBesideInteractive = 8
        /// Draft tokens a sequence may have verified in a step, by how many are generating
        /// (index 0: one alone); none past the end (speculation steps aside as the batch fills).
        var draftLimits = [16, 4]
        /// Steps a background request waits at most to start while requests of higher priority
        /// run or wait, and sits out at most once running while they run (it starts and goes on
        /// at once when none do): its prompt and tokens would lengthen every step of theirs.
        var backgroundPatience = 200
    }

    /// A running request's state as the planner reads it.
    struct Reading: Equatable {
        let id: Int
        /// Tokens of its prompt in its cache.
        var position: Int
    }

    let limits: Limits
    private(set) var waiting: [Ticket] = []
    private(set) var running: [Int: (ticket: Ticket, slot: Int, order: Int)] = [:]
    private(set) var table: SlotTable
    private var served: [String: Int] = [:]
    private var admissions = 0
    /// Calls of ``admit()`` so far.
    private var rounds = 0
    /// Running background requests that take no rows in the next step.
    private(set) var paused: Set<Int> = []

    init(limits: Limits) {
        self.limits = limits
        table = SlotTable(capacity: limits.slots)
    }

    var runningCount: Int { running.count }

    // MARK: Events

    /// A new request; returns what its staleness key makes of older ones.
    mutating func submit(_ ticket: Ticket) -> [Action] {
        let actions = ticket.stalenessKey.map { markStale(key: $0) } ?? []
        var ticket = ticket
        ticket.arrival = rounds
        waiting.append(ticket)
        return actions
    }

    /// Every request with `key` so far is no longer wanted.
    mutating func markStale(key: String) -> [Action] {
        var actions: [Action] = []
        waiting.removeAll { ticket in
            guard ticket.stalenessKey == key else { return false }
            actions.append(.drop(id: ticket.id, reason: .stale))
            return true
        }
        for (id, entry) in running.sorted(by: { $0.value.order < $1.value.order })
        where entry.ticket.stalenessKey == key {
            actions.append(.stop(id: id))
        }
        return actions
    }

    /// A waiting request its caller no longer wants (cancelled before it started).
    mutating func withdraw(_ id: Int) {
        waiting.removeAll { $0.id == id }
    }

    /// A running request is done; its slot's cache holds `cachedTokens`.
    mutating func finish(_ id: Int, cachedTokens: [Int]) {
        guard let entry = running.removeValue(forKey: id) else { return }
        paused.remove(id)
        table.release(entry.slot, cachedTokens: cachedTokens)
    }

    // MARK: Admission

    /// Starts what can start, most urgent and least served first (chosen one at a time: each
    /// start changes who is least served).
    mutating func admit() -> [Action] {
        rounds += 1
        var actions: [Action] = []
        var candidates = waiting
        var left: [Ticket] = []
        while let best = candidates.indices.min(by: { precedes(candidates[$0], candidates[$1]) }) {
            let ticket = candidates.remove(at: best)
            if ticket.readsPromptOnly, table.holds(ticket.prompt) {
                actions.append(.drop(id: ticket.id, reason: .alreadyRead))
                continue
            }
            // Background work waits while anything a person sees is running or waiting (higher
            // priorities come first, so those waiting are in `left` by now).
            if ticket.priority == .background, rounds - ticket.arrival <= limits.backgroundPatience,
                running.values.contains(where: { $0.ticket.priority > .background })
                    || left.contains(where: { $0.priority > .background })
            {
                left.append(ticket)
                continue
            }
            // The last free slot is kept for a person waiting.
            let free = limits.slots - running.count - (ticket.priority < .interactive && limits.slots > 1 ? 1 : 0)
            guard free > 0, let lease = table.lend(for: ticket.prompt) else {
                left.append(ticket)
                continue
            }
            admissions += 1
            running[ticket.id] = (ticket, lease.slot, admissions)
            served[ticket.user, default: 0] += 1
            actions.append(
                .start(id: ticket.id, slot: lease.slot, sharedPrefix: lease.sharedPrefix, isNewSlot: lease.isNew))
        }
        waiting = left.sorted { $0.id < $1.id }
        pauseBackground()
        return actions
    }

    /// Which running background requests sit out the next step: all of them while a request of
    /// higher priority runs, each for at most `backgroundPatience` steps in all. They keep their
    /// slots and state and go on where they were.
    private mutating func pauseBackground() {
        paused = []
        guard running.values.contains(where: { $0.ticket.priority > .background }) else { return }
        for (id, entry) in running where entry.ticket.priority == .background {
            guard entry.ticket.satOut < limits.backgroundPatience else { continue }
            running[id]!.ticket.satOut += 1
            paused.insert(id)
        }
    }

    /// Whether `a` starts before `b`.
    private func precedes(_ a: Ticket, _ b: Ticket) -> Bool {
        if a.priority != b.priority { return a.priority > b.priority }
        let runningA = runningCount(of: a.user), runningB = runningCount(of: b.user)
        if runningA != runningB { return runningA < runningB }
        let servedA = served[a.user, default: 0], servedB = served[b.user, default: 0]
        if servedA != servedB { return servedA < servedB }
        return a.id < b.id
    }

    private func runningCount(of user: String) -> Int {
        running.values.reduce(0) { $0 + ($1.ticket.user == user ? 1 : 0) }
    }

    // MARK: Steps

    /// The prompt rows each reading request gets in the next step, given the rows the
    /// generating requests take (`decodeRows`, `decoding` of them).
    func prefillRows(reading: [Reading], decodeRows: Int, decoding: Int) -> [Int: Int] {
        var budget = min(
            limits.rowBudget - decodeRows, decoding > 0 ? limits.prefillWhileDecoding : limits.prefillAlone)
        var rows: [Int: Int] = [:]
        let ordered = reading.filter { running[$0.id] != nil }.sorted { a, b in
            let ta = running[a.id]!, tb = running[b.id]!
            if ta.ticket.priority != tb.ticket.priority { return ta.ticket.priority > tb.ticket.priority }
            return ta.order < tb.order
        }
        let personWaits = running.values.contains { $0.ticket.priority == .interactive }
        var lowerBudget = personWaits ? limits.prefillBesideInteractive : limits.prefillWhileDecoding
        for (index, reader) in ordered.enumerated() where budget > 0 {
            let ticket = running[reader.id]!.ticket
            let prompt = ticket.prompt
            let isLower = ticket.priority < .interactive
            // Wait while an earlier reader has yet to read the part of its prompt this one shares.
            let waits = ordered[..<index].contains { earlier in
                let shared = min(SlotTable.sharedPrefix(running[earlier.id]!.ticket.prompt, prompt), prompt.count - 1)
                return shared > reader.position && earlier.position < shared
            }
            if waits { continue }
            let count = min(prompt.count - reader.position, budget, isLower ? lowerBudget : Int.max)
            guard count > 0 else { continue }
            rows[reader.id] = count
            budget -= count
            if isLower {
                lowerBudget -= count
            } else {
                lowerBudget = 0
            }
        }
        return rows
    }

    /// How many draft tokens a generating request may have verified while `decoding` requests
    /// generate.
    func draftLimit(decoding: Int) -> Int {
        decoding >= 1 && decoding <= limits.draftLimits.count ? limits.draftLimits[decoding - 1] : 0
    }
}
