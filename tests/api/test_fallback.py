"""The hybrid fallback: a second `sotto serve` with its local model off drafts reply suggestions
with the first one's model through the OpenAI-compatible API, and says which model wrote them."""

import json
import os
import tempfile
import time
import urllib.request

from conftest import MODEL, start_server, stop_server


def call(server, method, path, token, body=None):
    request = urllib.request.Request(server.base_url + path, method=method,
                                     data=None if body is None else json.dumps(body).encode())
    request.add_header("Authorization", "Bearer " + token)
    if body is not None:
        request.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())


def test_without_configuration_nothing_leaves_the_machine():
    local = start_server(model="off")
    try:
        assert any("Fallback model: off (nothing leaves this machine)" in line for line in local.startup)
        assert any("Reply suggestions: off (--model off)" in line for line in local.startup)
    finally:
        stop_server(local)


def test_suggestions_come_from_the_fallback_and_say_so(server):
    with tempfile.NamedTemporaryFile("w", suffix=".key", delete=False) as key:
        key.write(server.token("fallback") + "\n")
    local = start_server(["--fallback-url", server.base_url + "/v1", "--fallback-model", MODEL,
                          "--fallback-key-file", key.name], model="off")
    try:
        name = f"{MODEL} at {server.base_url}/v1"
        assert any(f"Reply suggestions: from the fallback {name}" in line for line in local.startup), local.startup
        channel = "/api/channels/messaging%3Aweekend-hike"
        call(local, "POST", channel + "/messages", local.token("bob"), {"text": "Shall we leave at 8 tomorrow?"})
        alice = local.token("alice")
        deadline = time.time() + 120
        answer = call(local, "GET", channel + "/suggestions", alice)
        while answer["status"] == "pending" and time.time() < deadline:
            time.sleep(0.5)
            answer = call(local, "GET", channel + "/suggestions", alice)
        assert answer["status"] == "ready", answer
        assert answer["suggestions"] and all(text.strip() for text in answer["suggestions"])
        assert answer["model"] == name
        # The local server's own features stay off: its model is.
        assert call(local, "GET", "/api/model", alice)["available"] is False
    finally:
        stop_server(local)
        os.unlink(key.name)
