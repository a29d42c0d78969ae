import type { IncomingMessage } from "node:http";
import type { Probe } from "~/lib/probe.server";
import type { RequestSpan } from "./http";

/**
 * OpenTelemetry traces, only when OTEL_EXPORTER_OTLP_ENDPOINT is set (decision 0033). This module
 * is itself reached by `import()` from server/index.ts, and it loads the SDK and the API with
 * `import()` too: the bundle (build/main.js) holds no static import of an @opentelemetry package,
 * so a server without the variable never loads one and pays nothing.
 *
 * The spans are ours rather than auto-instrumentation's: the app is an ES module build, which the
 * SDK's module patching does not reach without a loader flag, and the one seam we already have
 * (the probe in app/lib/probe.server.ts) sees every statement of both dialects and every store
 * call. A request is a SERVER span named after its route pattern (never the raw path); the
 * database and store calls it makes are CLIENT spans under it. Work outside a request (jobs,
 * the SMS sender) makes no spans. The exporter follows the standard OTEL_* variables
 * (OTEL_EXPORTER_OTLP_PROTOCOL http/protobuf by default, or http/json).
 */
export type Tracing = {
  probe: Probe;
  trace: (req: IncomingMessage, method: string) => RequestSpan;
  shutdown: () => Promise<void>;
};

export async function startTracing(): Promise<Tracing> {
  // Traces only: metrics are Prometheus's (server/metrics.ts), logs are our JSON lines.
  process.env.OTEL_METRICS_EXPORTER ??= "none";
  process.env.OTEL_LOGS_EXPORTER ??= "none";
  process.env.OTEL_TRACES_EXPORTER ??= "otlp";
  const [{ NodeSDK }, api] = await Promise.all([
    import("@opentelemetry/sdk-node"),
    import("@opentelemetry/api"),
  ]);
  const { context, propagation, trace, ROOT_CONTEXT, SpanKind, SpanStatusCode } = api;
  const sdk = new NodeSDK({
    serviceName: process.env.OTEL_SERVICE_NAME || "carebridge",
    instrumentations: [],
  });
  sdk.start();
  const tracer = trace.getTracer("carebridge");
  const noop = () => {};

  return {
    trace(req, method) {
      const parent = propagation.extract(ROOT_CONTEXT, req.headers);
      const span = tracer.startSpan(
        method,
        { kind: SpanKind.SERVER, attributes: { "http.request.method": method } },
        parent,
      );
      const active = trace.setSpan(parent, span);
      return {
        run: (fn) => context.with(active, fn),
        end(route, status) {
          span.updateName(`${method} ${route}`);
          span.setAttribute("http.route", route);
          span.setAttribute("http.response.status_code", status);
          if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
          span.end();
        },
      };
    },
    probe: {
      start(kind, system, operation, detail) {
        const current = context.active();
        if (!trace.getSpan(current)) return noop;
        const attributes: Record<string, string> =
          kind === "db"
            ? { "db.system.name": system, "db.operation.name": firstWord(detail) ?? operation }
            : { "carebridge.store": system, "carebridge.store.operation": operation };
        if (kind === "db" && detail) attributes["db.query.text"] = detail;
        const name = kind === "db" ? `${attributes["db.operation.name"]} ${system}` : `store ${operation}`;
        const span = tracer.startSpan(name, { kind: SpanKind.CLIENT, attributes }, current);
        return (error) => {
          if (error) {
            span.recordException(error instanceof Error ? error : String(error));
            span.setStatus({ code: SpanStatusCode.ERROR });
          }
          span.end();
        };
      },
    },
    shutdown: () => sdk.shutdown(),
  };
}

/** SELECT, INSERT, … — the statement's verb (SQL text never holds values: they are parameters). */
function firstWord(sql: string | undefined): string | undefined {
  const m = sql && /^\s*([a-z]+)/i.exec(sql);
  return m ? m[1]!.toUpperCase() : undefined;
}
