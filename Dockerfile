# syntax=docker/dockerfile:1
# Multi-stage: compile and install production dependencies in one stage, run as a non-root user in the next.
FROM node:22-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json tsconfig.json tsconfig.build.json ./
COPY bin ./bin
COPY src ./src
COPY strategies ./strategies
# npm ci runs the project's prepare script: tsc compiles src/ and strategies/ to dist/.
RUN npm ci --no-audit --no-fund && npm prune --omit=dev --no-audit --no-fund

FROM node:22-bookworm-slim AS runtime
ENV NODE_ENV=production
# Run the compiled JavaScript without comparing it with the sources (no compiler in this image).
ENV STRATD_RUNTIME=dist
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json package-lock.json tsconfig.json ./
COPY bin ./bin
# The sources stay for strategies written in TypeScript that import them (loaded through tsx).
COPY src ./src
COPY strategies ./strategies
COPY config ./config
RUN mkdir -p /app/var && chown -R node:node /app/var
USER node
VOLUME ["/app/var"]
EXPOSE 9464
# Health is progress, not a live process (/healthz: every loop beat within twice its interval).
# The slim image has no curl: Node's own fetch asks the ops server on loopback (STRATD_OPS_PORT).
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.STRATD_OPS_PORT || 9464) + '/healthz', { signal: AbortSignal.timeout(4000) }).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# stratd stops gracefully on SIGTERM within shutdown.graceMs; give it time (docker stop -t 30).
STOPSIGNAL SIGTERM
# The Node flags of every production start (bin/node-flags.js).
CMD ["node", "--max-semi-space-size=4", "--heap-growing-percent=25", "bin/stratd.js", "run"]
