# syntax=docker/dockerfile:1
# Build stage: all dependencies, compile TypeScript.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json ./
COPY src ./src
COPY workers ./workers
COPY test ./test
COPY bench ./bench
RUN npm run build

# Runtime stage: production dependencies and compiled code only; node is PID 1 and handles
# SIGTERM itself (graceful shutdown in src/server.ts).
FROM node:20-bookworm-slim
ENV NODE_ENV=production PORT=4242 HOST=0.0.0.0
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist/src ./dist/src
COPY --from=build /app/dist/workers ./dist/workers
COPY web ./web
USER node
EXPOSE 4242
CMD ["node", "dist/src/server.js"]
