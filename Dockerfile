# tokenproxy in a container: one image for every role (api, tracker, deliverer), chosen by the
# command. Not built on the machine this project is written on (no container runtime there):
# test/deploy/deploy-files.test.ts checks its commands, files and Node version instead.
#   docker build -t tokenproxy .
#   docker compose -f deploy/compose.yaml up     (PostgreSQL, two api instances, tracker, deliverer)

FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json tsconfig.json tsconfig.build.json ./
COPY bin ./bin
COPY src ./src
# npm ci runs `prepare`, which compiles src/ into dist/; then the dev dependencies go.
RUN npm ci --no-audit --no-fund && npm prune --omit=dev --no-audit --no-fund

FROM node:20-bookworm-slim
ENV NODE_ENV=production \
    TOKENPROXY_DATA_DIR=/data \
    TOKENPROXY_HOST=0.0.0.0
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/bin ./bin
COPY --from=build /app/src/store/migrations ./src/store/migrations
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME /data
EXPOSE 3000
ENTRYPOINT ["node", "bin/tokenproxy.js"]
CMD ["start"]
