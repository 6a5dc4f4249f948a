import { startTracing } from './tracing';

// Imported first by src/main.ts and src/worker.ts, and loaded before the bundle by dist/main.js
// and dist/worker.js (scripts/bundle-server.mjs): the instrumentations patch modules as they are
// required, so the SDK starts before anything else loads. Reading the environment at import
// time is the point here; the SDK reads its OTEL_* variables itself.
startTracing(process.env);
