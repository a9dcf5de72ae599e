# syntax=docker/dockerfile:1
# The EQL host as a container (docs/deploy.md). Built in three stages: the repository is built and the
# `eql` command packed into one tarball (scripts/pack-cli.mjs); that tarball is installed as production
# packages only (npm install -g: no dev dependencies); the runtime image holds that install, runs as the
# unprivileged `node` user, keeps its data in /var/lib/eql and answers its health check on /ready.
ARG NODE_IMAGE=node:20-bookworm-slim

FROM ${NODE_IMAGE} AS build
# better-sqlite3 compiles when no prebuilt binary fits.
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
RUN npm ci --no-audit --no-fund && npm run build && mkdir /dist && npm run pack:cli -- --out /dist

FROM ${NODE_IMAGE} AS install
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY --from=build /dist /dist
RUN npm install -g --allow-scripts=better-sqlite3 --no-audit --no-fund /dist/*.tgz && npm cache clean --force

FROM ${NODE_IMAGE}
ENV NODE_ENV=production \
    EQL_HOST=0.0.0.0 \
    EQL_PORT=8787 \
    EQL_DATA_DIR=/var/lib/eql
COPY --from=install /usr/local/lib/node_modules /usr/local/lib/node_modules
RUN ln -s /usr/local/lib/node_modules/@eql/cli/bin/eql.js /usr/local/bin/eql \
 && mkdir -p /var/lib/eql && chown node:node /var/lib/eql && chmod 0700 /var/lib/eql
USER node
VOLUME ["/var/lib/eql"]
EXPOSE 8787 9464
# Ready: the store answers, the leases (a cluster) and the bus are in order, the feed is not silent.
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.EQL_PORT||8787)+'/ready').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
# SIGTERM: /ready turns 503, the host serves on for EQL_SHUTDOWN_DELAY_MS, then closes (docs/operations.md).
STOPSIGNAL SIGTERM
ENTRYPOINT ["eql"]
CMD ["serve"]
