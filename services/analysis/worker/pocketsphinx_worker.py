"""Speech-recognition worker of the analysis service (CMU PocketSphinx, US English model from the wheel).

Kept warm by the service: reads one JSON request per line on stdin and answers one JSON line on stdout.
  request:  {"id": 1, "rate": 16000, "audio": "<base64 of 16-bit little-endian mono PCM>"}
  response: {"id": 1, "words": [{"word": "hello", "start": 0.31, "end": 0.62, "p": 0.93}], "seconds": 0.4, "cpu": 0.38}
            or {"id": 1, "error": "..."}
The first line it prints is {"ready": true, "engine": ..., "language": "en-US"} once the model is loaded.
"""

import base64
import json
import sys
import time

from pocketsphinx import Decoder

FRAME_RATE = 100  # pocketsphinx frames per second (10 ms)
RATE = 16000


def words_of(decoder):
    """Words with times and posterior probabilities, fillers and silences left out."""
    out = []
    for seg in decoder.seg():
        word = seg.word
        if word.startswith("<") or word.startswith("[") or word.startswith("++"):
            continue
        paren = word.find("(")  # alternative pronunciations are spelt word(2)
        if paren > 0:
            word = word[:paren]
        out.append(
            {
                "word": word,
                "start": round(seg.start_frame / FRAME_RATE, 2),
                "end": round((seg.end_frame + 1) / FRAME_RATE, 2),
                "p": round(min(1.0, max(0.0, seg.prob)), 4),
            }
        )
    return out


def main():
    # fwdflat off: the flat-lexicon second pass costs ~2.5x the time for no gain on the fixtures (measured).
    decoder = Decoder(samprate=RATE, loglevel="FATAL", fwdflat=False)
    print(json.dumps({"ready": True, "engine": "pocketsphinx", "language": "en-US"}), flush=True)
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        req_id = None
        try:
            req = json.loads(line)
            req_id = req.get("id")
            if req.get("rate") != RATE:
                raise ValueError("audio must be 16000 Hz")
            audio = base64.b64decode(req["audio"])
            started = time.monotonic()
            cpu_started = time.process_time()
            decoder.start_utt()
            decoder.process_raw(audio, full_utt=True)
            decoder.end_utt()
            result = {
                "id": req_id,
                "words": words_of(decoder),
                "seconds": round(time.monotonic() - started, 3),
                "cpu": round(time.process_time() - cpu_started, 3),
            }
        except Exception as err:  # one bad request must not stop the warm worker
            result = {"id": req_id, "error": str(err)[:500]}
        print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
