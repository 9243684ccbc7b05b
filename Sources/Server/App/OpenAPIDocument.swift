/// The OpenAPI 3 description of the JSON API, served at `/api/openapi.json`.
///
/// Written by hand; `OpenAPITests` checks that its paths and methods are exactly the routes
/// `ChatAPI` registers, so the two cannot drift apart.
enum OpenAPIDocument {
    static let json = #"""
        {
          "openapi": "3.0.3",
          "info": {
            "title": "Sotto chat API",
            "version": "0.1.0",
            "description": "Self-hosted messaging with on-device reply suggestions. Authenticate with 'Authorization: Bearer <token>' (mint one with 'sotto token <user-id>'). Errors are {\"error\": {\"status\", \"code\", \"message\"}}."
          },
          "servers": [{"url": "/"}],
          "security": [{"bearerAuth": []}],
          "paths": {
            "/api/health": {
              "get": {
                "operationId": "health",
                "summary": "Liveness and whether reply suggestions are available.",
                "security": [],
                "responses": {
                  "200": {"description": "Up.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Health"}}}}
                }
              }
            },
            "/api/openapi.json": {
              "get": {
                "operationId": "openapi",
                "summary": "This document.",
                "security": [],
                "responses": {"200": {"description": "The OpenAPI document.", "content": {"application/json": {"schema": {"type": "object"}}}}}
              }
            },
            "/api/me": {
              "get": {
                "operationId": "me",
                "summary": "The token's user (created with their id as name on first use).",
                "responses": {
                  "200": {"description": "The user.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Me"}}}},
                  "401": {"$ref": "#/components/responses/Unauthorized"}
                }
              }
            },
            "/api/users": {
              "post": {
                "operationId": "upsertUsers",
                "summary": "Create users, or rename yourself.",
                "requestBody": {
                  "required": true,
                  "content": {"application/json": {"schema": {
                    "type": "object", "required": ["users"],
                    "properties": {"users": {"type": "array", "minItems": 1, "maxItems": 100, "items": {"$ref": "#/components/schemas/UserUpdate"}}}
                  }}}
                },
                "responses": {
                  "200": {"description": "The stored users.", "content": {"application/json": {"schema": {
                    "type": "object", "required": ["users"],
                    "properties": {"users": {"type": "array", "items": {"$ref": "#/components/schemas/User"}}}
                  }}}},
                  "400": {"$ref": "#/components/responses/BadRequest"},
                  "401": {"$ref": "#/components/responses/Unauthorized"},
                  "403": {"$ref": "#/components/responses/Forbidden"},
                  "413": {"$ref": "#/components/responses/TooLarge"},
                  "415": {"$ref": "#/components/responses/UnsupportedMediaType"}
                }
              }
            },
            "/api/channels": {
              "get": {
                "operationId": "listChannels",
                "summary": "Your channels, most recently active first, with unread counts.",
                "responses": {
                  "200": {"description": "Channels.", "content": {"application/json": {"schema": {
                    "type": "object", "required": ["channels"],
                    "properties": {"channels": {"type": "array", "items": {"$ref": "#/components/schemas/ChannelSummary"}}}
                  }}}},
                  "401": {"$ref": "#/components/responses/Unauthorized"}
                }
              },
              "post": {
                "operationId": "getOrCreateChannel",
                "summary": "Get a channel, or create it with you and the given members.",
                "requestBody": {
                  "required": true,
                  "content": {"application/json": {"schema": {
                    "type": "object", "required": ["cid"],
                    "properties": {
                      "cid": {"$ref": "#/components/schemas/ChannelID"},
                      "name": {"allOf": [{"$ref": "#/components/schemas/Name"}], "nullable": true},
                      "members": {"type": "array", "maxItems": 100, "items": {"$ref": "#/components/schemas/UserID"}, "nullable": true}
                    }
                  }}}
                },
                "responses": {
                  "200": {"description": "The existing channel.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ChannelDetail"}}}},
                  "201": {"description": "The new channel.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ChannelDetail"}}}},
                  "400": {"$ref": "#/components/responses/BadRequest"},
                  "401": {"$ref": "#/components/responses/Unauthorized"},
                  "403": {"$ref": "#/components/responses/Forbidden"},
                  "404": {"$ref": "#/components/responses/NotFound"},
                  "413": {"$ref": "#/components/responses/TooLarge"},
                  "415": {"$ref": "#/components/responses/UnsupportedMediaType"}
                }
              }
            },
            "/api/channels/{cid}": {
              "parameters": [{"$ref": "#/components/parameters/cid"}],
              "get": {
                "operationId": "getChannel",
                "summary": "A channel with its members and their read state.",
                "responses": {
                  "200": {"description": "The channel.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ChannelDetail"}}}},
                  "400": {"$ref": "#/components/responses/BadRequest"},
                  "401": {"$ref": "#/components/responses/Unauthorized"},
                  "403": {"$ref": "#/components/responses/Forbidden"},
                  "404": {"$ref": "#/components/responses/NotFound"}
                }
              }
            },
            "/api/channels/{cid}/messages": {
              "parameters": [{"$ref": "#/components/parameters/cid"}],
              "get": {
                "operationId": "listMessages",
                "summary": "A page of history, oldest first, ending just before 'before' (default: the newest message).",
                "parameters": [
                  {"name": "before", "in": "query", "required": false, "schema": {"$ref": "#/components/schemas/MessageID"}},
                  {"name": "limit", "in": "query", "required": false, "schema": {"type": "integer", "minimum": 1, "maximum": 200, "default": 50}}
                ],
                "responses": {
                  "200": {"description": "Messages.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/MessagePage"}}}},
                  "400": {"$ref": "#/components/responses/BadRequest"},
                  "401": {"$ref": "#/components/responses/Unauthorized"},
                  "403": {"$ref": "#/components/responses/Forbidden"},
                  "404": {"$ref": "#/components/responses/NotFound"}
                }
              },
              "post": {
                "operationId": "sendMessage",
                "summary": "Send a message. A retry with the same client-chosen id returns the stored message (200) instead of a duplicate.",
                "requestBody": {
                  "required": true,
                  "content": {"application/json": {"schema": {
                    "type": "object", "required": ["text"],
                    "properties": {
                      "id": {"type": "string", "pattern": "^[A-Za-z0-9_.:-]{1,64}$", "nullable": true},
                      "text": {"type": "string", "minLength": 1, "maxLength": 4000, "pattern": "\\S"},
                      "parent_id": {"type": "string", "pattern": "^[A-Za-z0-9_.:-]{1,64}$", "nullable": true}
                    }
                  }}}
                },
                "responses": {
                  "200": {"description": "Already stored (idempotent retry).", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/SentMessage"}}}},
                  "201": {"description": "Stored.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/SentMessage"}}}},
                  "400": {"$ref": "#/components/responses/BadRequest"},
                  "401": {"$ref": "#/components/responses/Unauthorized"},
                  "403": {"$ref": "#/components/responses/Forbidden"},
                  "404": {"$ref": "#/components/responses/NotFound"},
                  "409": {"$ref": "#/components/responses/Conflict"},
                  "413": {"$ref": "#/components/responses/TooLarge"},
                  "415": {"$ref": "#/components/responses/UnsupportedMediaType"}
                }
              }
            },
            "/api/channels/{cid}/read": {
              "parameters": [{"$ref": "#/components/parameters/cid"}],
              "post": {
                "operationId": "markRead",
                "summary": "Mark the channel read up to a message (default: the newest). Never moves backwards.",
                "requestBody": {
                  "required": false,
                  "content": {"application/json": {"schema": {
                    "type": "object",
                    "properties": {"message_id": {"type": "string", "pattern": "^[A-Za-z0-9_.:-]{1,64}$", "nullable": true}}
                  }}}
                },
                "responses": {
                  "200": {"description": "Your read state.", "content": {"application/json": {"schema": {
                    "type": "object", "required": ["read"], "properties": {"read": {"$ref": "#/components/schemas/ReadState"}}
                  }}}},
                  "400": {"$ref": "#/components/responses/BadRequest"},
                  "401": {"$ref": "#/components/responses/Unauthorized"},
                  "403": {"$ref": "#/components/responses/Forbidden"},
                  "404": {"$ref": "#/components/responses/NotFound"},
                  "413": {"$ref": "#/components/responses/TooLarge"},
                  "415": {"$ref": "#/components/responses/UnsupportedMediaType"}
                }
              }
            },
            "/api/channels/{cid}/typing": {
              "parameters": [{"$ref": "#/components/parameters/cid"}],
              "post": {
                "operationId": "typing",
                "summary": "Tell the other members you started or stopped typing (typing.start / typing.stop events).",
                "requestBody": {
                  "required": true,
                  "content": {"application/json": {"schema": {
                    "type": "object", "required": ["typing"], "properties": {"typing": {"type": "boolean"}}
                  }}}
                },
                "responses": {
                  "200": {"description": "Sent.", "content": {"application/json": {"schema": {
                    "type": "object", "required": ["typing"], "properties": {"typing": {"type": "boolean"}}
                  }}}},
                  "400": {"$ref": "#/components/responses/BadRequest"},
                  "401": {"$ref": "#/components/responses/Unauthorized"},
                  "403": {"$ref": "#/components/responses/Forbidden"},
                  "404": {"$ref": "#/components/responses/NotFound"},
                  "413": {"$ref": "#/components/responses/TooLarge"},
                  "415": {"$ref": "#/components/responses/UnsupportedMediaType"}
                }
              }
            },
            "/api/channels/{cid}/suggestions": {
              "parameters": [{"$ref": "#/components/parameters/cid"}],
              "get": {
                "operationId": "suggestions",
                "summary": "Reply suggestions for you in this channel. 'pending' means a suggestions.updated event will follow on /api/connect.",
                "parameters": [
                  {"name": "tone", "in": "query", "required": false, "schema": {"type": "string", "enum": ["casual", "formal"]}}
                ],
                "responses": {
                  "200": {"description": "Where your suggestions stand.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Suggestions"}}}},
                  "400": {"$ref": "#/components/responses/BadRequest"},
                  "401": {"$ref": "#/components/responses/Unauthorized"},
                  "403": {"$ref": "#/components/responses/Forbidden"},
                  "404": {"$ref": "#/components/responses/NotFound"}
                }
              }
            },
            "/api/connect": {
              "get": {
                "operationId": "connect",
                "summary": "WebSocket of your events. Query: token (or send {\"type\":\"auth\",\"token\"} first), since (last seq seen; missed events are replayed, or {\"type\":\"resync\"} is sent when they are gone), suggestions=off. Every event carries a per-user 'seq'. Types: message.new, message.read, typing.start, typing.stop, suggestions.updated; control frames hello, resync, pong, error. A plain GET without an upgrade gets 426.",
                "security": [],
                "parameters": [
                  {"name": "token", "in": "query", "required": false, "schema": {"type": "string"}},
                  {"name": "since", "in": "query", "required": false, "schema": {"type": "integer", "minimum": 0}},
                  {"name": "suggestions", "in": "query", "required": false, "schema": {"type": "string", "enum": ["on", "off"]}}
                ],
                "responses": {
                  "101": {"description": "Switching to the WebSocket protocol."},
                  "400": {"$ref": "#/components/responses/BadRequest"},
                  "401": {"$ref": "#/components/responses/Unauthorized"},
                  "426": {"description": "Not a WebSocket upgrade.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}
                }
              }
            }
          },
          "components": {
            "securitySchemes": {
              "bearerAuth": {"type": "http", "scheme": "bearer", "bearerFormat": "JWT"}
            },
            "parameters": {
              "cid": {"name": "cid", "in": "path", "required": true, "description": "Channel address type:id.", "schema": {"$ref": "#/components/schemas/ChannelID"}}
            },
            "responses": {
              "BadRequest": {"description": "Malformed input.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}},
              "Unauthorized": {"description": "Missing, malformed, forged or expired token.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}},
              "Forbidden": {"description": "Not a member, or not allowed.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}},
              "NotFound": {"description": "No such channel, user or message.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}},
              "Conflict": {"description": "Message id reused for a different message.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}},
              "TooLarge": {"description": "Body over 64 KB.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}},
              "UnsupportedMediaType": {"description": "Body is not JSON.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}
            },
            "schemas": {
              "UserID": {"type": "string", "pattern": "^[A-Za-z0-9_.@-]{1,64}$"},
              "ChannelID": {"type": "string", "pattern": "^[a-z0-9_-]{1,32}:[A-Za-z0-9_.@!-]{1,64}$", "example": "messaging:weekend-hike"},
              "MessageID": {"type": "string", "pattern": "^[A-Za-z0-9_.:-]{1,64}$"},
              "Time": {"type": "string", "format": "date-time"},
              "Name": {
                "type": "string", "minLength": 1, "maxLength": 100,
                "description": "A display name: some non-space text, no control characters.",
                "pattern": "^[^\\u0000-\\u001F\\u007F-\\u009F]*[^\\s\\u0000-\\u001F\\u007F-\\u009F][^\\u0000-\\u001F\\u007F-\\u009F]*$"
              },
              "Error": {
                "type": "object", "required": ["error"],
                "properties": {"error": {"type": "object", "required": ["status", "code", "message"], "properties": {
                  "status": {"type": "integer"}, "code": {"type": "string"}, "message": {"type": "string"}
                }}}
              },
              "Health": {
                "type": "object", "required": ["status", "suggestions"],
                "properties": {"status": {"type": "string"}, "suggestions": {"type": "boolean"}}
              },
              "User": {
                "type": "object", "required": ["id", "name", "created_at", "updated_at"],
                "properties": {
                  "id": {"$ref": "#/components/schemas/UserID"}, "name": {"type": "string"},
                  "created_at": {"$ref": "#/components/schemas/Time"}, "updated_at": {"$ref": "#/components/schemas/Time"}
                }
              },
              "UserUpdate": {
                "type": "object", "required": ["id", "name"],
                "properties": {"id": {"$ref": "#/components/schemas/UserID"}, "name": {"$ref": "#/components/schemas/Name"}}
              },
              "Me": {
                "type": "object", "required": ["user", "suggestions"],
                "properties": {"user": {"$ref": "#/components/schemas/User"}, "suggestions": {"type": "boolean"}}
              },
              "Channel": {
                "type": "object", "required": ["cid", "name", "created_by", "created_at"],
                "properties": {
                  "cid": {"$ref": "#/components/schemas/ChannelID"}, "name": {"type": "string"},
                  "created_by": {"$ref": "#/components/schemas/UserID"}, "created_at": {"$ref": "#/components/schemas/Time"},
                  "last_message_at": {"$ref": "#/components/schemas/Time"}
                }
              },
              "ReadState": {
                "type": "object", "required": ["user_id"],
                "properties": {
                  "user_id": {"$ref": "#/components/schemas/UserID"},
                  "last_read_message_id": {"$ref": "#/components/schemas/MessageID"},
                  "last_read_at": {"$ref": "#/components/schemas/Time"}
                }
              },
              "Member": {
                "type": "object", "required": ["user", "joined_at", "read"],
                "properties": {
                  "user": {"$ref": "#/components/schemas/User"}, "joined_at": {"$ref": "#/components/schemas/Time"},
                  "read": {"$ref": "#/components/schemas/ReadState"}
                }
              },
              "ChannelDetail": {
                "type": "object", "required": ["channel", "members"],
                "properties": {
                  "channel": {"$ref": "#/components/schemas/Channel"},
                  "members": {"type": "array", "items": {"$ref": "#/components/schemas/Member"}},
                  "created": {"type": "boolean"}
                }
              },
              "ChannelSummary": {
                "type": "object", "required": ["channel", "members", "unread_count"],
                "properties": {
                  "channel": {"$ref": "#/components/schemas/Channel"},
                  "members": {"type": "array", "items": {"$ref": "#/components/schemas/User"}},
                  "unread_count": {"type": "integer", "minimum": 0},
                  "last_message": {"$ref": "#/components/schemas/Message"}
                }
              },
              "Message": {
                "type": "object", "required": ["id", "cid", "user_id", "text", "created_at"],
                "properties": {
                  "id": {"$ref": "#/components/schemas/MessageID"}, "cid": {"$ref": "#/components/schemas/ChannelID"},
                  "user_id": {"$ref": "#/components/schemas/UserID"}, "text": {"type": "string"},
                  "created_at": {"$ref": "#/components/schemas/Time"}, "parent_id": {"$ref": "#/components/schemas/MessageID"}
                }
              },
              "MessagePage": {
                "type": "object", "required": ["messages", "has_more"],
                "properties": {
                  "messages": {"type": "array", "items": {"$ref": "#/components/schemas/Message"}},
                  "has_more": {"type": "boolean"}
                }
              },
              "SentMessage": {
                "type": "object", "required": ["message", "created"],
                "properties": {"message": {"$ref": "#/components/schemas/Message"}, "created": {"type": "boolean"}}
              },
              "Suggestions": {
                "type": "object", "required": ["cid", "status", "suggestions", "signature"],
                "properties": {
                  "cid": {"$ref": "#/components/schemas/ChannelID"},
                  "status": {"type": "string", "enum": ["ready", "pending", "none", "unavailable"]},
                  "suggestions": {"type": "array", "maxItems": 3, "items": {"type": "string"}},
                  "signature": {"type": "string"}
                }
              }
            }
          }
        }
        """#
}
