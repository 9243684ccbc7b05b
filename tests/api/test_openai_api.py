"""The OpenAI-compatible API of `sotto serve`, through the official `openai` Python client."""

import json
import socket
import time
import urllib.parse

import jsonschema
import openai
import pytest

from conftest import MODEL

PROMPT = [{"role": "user", "content": "Say hello in three words."}]


def test_models_lists_the_servers_model(client):
    assert [model.id for model in client.models.list()] == [MODEL]


def test_plain_completion(client):
    completion = client.chat.completions.create(model=MODEL, messages=PROMPT, max_tokens=12, temperature=0)
    choice = completion.choices[0]
    assert completion.object == "chat.completion"
    assert choice.message.role == "assistant" and choice.message.content.strip()
    assert choice.finish_reason in ("stop", "length")
    assert completion.usage.prompt_tokens > 0 and 0 < completion.usage.completion_tokens <= 12
    assert completion.usage.total_tokens == completion.usage.prompt_tokens + completion.usage.completion_tokens


def test_streamed_completion_ends_with_a_usage_chunk(client):
    chunks = list(client.chat.completions.create(model=MODEL, messages=PROMPT, max_tokens=12, temperature=0,
                                                 stream=True, stream_options={"include_usage": True}))
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text.strip()
    finishes = [c.choices[0].finish_reason for c in chunks if c.choices and c.choices[0].finish_reason]
    assert finishes in (["stop"], ["length"])
    assert chunks[-1].choices == [] and chunks[-1].usage.completion_tokens > 0
    # The same text as the whole completion, greedy.
    whole = client.chat.completions.create(model=MODEL, messages=PROMPT, max_tokens=12, temperature=0)
    assert whole.choices[0].message.content == text


def test_stop_sequences_cut_the_text(client):
    completion = client.chat.completions.create(
        model=MODEL, messages=[{"role": "user", "content": "List the numbers 1 to 9, comma separated."}],
        max_tokens=40, temperature=0, stop=["5"])
    assert "5" not in completion.choices[0].message.content
    assert completion.choices[0].finish_reason == "stop"


SCHEMAS = {
    "nested": {
        "type": "object", "required": ["person"], "additionalProperties": False,
        "properties": {"person": {
            "type": "object", "required": ["name", "address"], "additionalProperties": False,
            "properties": {"name": {"type": "string"},
                           "address": {"type": "object", "required": ["city", "zip"], "additionalProperties": False,
                                       "properties": {"city": {"type": "string"}, "zip": {"type": "string"}}}}}}},
    "bounded_array": {
        "type": "object", "required": ["tags"], "additionalProperties": False,
        "properties": {"tags": {"type": "array", "minItems": 2, "maxItems": 3, "items": {"type": "string"}}}},
    "enum": {
        "type": "object", "required": ["color", "size"], "additionalProperties": False,
        "properties": {"color": {"type": "string", "enum": ["red", "green", "blue"]},
                       "size": {"enum": ["S", "M", "L"]}}},
    "ranges": {
        "type": "object", "required": ["age", "score"], "additionalProperties": False,
        "properties": {"age": {"type": "integer", "minimum": 18, "maximum": 65},
                       "score": {"type": "number", "minimum": 0, "maximum": 1}}},
    "optional": {
        "type": "object", "required": ["title", "note"], "additionalProperties": False,
        "properties": {"title": {"type": "string"}, "note": {"type": ["string", "null"]},
                       "pages": {"type": "integer", "minimum": 1, "maximum": 999}}},
    "array_of_objects": {
        "type": "object", "required": ["items"], "additionalProperties": False,
        "properties": {"items": {"type": "array", "minItems": 1, "maxItems": 2, "items": {
            "type": "object", "required": ["id", "done"], "additionalProperties": False,
            "properties": {"id": {"type": "integer", "minimum": 0, "maximum": 100}, "done": {"type": "boolean"}}}}}},
}


def schema_request(name):
    return dict(model=MODEL, temperature=0, max_tokens=200,
                messages=[{"role": "user", "content": f"Make up an example {name.replace('_', ' ')} record."}],
                response_format={"type": "json_schema",
                                 "json_schema": {"name": name, "strict": True, "schema": SCHEMAS[name]}})


@pytest.mark.parametrize("name", sorted(SCHEMAS))
def test_json_schema_is_followed(client, name):
    whole = client.chat.completions.create(**schema_request(name))
    jsonschema.validate(json.loads(whole.choices[0].message.content), SCHEMAS[name])
    chunks = client.chat.completions.create(**schema_request(name), stream=True)
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    jsonschema.validate(json.loads(text), SCHEMAS[name])


JSON_OBJECT_PROMPTS = [
    "Describe a cat as a JSON object with its name, age and favourite toys.",
    "Give me the weather forecast for the next three days.",  # says nothing of JSON
    "Write a nested configuration for a web server: ports, routes with their handlers, TLS.",
    "Reply with the number 42 only.",  # would not be an object unless enforced
    "List three fruits.",
]


def nesting(value):
    if isinstance(value, dict):
        return 1 + max(map(nesting, value.values()), default=0)
    if isinstance(value, list):
        return 1 + max(map(nesting, value), default=0)
    return 0


@pytest.mark.parametrize("index", range(len(JSON_OBJECT_PROMPTS)))
def test_json_object_output_always_parses_as_an_object(client, index):
    """`response_format: json_object` is enforced by the constrained decoder: whatever the prompt,
    whole and streamed (sampled, with different seeds), the output is one finished JSON object
    nested at most 6 deep."""
    request = dict(model=MODEL, messages=[{"role": "user", "content": JSON_OBJECT_PROMPTS[index]}],
                   response_format={"type": "json_object"}, max_tokens=600, temperature=0.8)
    whole = client.chat.completions.create(**request, seed=index)
    chunks = list(client.chat.completions.create(**request, seed=100 + index, stream=True))
    streamed = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    endings = [c.choices[0].finish_reason for c in chunks if c.choices and c.choices[0].finish_reason]
    for text, finish in ((whole.choices[0].message.content, whole.choices[0].finish_reason), (streamed, endings[-1])):
        assert finish == "stop", f"cut at {finish}: {text!r}"
        value = json.loads(text)
        assert isinstance(value, dict), text
        assert nesting(value) <= 6, text


WEATHER = {"type": "function", "function": {
    "name": "get_weather", "description": "The current weather in a city.",
    "parameters": {"type": "object", "required": ["city"], "additionalProperties": False,
                   "properties": {"city": {"type": "string"}}}}}


def test_tool_call_round_trip(client):
    messages = [{"role": "user", "content": "What is the weather in Paris right now?"}]
    first = client.chat.completions.create(model=MODEL, messages=messages, tools=[WEATHER], temperature=0,
                                           tool_choice="required")
    choice = first.choices[0]
    assert choice.finish_reason == "tool_calls"
    call = choice.message.tool_calls[0]
    assert call.type == "function" and call.function.name == "get_weather"
    assert isinstance(json.loads(call.function.arguments)["city"], str)
    # The client runs the tool and sends its output back; the model answers from it.
    messages += [choice.message.model_dump(exclude_none=True),
                 {"role": "tool", "tool_call_id": call.id, "content": json.dumps({"forecast": "sunny", "celsius": 21})}]
    second = client.chat.completions.create(model=MODEL, messages=messages, tools=[WEATHER], temperature=0,
                                            max_tokens=60)
    assert second.choices[0].message.content and not second.choices[0].message.tool_calls


def test_named_tool_choice_and_none(client):
    named = client.chat.completions.create(
        model=MODEL, messages=[{"role": "user", "content": "Hi!"}], tools=[WEATHER], temperature=0,
        tool_choice={"type": "function", "function": {"name": "get_weather"}})
    assert named.choices[0].message.tool_calls[0].function.name == "get_weather"
    none = client.chat.completions.create(
        model=MODEL, messages=[{"role": "user", "content": "What is the weather in Rome?"}], tools=[WEATHER],
        temperature=0, tool_choice="none", max_tokens=20)
    assert not none.choices[0].message.tool_calls and none.choices[0].message.content


def test_a_bad_key_gets_401(server):
    with pytest.raises(openai.AuthenticationError) as raised:
        server.client(key="not-a-sotto-token").chat.completions.create(model=MODEL, messages=PROMPT)
    assert raised.value.status_code == 401
    assert raised.value.body["code"] == "invalid_api_key"


def test_bad_parameters_get_400_naming_them(client):
    with pytest.raises(openai.BadRequestError) as raised:
        client.chat.completions.create(model=MODEL, messages=PROMPT, n=2)
    assert raised.value.body["param"] == "n"
    with pytest.raises(openai.BadRequestError) as raised:
        client.chat.completions.create(model=MODEL, messages=PROMPT, temperature=7)
    assert raised.value.body["param"] == "temperature"
    with pytest.raises(openai.NotFoundError):
        client.chat.completions.create(model="gpt-4o", messages=PROMPT)


def test_an_oversized_request_gets_413(client):
    """Refused by the HTTP layer before any route runs, yet in OpenAI's error shape (on /v1/)."""
    with pytest.raises(openai.APIStatusError) as raised:
        client.chat.completions.create(model=MODEL, messages=[{"role": "user", "content": "x" * 200_000}])
    assert raised.value.status_code == 413
    error = raised.value.response.json()["error"]
    assert set(error) == {"message", "type", "param", "code"}, error
    assert error["type"] == "invalid_request_error" and error["code"] == "body_too_large" and error["param"] is None
    assert "65536 bytes" in error["message"]


def test_framing_errors_under_v1_are_in_openais_shape(server):
    """A request the HTTP layer refuses (two Content-Length headers) on /v1/ gets OpenAI's error
    shape; elsewhere the server's own."""
    url = urllib.parse.urlparse(server.base_url)

    def refused(path):
        raw = socket.create_connection((url.hostname, url.port), timeout=10)
        raw.sendall((f"POST {path} HTTP/1.1\r\nHost: {url.netloc}\r\nContent-Type: application/json\r\n"
                     "Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}").encode())
        answer = b""
        while chunk := raw.recv(4096):
            answer += chunk
        raw.close()
        head, _, body = answer.partition(b"\r\n\r\n")
        return head.split(b"\r\n")[0], json.loads(body)

    status, body = refused("/v1/chat/completions")
    assert status.startswith(b"HTTP/1.1 400")
    assert body == {"error": {"message": body["error"]["message"], "type": "invalid_request_error", "param": None,
                              "code": "bad_request"}}, body
    status, body = refused("/api/channels")
    assert status.startswith(b"HTTP/1.1 400") and set(body["error"]) >= {"code", "message"}
    assert "type" not in body["error"], body


LONG_STORY = [{"role": "user", "content": "Write a very long story about a lighthouse."}]


def running_completions(client):
    """The server's count of completions being generated (X-Sotto-Completions)."""
    return int(client.models.with_raw_response.list().headers["x-sotto-completions"])


def post_raw_completion(server, request):
    """A chat completion POSTed on a socket of its own, which the caller may drop."""
    url = urllib.parse.urlparse(server.base_url)
    body = json.dumps(request)
    raw = socket.create_connection((url.hostname, url.port), timeout=60)
    raw.sendall((f"POST /v1/chat/completions HTTP/1.1\r\nHost: {url.netloc}\r\n"
                 f"Authorization: Bearer {server.token()}\r\nContent-Type: application/json\r\n"
                 f"Content-Length: {len(body)}\r\n\r\n{body}").encode())
    return raw


def assert_generation_stops_and_the_next_is_served(client, what):
    deadline = time.time() + 15
    while running_completions(client) != 0:
        assert time.time() < deadline, f"the {what}'s generation is still running"
        time.sleep(0.2)
    quick = client.chat.completions.create(model=MODEL, messages=PROMPT, max_tokens=4, temperature=0)
    assert quick.choices[0].message.content


def test_a_client_that_disconnects_stops_the_generation(server, client):
    """A stream asked for 2000 tokens is dropped after its first pieces of text; the server's count
    of running completions (X-Sotto-Completions) drops to 0 within seconds, where the generation
    would take minutes, and the next request is served."""
    raw = post_raw_completion(
        server, {"model": MODEL, "stream": True, "max_tokens": 2000, "temperature": 0, "messages": LONG_STORY})
    received = b""
    while received.count(b"data: ") < 3:  # the role chunk and two pieces of text
        received += raw.recv(4096)
    assert running_completions(client) == 1
    raw.close()
    assert_generation_stops_and_the_next_is_served(client, "dropped stream")


def test_a_client_that_disconnects_from_a_whole_completion_stops_it(server, client):
    """The same for an unstreamed completion: the client hangs up while the server is still
    generating (nothing has been sent back yet), and the generation stops within seconds."""
    raw = post_raw_completion(server, {"model": MODEL, "max_tokens": 2000, "temperature": 0, "messages": LONG_STORY})
    deadline = time.time() + 15
    while running_completions(client) != 1:
        assert time.time() < deadline, "the completion did not start"
        time.sleep(0.05)
    time.sleep(1)  # well into the generation, which would take minutes
    raw.close()
    assert_generation_stops_and_the_next_is_served(client, "abandoned completion")
