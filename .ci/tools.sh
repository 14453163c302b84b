# The real tools the environment plugs drive: git, bubblewrap, a Docker daemon
# (and busybox for the locally built test image: no registry is reachable),
# and PostgreSQL for the control plane's second store.
# Sourced by .ci/run. Idempotent: a daemon already answering is used as is, and
# only a daemon started here is stopped (with what it left: docker0, iptables).

CI_DOCKER_ROOT=/var/lib/blaise-ci-docker
CI_DOCKER_EXEC=/run/blaise-ci-docker
CI_DOCKER_PID=/run/blaise-ci-dockerd.pid
CI_DOCKER_LOG=/tmp/blaise-ci-dockerd.log

tools_install() {
  local missing=()
  command -v git >/dev/null || missing+=(git)
  command -v bwrap >/dev/null || missing+=(bubblewrap)
  command -v dockerd >/dev/null || missing+=(docker.io)
  command -v busybox >/dev/null || missing+=(busybox-static)
  # Clients and a TLS server for the egress tests (the agent's curl, perl's
  # sockets, `openssl s_server` as an HTTPS destination).
  command -v curl >/dev/null || missing+=(curl)
  command -v openssl >/dev/null || missing+=(openssl)
  command -v perl >/dev/null || missing+=(perl)
  # The control plane's PostgreSQL pass starts its own server from these
  # programs (control/tests/control/pg.rs); the package's own cluster is unused.
  compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null || missing+=(postgresql)
  if [ ${#missing[@]} -gt 0 ]; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
  fi
}

dockerd_start() {
  if docker info >/dev/null 2>&1; then
    echo "tools: using the Docker daemon that is already running"
    return 0
  fi
  mkdir -p "$CI_DOCKER_ROOT" "$CI_DOCKER_EXEC"
  CI_STARTED_DOCKERD=1
  # No bridge and no iptables rules: the tests use `--network none`, and
  # nothing is left on the host's network when the daemon stops.
  dockerd --data-root "$CI_DOCKER_ROOT" --exec-root "$CI_DOCKER_EXEC" \
    --pidfile "$CI_DOCKER_PID" -H unix:///var/run/docker.sock \
    --bridge=none --iptables=false --ip6tables=false --ip-masq=false \
    >"$CI_DOCKER_LOG" 2>&1 &
  for _ in $(seq 1 60); do
    if docker info >/dev/null 2>&1; then
      echo "tools: started dockerd (pid $(cat "$CI_DOCKER_PID"))"
      return 0
    fi
    sleep 0.5
  done
  echo "tools: dockerd did not start:" >&2
  tail -n 30 "$CI_DOCKER_LOG" >&2
  return 1
}

dockerd_stop() {
  # Only the daemon this script started; one that was running stays.
  [ "${CI_STARTED_DOCKERD:-}" = 1 ] && [ -f "$CI_DOCKER_PID" ] || return 0
  local pid
  pid=$(cat "$CI_DOCKER_PID")
  # Containers the tests may have left would show up here; the tests check
  # for leaks themselves, this only keeps the machine clean.
  docker ps -aq --filter label=blaise.session | xargs -r docker rm -f -v >/dev/null 2>&1 || true
  kill "$pid" 2>/dev/null || true
  for _ in $(seq 1 40); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.5
  done
  rm -f "$CI_DOCKER_PID"
  echo "tools: stopped dockerd"
}
