"""The hybrid fallback: a second `sotto serve` with its local model off serves its AI features
(reply suggestions, writing tools, translation, the assistant) with the first one's model through
the OpenAI-compatible API, and every result says which model produced it."""

import json
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


def start_with_fallback(server):
    """A `sotto serve` with its local model off and `server` as its fallback (a Sotto token of
    that server as the key, in a file removed once read); and the name its results carry."""
    with tempfile.NamedTemporaryFile("w", suffix=".key") as key:
        key.write(server.token("fallback") + "\n")
        key.flush()
        local = start_server(["--fallback-url", server.base_url + "/v1", "--fallback-model", MODEL,
                              "--fallback-key-file", key.name], model="off")
    return local, f"{MODEL} at {server.base_url}/v1"


def test_without_configuration_nothing_leaves_the_machine():
    local = start_server(model="off")
    try:
        assert any("Fallback model: off (nothing leaves this machine)" in line for line in local.startup)
        assert any("Reply suggestions: off (--model off)" in line for line in local.startup)
    finally:
        stop_server(local)


def test_suggestions_come_from_the_fallback_and_say_so(server):
    local, name = start_with_fallback(server)
    try:
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
        # The other features run on the fallback too, and the state says so (and why).
        state = call(local, "GET", "/api/model", alice)
        assert state["available"] is True and state["fallback"] is True and state["name"] == name, state
        assert state["reason"] == "turned_off" and state["message"], state
    finally:
        stop_server(local)


def finished_job(server, token, started, timeout=180):
    """The job `started` ({"job": …}) once it has finished."""
    job = started["job"]
    deadline = time.time() + timeout
    while job["status"] not in ("done", "failed", "cancelled") and time.time() < deadline:
        time.sleep(0.3)
        job = call(server, "GET", f"/api/jobs/{job['id']}", token)["job"]
    return job


def test_tools_translation_and_the_assistant_come_from_the_fallback_and_say_so(server):
    """With the local model off, a writing tool, a translation and an assistant answer are made by
    the other server's model, and each result names it; the assistant keeps no context meter (only
    the local model counts tokens), but the answer's token counts come from the endpoint's usage."""
    local, name = start_with_fallback(server)
    try:
        alice = local.token("alice")
        tool = finished_job(local, alice, call(local, "POST", "/api/tools/writing", alice,
                                               {"tool": "proofread", "text": "see you tomorow at the stasion"}))
        assert tool["status"] == "done", tool
        assert tool["result"]["text"].strip() and tool["result"]["model"] == name, tool

        channel = "/api/channels/messaging%3Aweekend-hike"
        posted = call(local, "POST", channel + "/messages", local.token("bob"),
                      {"text": "Can you bring the map and some water tomorrow?"})
        translation = finished_job(local, alice, call(
            local, "POST", f"/api/messages/{posted['message']['id']}/translation", alice, {"language": "fr"}))
        assert translation["status"] == "done", translation
        result = translation["result"]
        assert result["text"].strip() and result["language"] == "fr" and result["model"] == name, translation

        conversation = call(local, "POST", "/api/assistant/conversations", alice, {"title": "Fallback"})
        path = f"/api/assistant/conversations/{conversation['id']}"
        started = call(local, "POST", path + "/messages", alice, {"text": "Name two colours.", "stream": False})
        assert started["turn"]["status"] == "streaming", started
        deadline = time.time() + 180
        detail = call(local, "GET", path, alice)
        while detail["answering"] and time.time() < deadline:
            time.sleep(0.3)
            detail = call(local, "GET", path, alice)
        answers = [m for m in detail["messages"] if m["role"] == "assistant"]
        assert len(answers) == 1 and answers[0]["text"].strip(), detail
        assert answers[0]["model"] == name and answers[0]["output_tokens"] > 0, answers[0]
        assert detail.get("context") is None, detail
        state = call(local, "GET", "/api/assistant", alice)
        assert state["model"]["fallback"] is True and state.get("context_size") is None, state
    finally:
        stop_server(local)
