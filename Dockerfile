# syntax=docker/dockerfile:1
# Multi-stage: install production dependencies in one stage, run as a non-root user in the next.
FROM node:22-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund

FROM node:22-bookworm-slim AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY package.json package-lock.json tsconfig.json ./
COPY bin ./bin
COPY src ./src
COPY strategies ./strategies
COPY config ./config
RUN mkdir -p /app/var && chown -R node:node /app/var
USER node
VOLUME ["/app/var"]
EXPOSE 9464
# stratd stops gracefully on SIGTERM within shutdown.graceMs; give it time (docker stop -t 30).
STOPSIGNAL SIGTERM
CMD ["node", "bin/stratd.js", "run"]
