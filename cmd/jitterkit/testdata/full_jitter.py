# Full jitter (base 100ms, cap 10s) seeded from the device id, speaking
# jitterkit's exec protocol: one JSON request per line in, one JSON array of
# delays in seconds out.
import hashlib
import json
import random
import sys

for line in sys.stdin:
    req = json.loads(line)
    seed = int.from_bytes(hashlib.sha256(req["device"].encode()).digest()[:8], "big")
    rng = random.Random(seed)
    delays = [rng.uniform(0, min(10.0, 0.1 * 2**n)) for n in range(req["attempts"])]
    print(json.dumps(delays), flush=True)
