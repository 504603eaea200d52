# Atelier: one image for the API (default command) and the worker.
#   docker build -t atelier .
#   docker run -p 3000:3000 -v atelier-data:/app/data atelier                 # embedded mode
#   docker run atelier node --initial-old-space-size=96 dist/apps/worker/src/main.js    # worker (needs REDIS_URL)
# The scaled deployment is docker-compose.yml (behind a TLS proxy), or deploy/kubernetes/; variables are listed in
# docs/configuration.md.

FROM node:20.20.2-bookworm-slim AS build
# Toolchain for better-sqlite3's native addon, in case no prebuilt binary matches.
RUN apt-get update \
  && apt-get install -y --no-install-recommends python3 make g++ \
  && rm -rf /var/lib/apt/lists/*
# npm 11 honours package.json's allowScripts (the install-script allowlist); Node 20's npm 10 ignores it.
RUN npm install -g npm@11.19.1
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
# npm ci: exactly the lockfile, or the build fails. The lockfile lists every platform's optional packages
# (linux x64/arm64, glibc/musl, macOS, Windows), so the same file builds on any of them; a test keeps it so
# (test/deployment-files.e2e-spec.ts; how: docs/security.md, "Deployment").
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json nest-cli.json openapi.json ./
# the dashboard's build checks its typed client against openapi.json (formatted with the repo's Prettier settings)
COPY .prettierrc ./
COPY scripts/build.mjs scripts/build-stamp.mjs scripts/dashboard-client.mjs ./scripts/
COPY apps ./apps
COPY libs ./libs
RUN npm run build \
  && npm prune --omit=dev

FROM node:20.20.2-bookworm-slim AS runtime
WORKDIR /app
# glibc malloc arenas and a fixed mmap threshold: bound memory growth of native image libraries; large buffers on
# transparent huge pages (docs/configuration.md, "Variables Atelier does not read"). HOST: reachable from outside
# the container.
ENV MALLOC_ARENA_MAX=2 \
    MALLOC_MMAP_THRESHOLD_=1048576 \
    GLIBC_TUNABLES=glibc.malloc.hugetlb=1 \
    HOST=0.0.0.0 \
    PORT=3000
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# The CMYK output profiles, found at run time beside libs/ (libs/image-pipeline/src/colour/cmyk-profiles.ts).
COPY --from=build /app/libs/image-pipeline/icc ./libs/image-pipeline/icc
# The ComfyUI workflow that ships with the service (libs/generative/src/http/comfyui-workflow.ts), found the same way.
COPY --from=build /app/libs/generative/workflows ./libs/generative/workflows
# The sample images of GET /samples and of the OpenAPI examples (libs/storage/src/samples/sample-images.ts).
COPY --from=build /app/libs/storage/samples ./libs/storage/samples
# The font of text watermarks (libs/editing/src/operations/watermark/): libvips draws text with Pango, which finds
# it through fontconfig; the slim image has no font at all.
RUN apt-get update \
  && apt-get install -y --no-install-recommends fonts-dejavu-core \
  && rm -rf /var/lib/apt/lists/*
# DATA_DIR (./data): the embedded SQLite database; writable by the unprivileged user.
RUN mkdir -p /app/data && chown node:node /app/data
USER node
EXPOSE 3000
# No HEALTHCHECK here: the worker runs from this image too and serves no API (only GET /metrics on METRICS_PORT).
# The health checks of both are in docker-compose.yml, and the probes in deploy/kubernetes/.
# --initial-old-space-size: as in `npm start` (package.json); without it V8 runs a full collection every few
# requests, because each edit's buffers count against a small old-generation limit (docs/benchmarks.md).
CMD ["node", "--initial-old-space-size=256", "dist/apps/api/src/main.js"]
