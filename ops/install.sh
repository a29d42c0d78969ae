#!/usr/bin/env bash
# Installs CareBridge on a clinic server (Debian 12+/Ubuntu 22.04+) as a systemd service behind
# Caddy (HTTPS), with nightly backups (README "Install on a clinic server", decision 0071).
# Run as root from the clone, e.g. /opt/carebridge:
#
#   sudo SITE=carebridge.example.org ADMIN_EMAIL=it@clinic.example \
#        BACKUP_REPOSITORY=/mnt/carebridge-backup/restic ops/install.sh
#
# Safe to run again (after `git pull`, or to change a setting): it keeps what is there and
# rewrites only what it manages. tests/integration/install.test.ts runs it in a temporary prefix.
set -euo pipefail

APP_DIR=${APP_DIR:-$(cd "$(dirname "$0")/.." && pwd)} # the clone; the service runs its build
SITE=${SITE:?"SITE: the name clients use, e.g. SITE=carebridge.example.org (public) or SITE=carebridge.lan"}
TLS=${TLS:-public}                        # public: Let's Encrypt; internal: Caddy's own CA (a LAN name)
APP_USER=${APP_USER:-carebridge}          # the service's user (created when missing)
APP_PORT=${APP_PORT:-3000}                # the app listens on 127.0.0.1:APP_PORT, Caddy in front
STATE_DIR=${STATE_DIR:-/var/lib/carebridge} # data/ and uploads/
CONF_DIR=${CONF_DIR:-/etc/carebridge}     # env (the settings), first-admin
CACHE_DIR=${CACHE_DIR:-/var/cache/carebridge}
UNIT_DIR=${UNIT_DIR:-/etc/systemd/system}
CADDY_DIR=${CADDY_DIR:-/etc/caddy}
BIN_DIR=${BIN_DIR:-/usr/local/sbin}       # the `carebridge` command
BACKUP_REPOSITORY=${BACKUP_REPOSITORY:-}  # a folder on a backup disk, sftp:user@host:/path or s3:…
BACKUP_AT=${BACKUP_AT:-02:30}             # local time of the nightly backup
ADMIN_EMAIL=${ADMIN_EMAIL:-}              # the first admin, created once
SYSTEMCTL=${SYSTEMCTL:-systemctl}
SKIP_BUILD=${SKIP_BUILD:-0}               # 1: the clone is already installed and built

say() { printf '== %s\n' "$*"; }
die() {
  printf 'install.sh: %s\n' "$*" >&2
  exit 1
}
[ "$TLS" = public ] || [ "$TLS" = internal ] || die "TLS must be public or internal (got $TLS)"
[ -f "$APP_DIR/ops/systemd/carebridge.service" ] || die "APP_DIR=$APP_DIR is not a CareBridge clone"

say "1. Debian packages: Caddy (HTTPS), restic (backups), the lab reader's tools (poppler, Tesseract, ffmpeg)"
missing=()
command -v caddy >/dev/null || missing+=(caddy)
command -v restic >/dev/null || missing+=(restic)
command -v systemd-analyze >/dev/null || missing+=(systemd)
# Lab values read from reports (decision 0082): a PDF's text layer and its pages (poppler), pictures
# (Tesseract, English data), WebP photos as the upload screen sends them (ffmpeg decodes them).
command -v pdftotext >/dev/null || missing+=(poppler-utils)
command -v tesseract >/dev/null || missing+=(tesseract-ocr tesseract-ocr-eng)
command -v ffmpeg >/dev/null || missing+=(ffmpeg)
# Every outside program runs under prlimit's memory, CPU and file-size limits (decision 0086).
[ -x /usr/bin/prlimit ] || missing+=(util-linux)
if [ ${#missing[@]} -gt 0 ]; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
command -v npm >/dev/null || die "npm is missing: install Node.js 20 or later (README, step 1)"
node_major=$(node -p 'process.versions.node.split(".")[0]')
[ "$node_major" -ge 20 ] || die "npm runs on Node $node_major: Node.js 20 or later is needed (README, step 1)"

say "2. The service's user: $APP_USER"
if ! getent passwd "$APP_USER" >/dev/null; then
  useradd --system --user-group --home-dir "$STATE_DIR" --no-create-home --shell /usr/sbin/nologin "$APP_USER"
fi
APP_GROUP=$(id -gn "$APP_USER")

say "3. The app: npm install and build in $APP_DIR"
if [ "$SKIP_BUILD" != 1 ]; then
  (cd "$APP_DIR" && npm install --no-audit --no-fund && npm run build)
fi
[ -f "$APP_DIR/build/main.js" ] || die "no build in $APP_DIR/build (npm run build)"

say "4. Folders: $STATE_DIR/{data,uploads} ($APP_USER, 0700)"
install -d -m 0700 -o "$APP_USER" -g "$APP_GROUP" "$STATE_DIR" "$STATE_DIR/data" "$STATE_DIR/uploads" "$CACHE_DIR"
install -d -m 0755 "$CONF_DIR" "$UNIT_DIR" "$CADDY_DIR" "$BIN_DIR"
case "$BACKUP_REPOSITORY" in
  "" | sftp:* | s3:* | rest:* | rclone:* | b2:* | azure:* | gs:* | swift:*) ;;
  /*) install -d -m 0700 -o "$APP_USER" -g "$APP_GROUP" "$BACKUP_REPOSITORY" ;;
  *) die "BACKUP_REPOSITORY: an absolute folder, sftp:… or s3:… (got $BACKUP_REPOSITORY)" ;;
esac

say "5. Settings: $CONF_DIR/env (root:$APP_GROUP 0640; other lines are kept)"
env_file=$CONF_DIR/env
if [ ! -f "$env_file" ]; then
  cat >"$env_file" <<'EOF'
# CareBridge's settings, read by carebridge.service (EnvironmentFile) and the `carebridge` command.
# One NAME=value a line; put a value with spaces or JSON in single quotes. Every name is in the
# README's "Configuration". ops/install.sh manages HOST, PORT, TRUST_PROXY, APP_URL, BACKUP_*.
# Restart after a change: systemctl restart carebridge
EOF
fi
set_env() { # NAME VALUE: replaces the line NAME=… where it is, or adds it at the end
  local tmp
  tmp=$(mktemp "$env_file.XXXXXX")
  awk -v name="$1" -v value="$2" '
    index($0, name "=") == 1 { if (!done) print name "=" value; done = 1; next }
    { print }
    END { if (!done) print name "=" value }' "$env_file" >"$tmp"
  cat "$tmp" >"$env_file"
  rm -f "$tmp"
}
set_env HOST 127.0.0.1
set_env PORT "$APP_PORT"
set_env TRUST_PROXY 127.0.0.1
set_env APP_URL "https://$SITE"
[ -z "$BACKUP_REPOSITORY" ] || set_env BACKUP_REPOSITORY "$BACKUP_REPOSITORY"
set_env BACKUP_AT "$BACKUP_AT"
chown "root:$APP_GROUP" "$env_file"
chmod 0640 "$env_file"

say "6. The service: $UNIT_DIR/carebridge.service"
unit=$UNIT_DIR/carebridge.service
backup_dir=/mnt/carebridge-backup
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
case "$BACKUP_REPOSITORY" in /*) backup_dir=$BACKUP_REPOSITORY ;; esac
sed -e "s|/opt/carebridge|$APP_DIR|g" \
  -e "s|/var/lib/carebridge|$STATE_DIR|g" \
  -e "s|/var/cache/carebridge|$CACHE_DIR|g" \
  -e "s|/etc/carebridge|$CONF_DIR|g" \
  -e "s|/mnt/carebridge-backup|$backup_dir|g" \
  -e "s|/usr/local/sbin/carebridge|$BIN_DIR/carebridge|g" \
  -e "s|^User=carebridge$|User=$APP_USER|" \
  -e "s|^Group=carebridge$|Group=$APP_GROUP|" \
  "$APP_DIR/ops/systemd/carebridge.service" >"$scratch/carebridge.service"
# verify exits 0 on a misspelt key or a bad value: any output is a failure.
verified=$(systemd-analyze verify "$scratch/carebridge.service" 2>&1) || die "systemd-analyze verify: $verified"
[ -z "$verified" ] || die "systemd-analyze verify: $verified"
install -m 0644 "$scratch/carebridge.service" "$unit"
cat >"$BIN_DIR/carebridge" <<EOF
#!/bin/sh
# carebridge SCRIPT [-- ARGS]: one of the app's npm scripts (backup, restore, admin:create…) as
# the service's user, with the service's environment. Written by ops/install.sh.
set -eu
UNIT=$unit
EOF
cat >>"$BIN_DIR/carebridge" <<'EOF'
user=$(sed -n 's/^User=//p' "$UNIT")
cd "$(sed -n 's/^WorkingDirectory=//p' "$UNIT")"
env_file=$(sed -n 's/^EnvironmentFile=-\{0,1\}//p' "$UNIT")
home=$(getent passwd "$user" | cut -d: -f6)
cache=$(sed -n 's/^Environment=XDG_CACHE_HOME=//p' "$UNIT")
# --password-file F (the recovery sheet's password, typed into a file only root reads): the
# service's user gets a copy in a private folder, removed when the script ends (decision 0091).
handoff=
for arg in "$@"; do
  case "$arg" in --password-file | --password-file=*) handoff=$(mktemp -d) ;; esac
done
if [ -n "$handoff" ]; then
  trap 'rm -rf "$handoff"' EXIT
  chown "$user" "$handoff"
  chmod 0700 "$handoff"
  n=$#
  take=0
  for arg in "$@"; do
    if [ "$take" = 1 ]; then
      install -m 0400 -o "$user" -- "$arg" "$handoff/password"
      arg=$handoff/password
      take=0
    else
      case "$arg" in
        --password-file) take=1 ;;
        --password-file=*)
          install -m 0400 -o "$user" -- "${arg#--password-file=}" "$handoff/password"
          arg=--password-file=$handoff/password
          ;;
      esac
    fi
    set -- "$@" "$arg"
  done
  shift "$n"
fi
# shellcheck disable=SC2046 # one NAME=value a word, as the unit writes them
set -- runuser -u "$user" -- env -i HOME="$home" USER="$user" npm_config_cache="$cache/npm" \
  $(sed -n 's/^Environment=//p' "$UNIT") \
  sh -c 'set -a; . "$0"; set +a; exec npm run --silent "$@"' "$env_file" "$@"
if [ -z "$handoff" ]; then exec "$@"; fi
status=0
"$@" || status=$?
exit "$status"
EOF
chmod 0755 "$BIN_DIR/carebridge"

if [ -n "$ADMIN_EMAIL" ] && [ ! -f "$CONF_DIR/first-admin" ]; then
  say "   the first admin: $ADMIN_EMAIL (password in $CONF_DIR/first-admin, root only)"
  password=$(head -c 18 /dev/urandom | base64 | tr '+/' '-_')
  (umask 077 && printf '%s\n%s\n' "$ADMIN_EMAIL" "$password" >"$CONF_DIR/first-admin")
  # --password=VALUE: the generated password may begin with "-" (base64url), which the separate form
  # would take for an option and refuse.
  "$BIN_DIR/carebridge" admin:create -- --email "$ADMIN_EMAIL" --password="$password" || {
    rm -f "$CONF_DIR/first-admin"
    die "the first admin was not created (above: why)"
  }
fi
$SYSTEMCTL daemon-reload
$SYSTEMCTL enable carebridge.service
$SYSTEMCTL restart carebridge.service

say "7. HTTPS: $CADDY_DIR/Caddyfile for https://$SITE ($TLS certificate)"
caddyfile=$CADDY_DIR/Caddyfile
if [ -f "$caddyfile" ] && ! grep -q '^# CareBridge behind Caddy' "$caddyfile" && [ ! -f "$caddyfile.orig" ]; then
  cp -p "$caddyfile" "$caddyfile.orig" # the package's own welcome page, kept once
fi
sed -e "s|^carebridge\.example\.org {$|$SITE {|" \
  -e "s|^\(\s*reverse_proxy\) 127\.0\.0\.1:3000\b|\1 127.0.0.1:$APP_PORT|" \
  "$APP_DIR/ops/caddy/Caddyfile" >"$caddyfile.new"
[ "$TLS" = internal ] || sed -i '/^\s*tls internal$/d' "$caddyfile.new"
# caddy validate provisions its internal CA: in the scratch folder, not in the service's storage.
valid=$(XDG_DATA_HOME=$scratch XDG_CONFIG_HOME=$scratch caddy validate --config "$caddyfile.new" --adapter caddyfile 2>&1) ||
  die "caddy validate: $valid"
mv "$caddyfile.new" "$caddyfile"
chmod 0644 "$caddyfile"
$SYSTEMCTL reload-or-restart caddy.service

say "Done. Next: open https://$SITE, sign in as the first admin (sudo cat $CONF_DIR/first-admin),"
say "set up two-step login, change the password, then Service → print the recovery sheet."
