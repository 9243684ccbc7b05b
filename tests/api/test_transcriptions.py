"""POST /v1/audio/transcriptions through the official `openai` client, on `sotto serve` with the
whisper-base speech model (`sotto model pull whisper-base`) and no language model: JSON, text
and verbose_json answers, OpenAI's model name, WAV at another rate in stereo, raw 16-bit PCM,
and the errors (bad audio, unknown model, bad key, too large)."""

import array
import io
import pathlib
import wave

import openai
import pytest

from conftest import ROOT, start_server, stop_server

FOX = ROOT / "Tests" / "WhisperTests" / "Fixtures" / "fox.wav"


@pytest.fixture(scope="module")
def speech_server():
    models = pathlib.Path.home() / ".sotto" / "models"
    started = start_server(model="off")
    if not any("Speech to text: whisper-base" in line for line in started.startup):
        stop_server(started)
        pytest.fail("sotto serve has no speech model: run `sotto model pull whisper-base` ("
                    f"looked in {models}); start-up said {started.startup}")
    yield started
    stop_server(started)


def samples(path):
    with wave.open(str(path)) as w:
        return w.getframerate(), array.array("h", w.readframes(w.getnframes()))


def wav_bytes(rate, channels, pcm):
    out = io.BytesIO()
    with wave.open(out, "wb") as w:
        w.setnchannels(channels)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(pcm.tobytes())
    return out.getvalue()


def test_json_text_and_verbose_json(speech_server):
    client = speech_server.client()
    with open(FOX, "rb") as f:
        result = client.audio.transcriptions.create(model="whisper-base", file=f, language="en")
    assert "lazy dog" in result.text.lower()
    with open(FOX, "rb") as f:
        text = client.audio.transcriptions.create(model="whisper-1", file=f, response_format="text")
    assert isinstance(text, str) and "brown fox" in text.lower()
    with open(FOX, "rb") as f:
        verbose = client.audio.transcriptions.create(model="whisper-base", file=f, response_format="verbose_json",
                                                     temperature=0, prompt="A sentence about a fox.")
    assert verbose.language == "en"  # detected: no language was given
    assert abs(verbose.duration - 3.44) < 0.05
    assert verbose.segments and "fox" in verbose.segments[0].text.lower()


def test_other_rates_stereo_and_raw_pcm(speech_server):
    client = speech_server.client()
    rate, mono = samples(FOX)
    # 48 kHz stereo: each sample three times, in both channels.
    stereo = array.array("h", (v for v in mono for _ in range(6)))
    result = client.audio.transcriptions.create(
        model="whisper-base", file=("fox48k.wav", wav_bytes(3 * rate, 2, stereo), "audio/wav"), language="en")
    assert "lazy dog" in result.text.lower()
    raw = client.audio.transcriptions.create(
        model="whisper-base", file=("fox.pcm", mono.tobytes(), f"audio/L16;rate={rate}"), language="en")
    assert "lazy dog" in raw.text.lower()


def test_errors(speech_server):
    client = speech_server.client()
    with pytest.raises(openai.BadRequestError) as bad:
        client.audio.transcriptions.create(model="whisper-base", file=("notes.wav", b"not audio at all", "audio/wav"))
    assert "cannot be read" in str(bad.value) and "WAV" in str(bad.value)
    with pytest.raises(openai.BadRequestError) as webm:
        client.audio.transcriptions.create(
            model="whisper-base", file=("a.webm", b"\x1a\x45\xdf\xa3" + bytes(100), "audio/webm"))
    assert "WebM" in str(webm.value)
    with open(FOX, "rb") as f, pytest.raises(openai.NotFoundError):
        client.audio.transcriptions.create(model="whisper-large", file=f)
    with open(FOX, "rb") as f, pytest.raises(openai.BadRequestError):
        client.audio.transcriptions.create(model="whisper-base", file=f, response_format="srt")
    # A small body: without a valid token the usual 64 KB limit holds (413 before any 401).
    with pytest.raises(openai.AuthenticationError):
        speech_server.client(key="not-a-token").audio.transcriptions.create(
            model="whisper-base", file=("a.pcm", bytes(3200), "audio/L16;rate=16000"))
    with pytest.raises(openai.APIStatusError) as large:
        client.audio.transcriptions.create(
            model="whisper-base", file=("big.pcm", bytes(26 * 1024 * 1024), "audio/L16;rate=16000"))
    assert large.value.status_code == 413
