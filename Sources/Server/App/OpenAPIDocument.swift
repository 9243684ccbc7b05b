import AssistantServer
import Foundation
import OpenAIServer
import ServerKit

/// The OpenAPI 3 description of the JSON API, served at `/api/openapi.json`.
///
/// Paths are generated from the routes (`Route.operation`), so the document describes exactly
/// what the router serves; the data types (`components`) are written once below.
///
/// Past 500 lines, as an exception: most of it is the `components` JSON, one schema per wire
/// type, kept in one place so that the shared schemas are written once. (Generating them from the
/// Swift types as well is still to do: issue 22.)
enum OpenAPIDocument {
    /// The document for `routes`, as JSON text.
    static func json(for routes: [Route]) -> String {
        var paths: [String: [String: Any]] = [:]
        for route in routes {
            var item = paths[route.pattern] ?? [:]
            if !route.pathParameters.isEmpty {
                item["parameters"] = route.pathParameters.map { ["$ref": "#/components/parameters/\($0)"] }
            }
            item[route.method.lowercased()] = operation(route)
            paths[route.pattern] = item
        }
        let document: [String: Any] = [
            "openapi": "3.0.3",
            "info": [
                "title": "Sotto chat API", "version": "0.2.0",
                "description":
                    "Self-hosted messaging with on-device reply suggestions. Authenticate with 'Authorization: Bearer <token>' (mint one with 'sotto token <user-id>'). Errors are {\"error\": {\"status\", \"code\", \"message\"}}.",
            ],
            "servers": [["url": "/"]],
            "security": [["bearerAuth": [String]()]],
            "paths": paths,
            "components": components,
        ]
        let data = try! JSONSerialization.data(
            withJSONObject: document, options: [.sortedKeys, .withoutEscapingSlashes])
        return String(decoding: data, as: UTF8.self)
    }

    private static func operation(_ route: Route) -> [String: Any] {
        let spec = route.operation
        var operation: [String: Any] = ["operationId": spec.id, "summary": spec.summary]
        if (!route.authenticated && !spec.authenticatesItself) || spec.publicAtHTTPLevel {
            operation["security"] = [Any]()
        }
        if !spec.query.isEmpty {
            operation["parameters"] = spec.query.map { query -> [String: Any] in
                ["name": query.name, "in": "query", "required": false, "schema": schema(query.schema)]
            }
        }
        var responses: [String: Any] = [:]
        for answer in spec.answers {
            var response: [String: Any] = ["description": answer.description]
            if let body = answer.schema { response["content"] = content(answer.mediaTypes, schema: body) }
            responses[String(answer.status)] = response
        }
        var errors = Set(spec.errors)
        if spec.body != nil || !spec.query.isEmpty || !route.pathParameters.isEmpty { errors.insert(400) }
        if route.authenticated || spec.publicAtHTTPLevel || spec.authenticatesItself { errors.insert(401) }
        if spec.authenticatesItself { errors.insert(429) }
        if route.authenticated { errors.insert(429) }
        if let body = spec.body {
            errors.formUnion([413, 415])
            operation["requestBody"] = [
                "required": spec.bodyRequired, "content": content(spec.bodyMediaTypes, schema: body),
            ]
        }
        for status in errors where responses[String(status)] == nil {
            guard let name = errorResponses[status] else {
                preconditionFailure("no error response for \(status) in OpenAPIDocument.errorResponses")
            }
            responses[String(status)] = ["$ref": "#/components/responses/\(name)"]
        }
        operation["responses"] = responses
        return operation
    }

    /// Error statuses and their shared response in `components.responses`.
    static let errorResponses: [Int: String] = [
        400: "BadRequest", 401: "Unauthorized", 403: "Forbidden", 404: "NotFound", 409: "Conflict", 413: "TooLarge",
        415: "UnsupportedMediaType", 429: "TooManyRequests", 502: "BadGateway", 503: "ServiceUnavailable",
    ]

    /// A `content` map: the same schema under each media type.
    private static func content(_ mediaTypes: [String], schema text: String) -> [String: Any] {
        Dictionary(uniqueKeysWithValues: mediaTypes.map { ($0, ["schema": schema(text)]) })
    }

    private static func schema(_ text: String) -> Any {
        guard let value = try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed]) else {
            preconditionFailure("route schema is not JSON: \(text)")
        }
        return value
    }

    /// The shared components, with the assistant's (``AssistantOpenAPI``) merged in.
    private static var components: Any {
        guard var components = schema(componentsJSON) as? [String: Any],
            var parameters = components["parameters"] as? [String: Any],
            var schemas = components["schemas"] as? [String: Any]
        else { preconditionFailure("componentsJSON lacks parameters or schemas") }
        parameters.merge(AssistantOpenAPI.parameters) { _, new in new }
        schemas.merge(AssistantOpenAPI.schemas) { _, new in new }
        components["parameters"] = parameters
        components["schemas"] = schemas
        return components
    }

    private static let componentsJSON = ##"""
        {
          "securitySchemes": {
            "bearerAuth": {
              "type": "http",
              "scheme": "bearer",
              "bearerFormat": "JWT"
            }
          },
          "parameters": {
            "cid": {
              "name": "cid",
              "in": "path",
              "required": true,
              "description": "Channel address type:id.",
              "schema": {
                "$ref": "#/components/schemas/ChannelID"
              }
            },
            "message_id": {
              "name": "message_id",
              "in": "path",
              "required": true,
              "description": "A message id.",
              "schema": {
                "$ref": "#/components/schemas/MessageID"
              }
            },
            "job_id": {
              "name": "job_id",
              "in": "path",
              "required": true,
              "description": "A model job's id.",
              "schema": {
                "type": "string",
                "pattern": "^[0-9a-f-]{1,40}$"
              }
            }
          },
          "responses": {
            "BadRequest": {
              "description": "Malformed input.",
              "content": {
                "application/json": {
                  "schema": {
                    "$ref": "#/components/schemas/Error"
                  }
                }
              }
            },
            "Unauthorized": {
              "description": "Missing, malformed, forged or expired token.",
              "content": {
                "application/json": {
                  "schema": {
                    "$ref": "#/components/schemas/Error"
                  }
                }
              }
            },
            "Forbidden": {
              "description": "Not a member, or not allowed (creating users takes an admin token).",
              "content": {
                "application/json": {
                  "schema": {
                    "$ref": "#/components/schemas/Error"
                  }
                }
              }
            },
            "NotFound": {
              "description": "No such channel, user or message.",
              "content": {
                "application/json": {
                  "schema": {
                    "$ref": "#/components/schemas/Error"
                  }
                }
              }
            },
            "Conflict": {
              "description": "Clashes with stored state: a message id reused for a different message, a display name taken; or (code model_unavailable) the local model these features need is not there, the message saying why and what to do.",
              "content": {
                "application/json": {
                  "schema": {
                    "$ref": "#/components/schemas/Error"
                  }
                }
              }
            },
            "BadGateway": {
              "description": "A server this one asked on your behalf (the configured image server) failed; the message says how.",
              "content": {
                "application/json": {
                  "schema": {
                    "$ref": "#/components/schemas/Error"
                  }
                }
              }
            },
            "ServiceUnavailable": {
              "description": "(OpenAI-compatible routes) The server has no model to run, the message saying why and what to do.",
              "content": {
                "application/json": {
                  "schema": {
                    "$ref": "#/components/schemas/Error"
                  }
                }
              }
            },
            "TooLarge": {
              "description": "Body over 64 KB.",
              "content": {
                "application/json": {
                  "schema": {
                    "$ref": "#/components/schemas/Error"
                  }
                }
              }
            },
            "UnsupportedMediaType": {
              "description": "Body is not JSON.",
              "content": {
                "application/json": {
                  "schema": {
                    "$ref": "#/components/schemas/Error"
                  }
                }
              }
            },
            "TooManyRequests": {
              "description": "Over the per-user rate limit; retry after the Retry-After seconds.",
              "content": {
                "application/json": {
                  "schema": {
                    "$ref": "#/components/schemas/Error"
                  }
                }
              }
            }
          },
          "schemas": {
            "UserID": {
              "type": "string",
              "pattern": "^[A-Za-z0-9_.@-]{1,64}$"
            },
            "ChannelID": {
              "type": "string",
              "pattern": "^[a-z0-9_-]{1,32}:[A-Za-z0-9_.@!-]{1,64}$",
              "example": "messaging:weekend-hike"
            },
            "MessageID": {
              "type": "string",
              "pattern": "^[A-Za-z0-9_.:-]{1,64}$"
            },
            "Time": {
              "type": "string",
              "format": "date-time"
            },
            "Name": {
              "type": "string",
              "minLength": 1,
              "maxLength": 100,
              "description": "A display name: some non-space text, no control or bidirectional-override characters; unique per server (case-insensitive) for users.",
              "pattern": "^[^\\u0000-\\u001F\\u007F-\\u009F\\u061C\\u200E\\u200F\\u202A-\\u202E\\u2066-\\u2069]*[^\\s\\u0000-\\u001F\\u007F-\\u009F\\u061C\\u200E\\u200F\\u202A-\\u202E\\u2066-\\u2069][^\\u0000-\\u001F\\u007F-\\u009F\\u061C\\u200E\\u200F\\u202A-\\u202E\\u2066-\\u2069]*$"
            },
            "Error": {
              "type": "object",
              "required": [
                "error"
              ],
              "properties": {
                "error": {
                  "type": "object",
                  "required": [
                    "status",
                    "code",
                    "message"
                  ],
                  "properties": {
                    "status": {
                      "type": "integer"
                    },
                    "code": {
                      "type": "string"
                    },
                    "message": {
                      "type": "string"
                    }
                  }
                }
              }
            },
            "Health": {
              "type": "object",
              "required": [
                "status",
                "suggestions"
              ],
              "properties": {
                "status": {
                  "type": "string"
                },
                "suggestions": {
                  "type": "boolean"
                }
              }
            },
            "User": {
              "type": "object",
              "required": [
                "id",
                "name",
                "created_at",
                "updated_at"
              ],
              "properties": {
                "id": {
                  "$ref": "#/components/schemas/UserID"
                },
                "name": {
                  "type": "string"
                },
                "created_at": {
                  "$ref": "#/components/schemas/Time"
                },
                "updated_at": {
                  "$ref": "#/components/schemas/Time"
                }
              }
            },
            "UserUpdate": {
              "type": "object",
              "required": [
                "id",
                "name"
              ],
              "properties": {
                "id": {
                  "$ref": "#/components/schemas/UserID"
                },
                "name": {
                  "$ref": "#/components/schemas/Name"
                }
              }
            },
            "Me": {
              "type": "object",
              "required": [
                "user",
                "suggestions",
                "model",
                "speech",
                "images"
              ],
              "properties": {
                "user": {
                  "$ref": "#/components/schemas/User"
                },
                "suggestions": {
                  "type": "boolean"
                },
                "model": {
                  "$ref": "#/components/schemas/ModelState"
                },
                "speech": {
                  "$ref": "#/components/schemas/SpeechState"
                },
                "images": {
                  "$ref": "#/components/schemas/ImageGenerationState"
                }
              }
            },
            "ImageGenerationState": {
              "type": "object",
              "required": ["available"],
              "properties": {
                "available": {"type": "boolean", "description": "Whether POST /api/assistant/conversations/{conversation_id}/images/generations has an image model (configured with sotto serve --image-url; off by default)."},
                "model": {"type": "string", "description": "The image model's name, shown beside the images it made."},
                "sizes": {"type": "array", "items": {"type": "string"}, "description": "The sizes a request may ask for."}
              }
            },
            "SpeechState": {
              "type": "object",
              "required": ["available", "message"],
              "properties": {
                "available": {"type": "boolean", "description": "Whether POST /v1/audio/transcriptions has a speech model (loaded at its first request)."},
                "model": {"type": "string", "nullable": true, "description": "The speech model's id."},
                "message": {"type": "string", "description": "Why there is none and what to do; empty when there is one."}
              }
            },
            "ModelState": {
              "type": "object",
              "required": ["available", "fallback", "message", "tools", "languages"],
              "properties": {
                "available": {"type": "boolean", "description": "Whether the AI features work: the local model is there, or the fallback stands in for it."},
                "name": {"type": "string", "description": "The model the features use; a fallback's is 'model at URL'."},
                "fallback": {"type": "boolean", "description": "True when the features run on the configured fallback (an OpenAI-compatible endpoint) because the local model is unavailable: what is written is sent there."},
                "reason": {"type": "string", "enum": ["not_downloaded", "machine_too_small", "turned_off", "no_model"]},
                "message": {"type": "string", "description": "Why the local model is unavailable and what to do; empty when it is there."},
                "tools": {"type": "array", "items": {"type": "object", "required": ["id", "title"], "properties": {"id": {"type": "string"}, "title": {"type": "string"}}}},
                "languages": {"type": "array", "items": {"type": "object", "required": ["code", "name"], "properties": {"code": {"type": "string"}, "name": {"type": "string"}}}}
              }
            },
            "ModelDownload": {
              "type": "object",
              "required": ["model", "status", "bytes", "message"],
              "properties": {
                "model": {"type": "string", "description": "The catalog id."},
                "status": {"type": "string", "enum": ["idle", "downloading", "assembling", "installed", "failed"]},
                "fraction": {"type": "number", "minimum": 0, "maximum": 1, "nullable": true, "description": "Of the whole; null while pip fetches a part."},
                "bytes": {"type": "integer", "description": "The model file's size."},
                "message": {"type": "string", "description": "What is happening, or why it stopped."}
              }
            },
            "Preferences": {
              "type": "object",
              "required": ["translation_language"],
              "properties": {
                "translation_language": {"type": "string", "nullable": true}
              }
            },
            "Job": {
              "type": "object",
              "required": ["id", "kind", "status"],
              "properties": {
                "id": {"type": "string"},
                "kind": {"type": "string", "description": "writing.<tool>, translation, summary, event or search_suggestions."},
                "status": {"type": "string", "enum": ["queued", "running", "done", "failed", "cancelled"]},
                "error": {"type": "string"},
                "result": {
                  "type": "object",
                  "properties": {
                    "model": {"type": "string", "description": "The model that produced the result: the local model's name, or the fallback's 'model at URL'."},
                    "text": {"type": "string"},
                    "language": {"type": "string"},
                    "terms": {"type": "array", "items": {"type": "string"}},
                    "event": {
                      "type": "object",
                      "required": ["title", "start", "end", "all_day", "time_zone"],
                      "properties": {
                        "title": {"type": "string"},
                        "start": {"$ref": "#/components/schemas/Time"},
                        "end": {"$ref": "#/components/schemas/Time"},
                        "all_day": {"type": "boolean"},
                        "location": {"type": "string"},
                        "time_zone": {"type": "string"}
                      }
                    },
                    "ics": {"type": "string", "description": "The event as an iCalendar (RFC 5545) file."},
                    "filename": {"type": "string"}
                  }
                }
              }
            },
            "JobEnvelope": {
              "type": "object",
              "required": ["job"],
              "properties": {"job": {"$ref": "#/components/schemas/Job"}}
            },
            "SearchResults": {
              "type": "object",
              "required": ["query", "results"],
              "properties": {
                "query": {"type": "string"},
                "results": {
                  "type": "array",
                  "items": {
                    "type": "object",
                    "required": ["message", "channel_name", "score", "highlights"],
                    "properties": {
                      "message": {"$ref": "#/components/schemas/Message"},
                      "channel_name": {"type": "string"},
                      "score": {"type": "integer"},
                      "highlights": {"type": "array", "items": {"type": "array", "minItems": 2, "maxItems": 2, "items": {"type": "integer"}}, "description": "Matched words as [start, end) UTF-16 offsets in the text."}
                    }
                  }
                }
              }
            },
            "Channel": {
              "type": "object",
              "required": [
                "cid",
                "name",
                "created_by",
                "created_at"
              ],
              "properties": {
                "cid": {
                  "$ref": "#/components/schemas/ChannelID"
                },
                "name": {
                  "type": "string"
                },
                "created_by": {
                  "$ref": "#/components/schemas/UserID"
                },
                "created_at": {
                  "$ref": "#/components/schemas/Time"
                },
                "last_message_at": {
                  "$ref": "#/components/schemas/Time"
                }
              }
            },
            "ReadState": {
              "type": "object",
              "required": [
                "user_id"
              ],
              "properties": {
                "user_id": {
                  "$ref": "#/components/schemas/UserID"
                },
                "last_read_message_id": {
                  "$ref": "#/components/schemas/MessageID"
                },
                "last_read_at": {
                  "$ref": "#/components/schemas/Time"
                }
              }
            },
            "Member": {
              "type": "object",
              "required": [
                "user",
                "joined_at",
                "read"
              ],
              "properties": {
                "user": {
                  "$ref": "#/components/schemas/User"
                },
                "joined_at": {
                  "$ref": "#/components/schemas/Time"
                },
                "read": {
                  "$ref": "#/components/schemas/ReadState"
                }
              }
            },
            "ChannelDetail": {
              "type": "object",
              "required": [
                "channel",
                "members"
              ],
              "properties": {
                "channel": {
                  "$ref": "#/components/schemas/Channel"
                },
                "members": {
                  "type": "array",
                  "items": {
                    "$ref": "#/components/schemas/Member"
                  }
                },
                "created": {
                  "type": "boolean"
                }
              }
            },
            "ChannelSummary": {
              "type": "object",
              "required": [
                "channel",
                "members",
                "unread_count"
              ],
              "properties": {
                "channel": {
                  "$ref": "#/components/schemas/Channel"
                },
                "members": {
                  "type": "array",
                  "items": {
                    "$ref": "#/components/schemas/User"
                  }
                },
                "unread_count": {
                  "type": "integer",
                  "minimum": 0
                },
                "last_message": {
                  "$ref": "#/components/schemas/Message"
                }
              }
            },
            "Message": {
              "type": "object",
              "required": [
                "id",
                "cid",
                "user_id",
                "text",
                "created_at"
              ],
              "properties": {
                "id": {
                  "$ref": "#/components/schemas/MessageID"
                },
                "cid": {
                  "$ref": "#/components/schemas/ChannelID"
                },
                "user_id": {
                  "$ref": "#/components/schemas/UserID"
                },
                "text": {
                  "type": "string"
                },
                "created_at": {
                  "$ref": "#/components/schemas/Time"
                },
                "parent_id": {
                  "$ref": "#/components/schemas/MessageID"
                }
              }
            },
            "MessagePage": {
              "type": "object",
              "required": [
                "messages",
                "has_more"
              ],
              "properties": {
                "messages": {
                  "type": "array",
                  "items": {
                    "$ref": "#/components/schemas/Message"
                  }
                },
                "has_more": {
                  "type": "boolean"
                }
              }
            },
            "SentMessage": {
              "type": "object",
              "required": [
                "message",
                "created"
              ],
              "properties": {
                "message": {
                  "$ref": "#/components/schemas/Message"
                },
                "created": {
                  "type": "boolean"
                }
              }
            },
            "Suggestions": {
              "type": "object",
              "required": [
                "cid",
                "status",
                "suggestions",
                "signature"
              ],
              "properties": {
                "model": {
                  "type": "string",
                  "description": "The model that writes the suggestions (a remote one: 'NAME at URL'); absent when none does."
                },
                "cid": {
                  "$ref": "#/components/schemas/ChannelID"
                },
                "status": {
                  "type": "string",
                  "enum": [
                    "ready",
                    "pending",
                    "none",
                    "unavailable"
                  ]
                },
                "suggestions": {
                  "type": "array",
                  "maxItems": 3,
                  "items": {
                    "type": "string"
                  }
                },
                "signature": {
                  "type": "string"
                }
              }
            },
            "Token": {
              "type": "object",
              "required": [
                "token"
              ],
              "properties": {
                "token": {
                  "type": "string"
                },
                "expires_at": {
                  "type": "integer"
                }
              }
            }
          }
        }
        """##
}
