# A Blaise runner, and nothing else: no base image, no shell, no package manager. Built by
# `deploy/container/build-image target/release/blaise-runner blaise-runner:TAG`, which puts the
# binary, the loader and the libraries it links (as `ldd` finds them on the build machine) and
# the machine's CA certificates in `root/`.
#
# The image holds no agent and none of the programs plugs may run (git, bwrap, docker): it suits
# agents and plugs that need none, or is the last stage of an image that copies them in.
# Run, with blaise.yml in ./config:
#   docker run -d -v "$PWD/config:/etc/blaise:ro" -e BLAISE_URL=https://blaise.example \
#     -e BLAISE_RUNNER_TOKEN=blr_… blaise-runner:TAG
FROM scratch
COPY root/ /
# Workspaces and outboxes (data), pulled and compiled plugs (cache): owned by the runner's user.
COPY --chown=65532:65532 state/ /var/lib/blaise-runner/
COPY --chown=65532:65532 state/ /var/cache/blaise/
USER 65532:65532
WORKDIR /etc/blaise
ENV BLAISE_DATA_DIR=/var/lib/blaise-runner \
    BLAISE_CACHE_DIR=/var/cache/blaise \
    HOME=/var/lib/blaise-runner
VOLUME ["/var/lib/blaise-runner", "/var/cache/blaise"]
ENTRYPOINT ["/usr/local/bin/blaise-runner"]
CMD ["start", "--config", "/etc/blaise/blaise.yml"]
