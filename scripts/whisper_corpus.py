"""Test speech for scripts/eval-whisper and scripts/bench-whisper: sentences said by espeak-ng
(Debian) in several voices, some altered by sox (tempo, pitch, noise, reverb, telephone band),
all written as 16 kHz mono 16-bit WAV; and the text normalization both sides are scored with.
"""
import os
import re
import subprocess
import tempfile

# Dictation-like sentences; numbers written as words (the normalizer turns digits into words).
SENTENCES = [
    "Please send the report to the whole team before the end of the day.",
    "Let's meet on Thursday at three to review the budget.",
    "The quick brown fox jumps over the lazy dog.",
    "Can you book a table for four people at seven thirty tonight?",
    "I will be late to the meeting because my train was cancelled.",
    "Remind me to call the dentist tomorrow morning.",
    "The new release fixes twelve bugs and improves the search.",
    "Our sales grew by fifteen percent in the second quarter.",
    "Turn off the lights in the kitchen and lock the front door.",
    "The weather will be sunny with a high of twenty degrees.",
    "Add milk, eggs and bread to the shopping list.",
    "Thank you for your help with the presentation yesterday.",
    "We need to hire two more engineers before the summer.",
    "The package should arrive on Monday between nine and noon.",
    "Could you share the slides from this morning's talk?",
    "My flight leaves at six in the evening from gate eleven.",
    "The server went down last night and restarted twice.",
    "I think we should move the launch to next month.",
    "Write down the address and the phone number of the hotel.",
    "Everyone agreed that the design needs a simpler menu.",
    "Please review the pull request and leave your comments.",
    "The library closes at eight on weekdays and at five on Saturday.",
    "She finished the marathon in just under four hours.",
    "Let me know if you have any questions about the contract.",
    "The children are playing football in the park.",
    "We ordered pizza for the team after the long release.",
    "The museum is open every day except Tuesday.",
    "Set an alarm for six fifteen tomorrow morning.",
    "The battery lasts about ten hours on a single charge.",
    "Our next planning meeting is on the first of March.",
    "Please translate this message into French and Spanish.",
    "The coffee machine on the third floor is broken again.",
    "I moved the files to the shared folder on the server.",
    "Can we postpone the interview until next week?",
    "The train to London departs from platform nine.",
    "He forgot his umbrella and got wet on the way home.",
]

VOICES = ["en-us", "en-gb", "en-us+m3", "en-gb+f3", "en-us+f2", "en+m5"]

# sox effects for the "altered" recordings: a second pass over some sentences.
ALTERATIONS = [
    ("tempo", ["tempo", "1.15"]),
    ("pitch", ["pitch", "-300"]),
    ("reverb", ["reverb", "40"]),
    ("phone", ["highpass", "300", "lowpass", "3400"]),
]


def say(text, voice, path, speed=160, effects=None, noise=None):
    """Writes `text` spoken by espeak-ng `voice` as 16 kHz mono 16-bit WAV at `path`."""
    with tempfile.TemporaryDirectory() as tmp:
        raw = os.path.join(tmp, "raw.wav")
        subprocess.run(["espeak-ng", "-v", voice, "-s", str(speed), "-w", raw, text], check=True)
        step = os.path.join(tmp, "step.wav")
        subprocess.run(["sox", raw, "-r", "16000", "-c", "1", "-b", "16", step] + (effects or []), check=True,
                       stderr=subprocess.DEVNULL)
        if noise is not None:
            # White noise `noise` dB below full scale mixed in.
            length = subprocess.run(["soxi", "-D", step], check=True, capture_output=True, text=True).stdout.strip()
            hiss = os.path.join(tmp, "noise.wav")
            subprocess.run(["sox", "-n", "-r", "16000", "-c", "1", "-b", "16", hiss, "synth", length, "whitenoise",
                            "vol", str(10 ** (noise / 20))], check=True)
            subprocess.run(["sox", "-m", step, hiss, "-b", "16", path], check=True)
        else:
            os.replace(step, path)


def make_corpus(directory):
    """Every sentence in a voice of its own, then eight sentences altered by sox and two with
    noise; returns [(path, reference text, kind)]."""
    os.makedirs(directory, exist_ok=True)
    items = []
    for i, text in enumerate(SENTENCES):
        path = os.path.join(directory, f"s{i:02d}.wav")
        say(text, VOICES[i % len(VOICES)], path, speed=150 + 10 * (i % 4))
        items.append((path, text, "espeak"))
    for j, (name, effects) in enumerate(ALTERATIONS * 2):
        i = (7 * j + 3) % len(SENTENCES)
        path = os.path.join(directory, f"a{j:02d}-{name}.wav")
        say(SENTENCES[i], VOICES[(i + 1) % len(VOICES)], path, effects=effects)
        items.append((path, SENTENCES[i], "sox " + name))
    for j in range(2):
        i = (11 * j + 5) % len(SENTENCES)
        path = os.path.join(directory, f"n{j:02d}-noise.wav")
        say(SENTENCES[i], VOICES[(i + 2) % len(VOICES)], path, noise=-30)
        items.append((path, SENTENCES[i], "sox noise"))
    return items


# Recordings of people (not espeak-ng) with their transcripts, from the source package of
# pocketsphinx on PyPI (BSD licence; its test data): five sentences of a LibriVox reading of
# Sense and Sensibility (public domain), five spoken card names and "go forward ten meters".
REAL_SPEECH_PACKAGE = ("pocketsphinx", "5.1.1", "pocketsphinx-5.1.1.tar.gz",
                       "675778b309a22dfc9b7d37f7621976bba491d2a5f8c59696bd77fd6d07271355")


def real_speech(directory, cache=None):
    """The recordings of people as 16 kHz mono WAV in `directory`, fetched once from PyPI into
    `cache` (default ~/.cache/sotto-bench) and checked by SHA-256; returns [(path, text, "real")]."""
    import hashlib
    import json
    import tarfile
    import urllib.parse
    import urllib.request
    name, version, filename, digest = REAL_SPEECH_PACKAGE
    cache = cache or os.path.join(os.path.expanduser("~"), ".cache", "sotto-bench")
    os.makedirs(cache, exist_ok=True)
    archive = os.path.join(cache, filename)
    if not os.path.exists(archive):
        index = f"https://pypi.org/pypi/{name}/json"
        with urllib.request.urlopen(index, timeout=60) as answer:
            project = json.load(answer)
        files = project.get("releases", {}).get(version) or project["urls"]
        url = next(f["url"] for f in files if f["filename"] == filename)
        urllib.request.urlretrieve(urllib.parse.urljoin(index, url), archive + ".part")
        os.replace(archive + ".part", archive)
    with open(archive, "rb") as f:
        if hashlib.sha256(f.read()).hexdigest() != digest:
            raise SystemExit(f"{archive}: SHA-256 is not {digest}; delete it to fetch it again")
    os.makedirs(directory, exist_ok=True)
    base = f"{name}-{version}/test/data/"
    items = []
    with tarfile.open(archive) as tar:
        def read(member):
            return tar.extractfile(base + member).read()
        for fileid in read("librivox/fileids").decode().split():
            text = read(f"librivox/{fileid}.txt").decode().strip()
            path = os.path.join(directory, f"real-{fileid[-4:]}.wav")
            with open(path, "wb") as out:
                out.write(read(f"librivox/{fileid}.wav"))
            items.append((path, text, "real"))
        for line in read("cards/cards.transcription").decode().splitlines():
            match = re.match(r"<s>(.*)</s> \((\d+)\)", line.strip())
            if not match:
                continue
            path = os.path.join(directory, f"real-card-{match.group(2)}.wav")
            with open(path, "wb") as out:
                out.write(read(f"cards/{match.group(2)}.wav"))
            items.append((path, match.group(1).strip(), "real"))
        raw = os.path.join(directory, "goforward.raw")
        with open(raw, "wb") as out:
            out.write(read("goforward.raw"))
        path = os.path.join(directory, "real-goforward.wav")
        subprocess.run(["sox", "-t", "raw", "-r", "16000", "-e", "signed", "-b", "16", "-c", "1", raw, path], check=True)
        items.append((path, "go forward ten meters", "real"))
    return items


def concatenate(paths, path, gap=0.4):
    """The clips one after another with `gap` seconds of silence between them."""
    with tempfile.TemporaryDirectory() as tmp:
        silence = os.path.join(tmp, "gap.wav")
        subprocess.run(["sox", "-n", "-r", "16000", "-c", "1", "-b", "16", silence, "trim", "0", str(gap)], check=True)
        args = []
        for p in paths:
            args += [p, silence]
        subprocess.run(["sox"] + args[:-1] + [path], check=True)


def duration(path):
    return float(subprocess.run(["soxi", "-D", path], check=True, capture_output=True, text=True).stdout)


ONES = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
        "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen"]
TENS = ["", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
ORDINALS = {"1st": "first", "2nd": "second", "3rd": "third", "4th": "fourth", "5th": "fifth"}


def number_words(n):
    if n < 20:
        return ONES[n]
    if n < 100:
        return TENS[n // 10] + ("" if n % 10 == 0 else " " + ONES[n % 10])
    if n < 1000:
        return ONES[n // 100] + " hundred" + ("" if n % 100 == 0 else " " + number_words(n % 100))
    return number_words(n // 1000) + " thousand" + ("" if n % 1000 == 0 else " " + number_words(n % 1000))


def normalize(text):
    """Lowercase words: digits as words (times `7:30` as `seven thirty`, `15%` as `fifteen
    percent`), punctuation and o'clock dropped, British and American spelling of the words used
    here made one, Mr as mister."""
    text = text.lower()
    for short, word in ORDINALS.items():
        text = text.replace(short, word)
    text = re.sub(r"(\d+):(\d\d)", lambda m: number_words(int(m.group(1))) + ("" if m.group(2) == "00" else " " + number_words(int(m.group(2)))), text)
    text = re.sub(r"(\d+)\s*%", lambda m: number_words(int(m.group(1))) + " percent", text)
    text = re.sub(r"\d+", lambda m: number_words(int(m.group(0))), text)
    text = text.replace("o'clock", "").replace("p.m.", "pm").replace("a.m.", "am").replace("-", " ")
    text = text.replace("canceled", "cancelled").replace("'s", "s").replace("metres", "meters")
    text = re.sub(r"[^a-z ]", " ", text)
    # Titles as the transcripts of the recordings spell them.
    words = [{"mr": "mister", "mrs": "missus"}.get(word, word) for word in text.split()]
    return " ".join(words)
