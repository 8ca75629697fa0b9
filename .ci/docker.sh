#!/usr/bin/env bash
# Makes a Docker engine answer on this machine and gives it the docker backend's base image.
#
# Idempotent: each step is skipped when its result is already there, so a second call takes
# seconds. Steps: install docker.io and debootstrap (only the missing ones); start dockerd in
# the background when no engine answers; build the base image from a debootstrap root file
# system (no registry can be pulled from here), keeping the rootfs tarball in a cache so the
# image can be re-imported without downloading again. Needs root; reads no standard input.
#
# Environment: TESTJACK_BASE_IMAGE (default testjack/base:bookworm), TESTJACK_CACHE_DIR
# (default /var/cache/testjack), TESTJACK_LOG_DIR (default /var/log/testjack; dockerd.log is
# there), TESTJACK_DEBIAN_MIRROR (default: the mirror apt already uses).
set -euo pipefail

BASE_IMAGE=${TESTJACK_BASE_IMAGE:-testjack/base:bookworm}
CACHE_DIR=${TESTJACK_CACHE_DIR:-/var/cache/testjack}
LOG_DIR=${TESTJACK_LOG_DIR:-/var/log/testjack}
SUITE=bookworm
PACKAGES=python3,python3-pytest,python3-coverage,python-is-python3
# Changing the recipe changes this stamp, which invalidates the cached tarball and the image.
RECIPE="$SUITE|minbase|$PACKAGES|user tester uid 1000|v1"
RECIPE_ID=$(printf '%s' "$RECIPE" | sha256sum | cut -c1-12)
TARBALL="$CACHE_DIR/base-rootfs-$SUITE-$RECIPE_ID.tar"
ENGINE_WAIT=${TESTJACK_ENGINE_WAIT:-60}

export DEBIAN_FRONTEND=noninteractive NEEDRESTART_SUSPEND=1
START=$SECONDS
say() { printf '[docker.sh +%ss] %s\n' "$((SECONDS - START))" "$*"; }

engine_answers() { docker info >/dev/null 2>&1; }

wait_for_engine() {  # $1: pid of the dockerd we started
    local deadline=$((SECONDS + ENGINE_WAIT))
    while ((SECONDS < deadline)); do
        engine_answers && return 0
        kill -0 "$1" 2>/dev/null || return 1  # dockerd died: no point waiting
        sleep 0.5
    done
    return 1
}

start_dockerd() {  # "$@": extra dockerd flags
    mkdir -p "$LOG_DIR"
    say "starting dockerd $* (log: $LOG_DIR/dockerd.log)"
    # setsid + nohup: the engine outlives this script and the shell that called it.
    setsid nohup dockerd "$@" >>"$LOG_DIR/dockerd.log" 2>&1 </dev/null &
    local pid=$!
    if wait_for_engine "$pid"; then
        echo "$pid" >"$LOG_DIR/dockerd.pid"
        return 0
    fi
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    return 1
}

# The mirror apt uses here, so debootstrap goes where apt already goes.
debian_mirror() {
    if [[ -n ${TESTJACK_DEBIAN_MIRROR:-} ]]; then echo "$TESTJACK_DEBIAN_MIRROR"; return; fi
    local uri
    uri=$(grep -rhoE '(URIs:|^deb)[[:space:]]+[^[:space:]]+/debian/?([[:space:]]|$)' \
        /etc/apt/sources.list /etc/apt/sources.list.d/ 2>/dev/null | awk '{print $2}' | head -n1 || true)
    echo "${uri%/}"
}

# 1. Packages.
missing=()
command -v dockerd >/dev/null 2>&1 || missing+=(docker.io)
command -v debootstrap >/dev/null 2>&1 || missing+=(debootstrap)
if ((${#missing[@]})); then
    say "installing ${missing[*]}"
    apt-get update -q >/dev/null
    apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
fi
say "packages ready"

# 2. The engine. Default flags work on a normal VM (overlay2, iptables, cgroupfs); the
# fallback is for sandboxes without overlayfs or iptables: vfs storage and no bridge (the
# backend runs every container with network_mode=none anyway).
if engine_answers; then
    say "engine already answers"
elif start_dockerd; then
    say "engine answers (default flags)"
elif start_dockerd --storage-driver=vfs --iptables=false --ip-masq=false --bridge=none; then
    say "engine answers (fallback flags: vfs, no iptables, no bridge)"
else
    say "the Docker engine did not answer within ${ENGINE_WAIT}s; last log lines:"
    tail -n 30 "$LOG_DIR/dockerd.log" >&2 || true
    exit 1
fi

# 3. The base image.
# The recipe is a label, not an ENV: labels are invisible from inside a container, and nothing a
# test can read should name TestJack (issue 36).
image_recipe() {
    docker image inspect --format '{{range $k, $v := .Config.Labels}}{{$k}}={{$v}}{{println}}{{end}}' \
        "$BASE_IMAGE" 2>/dev/null | sed -n 's/^org\.testjack\.recipe=//p'
}
if [[ $(image_recipe) == "$RECIPE_ID" ]]; then
    say "image $BASE_IMAGE already built (recipe $RECIPE_ID)"
    exit 0
fi

if [[ ! -s $TARBALL ]]; then
    mkdir -p "$CACHE_DIR"
    root=$(mktemp -d /var/tmp/testjack-rootfs.XXXXXX)
    trap 'rm -rf --one-file-system "$root"' EXIT
    mirror=$(debian_mirror)
    say "debootstrap $SUITE into $root (mirror: ${mirror:-debootstrap default})"
    debootstrap --variant=minbase --include="$PACKAGES" "$SUITE" "$root" ${mirror:+"$mirror"} \
        >"$LOG_DIR/debootstrap.log" 2>&1 || {
        tail -n 30 "$LOG_DIR/debootstrap.log" >&2
        exit 1
    }
    chroot "$root" useradd --create-home --uid 1000 --user-group --shell /bin/bash tester
    # Smaller image: nothing in it installs packages later (containers have no network).
    rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/*.bin "$root"/var/cache/apt/archives/*.deb
    tar --numeric-owner -C "$root" -cf "$TARBALL.part" .
    mv "$TARBALL.part" "$TARBALL"
    say "rootfs cached in $TARBALL ($(du -h "$TARBALL" | cut -f1))"
fi

say "importing $TARBALL as $BASE_IMAGE"
docker import \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'ENV LANG=C.UTF-8' \
    --change "LABEL org.testjack.recipe=$RECIPE_ID" \
    --change 'CMD ["/bin/bash"]' \
    "$TARBALL" "$BASE_IMAGE" >/dev/null
say "image $BASE_IMAGE ready"
