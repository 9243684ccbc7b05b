import ChatStore
import OpenAIServer
import Server

/// What `sotto serve --help` says of the limits on one user, beside the options that set some.
extension ServeCommand {
    static let limitsUsage = """

        Limits on one user (each refused with a JSON error saying which and what to do):
          requests            --rate-limit a second (429 rate_limited, with Retry-After)
          WebSockets          --max-sockets-per-user at once (429 too_many_sockets)
          assistant answers   \(ChatServer.Configuration().maxAssistantTurnsPerUser) being written at once, across conversations (429 too_many_turns,
                              with Retry-After); model jobs: 4 unfinished; completions: 4 at once
                              for the whole server (429)
          assistant storage   \(StorageQuota.assistantConversations) conversations, \(StorageQuota.assistantMessagesPerConversation) messages and \(StorageQuota.assistantDividersPerConversation) settings
                              changes per conversation, \(StorageQuota.waitingImagesPerUser) images (\(StorageQuota.waitingImageBytesPerUser >> 20) MB) waiting to be
                              sent, \(StorageQuota.assistantBytesPerUser >> 20) MB in all (409 quota_exceeded)
          channels            \(StorageQuota.channelsCreatedPerUser) created, \(ChatStore.maxMembers) members each (409 quota_exceeded)
          messages            4,000 characters and 16 KB each; an image 8 MB
          searches            \(SearchRanking.maxTerms) terms of at most \(SearchRanking.maxTermLength) characters; one-letter terms
                              match whole words; the newest \(ChatStore.searchCandidates) matches are ranked
          JSON schemas        (response_format, tools) \(JSONSchemaLimits.nestingDepth) levels deep and \(JSONSchemaLimits.expandedStates)
                              automaton states once expanded (400)
          tokens              'sotto token' lives 30 days unless --expires-in says otherwise;
                              'sotto token revoke' and 'sotto user disable' take effect within
                              a second
        """
}
