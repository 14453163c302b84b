# The Blaise control plane, and nothing else: no base image, no shell, no package manager.
# Built by `deploy/container/build-image target/release/blaise blaise:TAG`, which puts the
# binary, the loader and the libraries it links (as `ldd` finds them on the build machine) in
# `root/`. Run:
#   docker run -d -p 7777:7777 -v blaise-state:/var/lib/blaise -e BLAISE_TOKEN=… blaise:TAG
FROM scratch
COPY root/ /
# The database lives here: keep it on a volume. Owned by the user blaise runs as.
COPY --chown=65532:65532 state/ /var/lib/blaise/
USER 65532:65532
WORKDIR /var/lib/blaise
ENV BLAISE_DB=/var/lib/blaise/blaise.db \
    BLAISE_LISTEN=0.0.0.0:7777 \
    BLAISE_URL=http://127.0.0.1:7777
EXPOSE 7777
VOLUME ["/var/lib/blaise"]
# `blaise status` asks BLAISE_URL (no token): change it with BLAISE_LISTEN, and for HTTPS set it
# to https://… with BLAISE_CA_FILE naming a CA that signed the certificate.
HEALTHCHECK --interval=5s --timeout=5s --retries=3 CMD ["/usr/local/bin/blaise", "status"]
ENTRYPOINT ["/usr/local/bin/blaise"]
CMD ["serve"]
