#!/usr/bin/env bash
# Installs the container engine the agentruntime container tests use (podman + runc, from Debian's
# packages) when podman is missing, then prints the versions. Idempotent; needs root (CI runs as root).
# The engine must be pointed at .ci/containers.conf: export CONTAINERS_CONF="$PWD/.ci/containers.conf".
set -euo pipefail

if ! command -v podman >/dev/null 2>&1 || ! command -v runc >/dev/null 2>&1; then
  echo "installing podman and runc"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq podman runc >/dev/null
fi

podman --version
runc --version | head -n 1
