// The server's JSON shapes the web app reads (GET /api/openapi.json describes them), as JSDoc
// types for `tsc --checkJs`. Nothing here runs.

/**
 * @typedef {{ id: string, name: string, created_at?: string, updated_at?: string }} User
 * @typedef {{ cid: string, name: string, created_by?: string, created_at?: string, last_message_at?: string | null, public?: boolean, topic?: string }} Channel
 * @typedef {{ channel: Channel, member_count: number, joined: boolean }} ChannelListing
 * @typedef {{ user_id: string, last_read_message_id?: string | null, last_read_at?: string | null }} ReadState
 * @typedef {{ user: User, joined_at?: string, read: ReadState }} Member
 * @typedef {{ emoji: string, count: number, users: string[] }} Reaction
 * @typedef {{ text: string, edited_at: string }} MessageEdit the text a message had before an edit, and when it was edited
 * @typedef {object} AttachmentInfo A file of a message (POST …/attachments answers with it): its type is
 *   what its bytes show, never what the upload said.
 * @property {string} id
 * @property {string} name
 * @property {string} mime_type `image/png`, `text/plain`, … (`application/octet-stream` when unknown)
 * @property {number} size in bytes
 * @property {number | null} [width] an image's, in pixels
 * @property {number | null} [height]
 * @property {boolean} thumbnail whether GET /api/attachments/{id}/thumbnail has a small version
 * @typedef {{ id: string, cid: string, user_id: string, text: string, created_at: string, parent_id?: string | null,
 *   edited_at?: string, deleted_at?: string, reactions?: Reaction[], reply_count?: number, last_reply_at?: string,
 *   attachments?: AttachmentInfo[] }} Message
 *   reply_count, last_reply_at: on a thread's root (absent when nobody replied); attachments: absent without files
 * @typedef {{ channel: Channel, members: User[], unread_count: number, unread_mentions?: number, unread_threads?: number, last_message?: Message | null }} ChannelSummary
 *   unread_count: top-level messages; unread_threads: followed threads with unread replies
 * @typedef {{ channel: Channel, members: Member[] }} ChannelDetail
 * @typedef {{ parent_id: string, count: number }} ThreadUnread
 * @typedef {{ messages: Message[], has_more: boolean, unread_replies?: ThreadUnread[] }} MessagePage
 *   a channel's page holds its top-level messages; unread_replies: followed threads on it with unread replies
 * @typedef {{ parent: Message, messages: Message[], has_more: boolean, unread: number, following: boolean }} ThreadPage
 *   GET /api/messages/{id}/thread: the root and a page of replies, oldest first; unread: before this read
 * @typedef {{ id: string, title: string }} WritingToolInfo
 * @typedef {{ code: string, name: string }} Language
 *
 * @typedef {object} ModelState The model behind the AI features, or why there is none.
 * @property {boolean} available
 * @property {string | null} [name]
 * @property {boolean} fallback the features run on a fallback elsewhere: the local model is unavailable
 * @property {boolean} [pool] the features run on the local model and a pool of servers beside it
 * @property {string | null} [reason] `not_downloaded`, `machine_too_small`, `turned_off`, `no_model`
 * @property {string} message
 * @property {WritingToolInfo[]} tools
 * @property {Language[]} languages
 *
 * @typedef {object} SpeechState Whether the server turns speech into text (the composers' microphone).
 * @property {boolean} available
 * @property {string | null} [model]
 * @property {string} message why there is none and what to do ('' when there is one)
 *
 * @typedef {object} ImagesState Whether the server makes images (Image Playground), through the
 *   image server its administrator configured, and that server's model.
 * @property {boolean} available
 * @property {string | null} [model]
 * @property {string[] | null} [sizes] the sizes a request may ask for (`256x256`, …)
 *
 * @typedef {{ user: User, suggestions: boolean, model: ModelState, speech?: SpeechState, images?: ImagesState }} Me
 * @typedef {{ user: User, csrf_token: string, expires_at: number | null, admin: boolean }} Session
 *   A sign-in's answer (POST /api/session, GET /api/session, a used link): the CSRF token stays in memory.
 *   (`speech` is missing from a server older than dictation, `images` from one older than Image
 *   Playground)
 *
 * @typedef {'none' | 'pending' | 'ready' | 'failed' | 'unavailable'} SuggestionStatus
 * @typedef {object} SuggestionSnapshot GET …/suggestions, or a `suggestions.updated` event.
 * @property {string} cid
 * @property {SuggestionStatus} status
 * @property {string[]} [suggestions]
 * @property {string | null} [signature]
 * @property {string | null} [model]
 * @property {string | null} [parent_id] the thread's root, for a thread's chips (absent for the channel's)
 *
 * @typedef {'queued' | 'running' | 'done' | 'failed' | 'cancelled'} JobStatus
 * @typedef {object} Job A model job's snapshot (`job.updated` frames, GET /api/jobs/{id}).
 * @property {string} id
 * @property {string} [kind]
 * @property {JobStatus} status
 * @property {any} [result] the feature's result so far: `text`, `terms`, `event`/`ics`/`filename`, `model`
 * @property {string | null} [error]
 *
 * @typedef {object} DownloadProgress GET /api/model/download
 * @property {'idle' | 'downloading' | 'assembling' | 'installed' | 'failed'} status
 * @property {string} model
 * @property {number} bytes
 * @property {number | null} [fraction]
 * @property {string} message
 *
 * @typedef {{ channel_name: string, message: Message, highlights: Array<[number, number]> }} SearchHit
 */

/**
 * The assistant's shapes.
 *
 * @typedef {{ id: string, title: string, persona: string, instructions: string, temperature: number, language?: string | null }} Conversation
 * @typedef {object} ImageInfo An image of a conversation: waiting to be sent, or in a message.
 * @property {string} id
 * @property {string} [mime_type]
 * @property {number} [byte_count]
 * @property {string | null} [generated_by] the image server's model, on an image it made
 *   (absent on the user's own files)
 * @typedef {object} AssistantMessage
 * @property {string} id
 * @property {string} [conversation_id]
 * @property {'user' | 'assistant' | 'divider'} role
 * @property {string} text
 * @property {string | null} [html] the server's sanitized HTML (answers and dividers)
 * @property {number | null} [output_tokens]
 * @property {string | null} [model]
 * @property {boolean} [stopped]
 * @property {ImageInfo[]} [images]
 * @property {boolean | null} [summary]
 *
 * @typedef {{ used: number, size: number }} ContextUse
 * @typedef {'streaming' | 'done' | 'stopped' | 'failed'} TurnStatus
 * @typedef {object} Turn An answer being written (`assistant.updated` frames).
 * @property {string | null} id
 * @property {'answer' | 'continuation' | 'summary'} kind
 * @property {TurnStatus} [status]
 * @property {string} [html]
 * @property {number} [output_tokens]
 * @property {string | null} [error]
 * @property {string | null} [error_code]
 * @property {AssistantMessage | null} [message]
 *
 * @typedef {{ stream_responses: boolean, show_token_counts: boolean, appearance: string, response_language?: string }} AssistantSettings
 * @typedef {{ id: string, title: string, instructions: string }} Persona
 * @typedef {object} AssistantInfo GET /api/assistant
 * @property {AssistantSettings} settings
 * @property {ModelState} model
 * @property {boolean} [model_loading]
 * @property {Persona[]} personas
 * @property {Language[]} languages
 * @property {string | null} [last_conversation_id]
 * @property {number} [max_image_bytes]
 *
 * @typedef {{ conversation: Conversation, messages: AssistantMessage[], context?: ContextUse | null, answering?: boolean, pending_images?: ImageInfo[] }} ConversationDetail
 * @typedef {{ conversation_title: string, message: AssistantMessage & { conversation_id: string }, highlights: Array<[number, number]> }} AssistantHit
 */

/**
 * What arrives on /api/connect. Logged events carry `seq`; live frames (partial chips, jobs,
 * the assistant) and control frames (hello, resync, pong, error) do not.
 *
 * @typedef {{ type: 'hello', connection_id?: string, user_id?: string, last_seq: number }} HelloFrame
 * @typedef {{ type: 'resync', last_seq: number }} ResyncFrame
 * @typedef {{ type: 'pong' }} PongFrame
 * @typedef {{ type: 'error', error?: { status: number, code: string, message: string } }} ErrorFrame
 * @typedef {{ type: 'message.new', seq?: number, cid: string, message: Message }} MessageNewEvent
 * @typedef {{ type: 'message.updated' | 'message.deleted', seq?: number, cid: string, message: Message }} MessageChangedEvent
 * @typedef {{ type: 'member.added' | 'member.left', seq?: number, cid: string, user_id: string }} MemberEvent
 * @typedef {{ type: 'channel.updated', seq?: number, cid: string, channel: Channel }} ChannelUpdatedEvent
 * @typedef {{ type: 'message.read', seq?: number, cid: string, user_id: string, read?: ReadState }} MessageReadEvent
 * @typedef {{ type: 'typing.start' | 'typing.stop', seq?: number, cid: string, user_id: string }} TypingEvent
 * @typedef {{ type: 'suggestions.updated', seq?: number } & SuggestionSnapshot} SuggestionsEvent
 * @typedef {{ type: 'suggestions.partial', cid: string, signature: string, suggestions: string[], parent_id?: string | null }} SuggestionsPartialFrame
 * @typedef {{ type: 'thread.read', seq?: number, cid: string, user_id: string, parent_id: string }} ThreadReadEvent
 * @typedef {{ type: 'job.updated', job: Job }} JobFrame
 * @typedef {{ type: 'assistant.updated', conversation_id: string, turn: Turn, context?: ContextUse | null }} AssistantUpdatedFrame
 * @typedef {{ type: 'assistant.replies', conversation_id: string, message_id: string, replies: string[] }} AssistantRepliesFrame
 * @typedef {{ type: 'assistant.conversation', conversation: Conversation }} AssistantConversationFrame
 *
 * @typedef {MessageNewEvent | MessageChangedEvent | MemberEvent | ChannelUpdatedEvent | MessageReadEvent | ThreadReadEvent | TypingEvent | SuggestionsEvent | SuggestionsPartialFrame | JobFrame
 *   | AssistantUpdatedFrame | AssistantRepliesFrame | AssistantConversationFrame} ServerEvent
 * @typedef {ServerEvent | HelloFrame | ResyncFrame | PongFrame | ErrorFrame} Frame
 */

export {};
