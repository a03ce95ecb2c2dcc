# tokenproxy in a container: one image for every role (api, tracker with the writer, deliverer),
# chosen by the command. Not built on the machine this project is written on (no container
# runtime there): test/deploy/container-files.test.ts checks its commands, files and Node
# version instead.
#   docker build -t tokenproxy .
#   docker compose -f deploy/compose.yaml up     (PostgreSQL, two api instances, tracker, deliverer)

FROM node:24-bookworm-slim AS build
# The secp256k1 package ships a prebuilt binary for linux-x64 only; elsewhere (arm64) npm ci
# compiles libsecp256k1 with these, and its install script exits 0 even when it cannot.
RUN apt-get update \
    && apt-get install -y --no-install-recommends python3 make g++ \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json tsconfig.json tsconfig.build.json ./
COPY bin ./bin
COPY src ./src
# npm ci runs `prepare`, which compiles src/ into dist/; then the dev dependencies go.
RUN npm ci --no-audit --no-fund && npm prune --omit=dev --no-audit --no-fund
# Fail the build, not the first start, when the native binding is missing (a platform with no
# prebuilt binary and a compile that failed).
RUN node -e "require('secp256k1/bindings')"

FROM node:24-bookworm-slim
ENV NODE_ENV=production \
    TOKENPROXY_DATA_DIR=/data \
    TOKENPROXY_HOST=0.0.0.0
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/bin ./bin
COPY --from=build /app/src/store/migrations ./src/store/migrations
COPY --from=build /app/src/http/console/static ./src/http/console/static
RUN node -e "require('secp256k1/bindings')" && mkdir -p /data && chown node:node /data
USER node
VOLUME /data
EXPOSE 3000
# Ready when its roles' loops are live: GET /readyz on the process's port (PORT, else 3000; a
# process started with another --port gets its healthcheck from compose, as the tracker's does).
HEALTHCHECK --interval=10s --timeout=3s --start-period=60s --retries=3 \
    CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || process.env.TOKENPROXY_PORT || 3000) + '/readyz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["node", "bin/tokenproxy.js"]
CMD ["start"]
