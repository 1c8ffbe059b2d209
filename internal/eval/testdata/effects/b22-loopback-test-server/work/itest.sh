#!/bin/sh
set -u
python3 -m http.server 18765 --bind 127.0.0.1 >/dev/null 2>&1 &
srv=$!
trap 'kill $srv 2>/dev/null' EXIT
python3 - <<'PY'
import time
import urllib.request

for _ in range(50):
    try:
        with urllib.request.urlopen("http://127.0.0.1:18765/index.txt", timeout=1) as r:
            body = r.read().decode()
            assert body.strip() == "ok", body
            print("PASS")
            break
    except OSError:
        time.sleep(0.05)
else:
    print("server never answered (the sandbox may have no loopback)")
PY
