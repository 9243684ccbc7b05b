#!/usr/bin/env python3
"""Make the Whisper fixtures for Tests/WhisperTests from the oracle, faster-whisper 1.2.1 with
ctranslate2 4.8.5 (pip), on the whisper-base model.bin that `sotto model pull whisper-base`
installs, and speech that espeak-ng says (Debian), resampled to 16 kHz by sox.

For each clip:

    <name>.wav           16 kHz mono 16-bit speech (espeak-ng, then sox)
    <name>.json          what the oracle made of it:
      text               the sentence spoken
      mel_frames         faster-whisper's FeatureExtractor frames (80 × n, n = samples/160 + 1)
      mel                those log-mel values, row-major, 80 rows (first MEL_FRAMES frames)
      encoder_rows       positions of the encoder output recorded
      encoder            CTranslate2's float32 encoder output at those positions (512 each), for
                         the clip padded to 30 s as faster-whisper pads it
      encoder_mean_abs   the mean |x| of the whole encoder output, for scale
      greedy_f32         greedy tokens (CTranslate2 float32; prompt sot, en, transcribe,
                         notimestamps; suppress_blank, suppress_ids; max 224)
      greedy_int8        the same with compute_type int8 (what the benchmarks compare against)
      language           detected language and its probability (float32)

Run from the repository root: python3 scripts/make-whisper-fixtures.py [--model DIR]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import wave

import numpy as np

CLIPS = [
    ("fox", "The quick brown fox jumps over the lazy dog.", "en-us", 150),
    ("meeting", "Let's meet on Thursday at three to review the budget.", "en-gb", 165),
]
MEL_FRAMES = 120
ENCODER_ROWS = [0, 1, 2, 50, 100, 149, 700, 1499]
OUT = "Tests/WhisperTests/Fixtures"


def speak(text, voice, speed, path):
    with tempfile.TemporaryDirectory() as tmp:
        raw = os.path.join(tmp, "raw.wav")
        subprocess.run(["espeak-ng", "-v", voice, "-s", str(speed), "-w", raw, text], check=True)
        subprocess.run(["sox", raw, "-r", "16000", "-c", "1", "-b", "16", path], check=True)


def read_wav(path):
    with wave.open(path) as w:
        assert w.getframerate() == 16000 and w.getnchannels() == 1 and w.getsampwidth() == 2
        data = np.frombuffer(w.readframes(w.getnframes()), dtype="<i2")
    return data.astype(np.float32) / 32768.0


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", default=os.path.expanduser(os.environ.get("SOTTO_HOME", "~/.sotto") + "/models/whisper-base"))
    args = parser.parse_args()
    import ctranslate2
    from faster_whisper import WhisperModel
    from faster_whisper.audio import pad_or_trim

    models = {ct: WhisperModel(args.model, device="cpu", compute_type=ct, cpu_threads=2, local_files_only=True)
              for ct in ("float32", "int8")}
    tokenizer_prompt = [50258, 50259, 50359, 50363]
    os.makedirs(OUT, exist_ok=True)
    for name, text, voice, speed in CLIPS:
        wav = os.path.join(OUT, name + ".wav")
        speak(text, voice, speed, wav)
        audio = read_wav(wav)
        fw = models["float32"]
        features = fw.feature_extractor(audio)
        content = features.shape[-1] - 1
        segment = pad_or_trim(features[:, :min(3000, content)])
        record = {
            "text": text,
            "samples": int(audio.shape[0]),
            "mel_frames": int(features.shape[-1]),
            "mel": [round(float(v), 6) for v in features[:, :MEL_FRAMES].reshape(-1)],
        }
        storage = ctranslate2.StorageView.from_array(np.ascontiguousarray(segment[None], dtype=np.float32))
        encoded = np.array(fw.model.encode(storage))[0]
        record["encoder_rows"] = ENCODER_ROWS
        record["encoder"] = [[round(float(v), 5) for v in encoded[r]] for r in ENCODER_ROWS]
        record["encoder_mean_abs"] = float(np.abs(encoded).mean())
        for ct, model in models.items():
            out = model.model.encode(storage)
            result = model.model.generate(
                out, [tokenizer_prompt], beam_size=1, max_length=224, suppress_blank=True,
                suppress_tokens=[-1], return_scores=True)[0]
            record["greedy_" + ct] = result.sequences_ids[0]
        language = fw.model.detect_language(fw.model.encode(storage))[0][0]
        record["language"] = [language[0].strip("<|>"), round(float(language[1]), 4)]
        with open(os.path.join(OUT, name + ".json"), "w") as f:
            json.dump(record, f, separators=(",", ":"))
        print(name, len(audio) / 16000, "s;", fw.hf_tokenizer.decode(record["greedy_float32"]), record["language"])


if __name__ == "__main__":
    sys.exit(main())
