import { Writable } from 'node:stream';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { createLogger } from '../src/logger';
import { initTracing, otlpExportWanted, SpanKind, traceLogFields, withSpan } from '../src/tracing';

const exporter = new InMemorySpanExporter();
initTracing({ serviceName: 'kit-test', exporter });

describe('tracing', () => {
  it('exports over OTLP only when the OTEL_* variables ask for it (off by default)', () => {
    expect(otlpExportWanted({})).toBe(false);
    expect(otlpExportWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe(true);
    expect(otlpExportWanted({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' })).toBe(true);
    expect(otlpExportWanted({ OTEL_TRACES_EXPORTER: 'otlp' })).toBe(true);
    expect(otlpExportWanted({ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' })).toBe(
      false,
    );
    expect(otlpExportWanted({ OTEL_SDK_DISABLED: 'true', OTEL_TRACES_EXPORTER: 'otlp' })).toBe(false);
  });

  it('continues a traceparent and hands the new span on', async () => {
    const parent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const child = await withSpan('svc', 'work', { kind: SpanKind.INTERNAL, parent }, async (tp) => tp);
    expect(child).toMatch(/^00-0af7651916cd43dd8448eb211c80319c-[0-9a-f]{16}-01$/);
    expect(child).not.toContain('b7ad6b7169203331');
    const span = exporter.getFinishedSpans().find((s) => s.name === 'work');
    expect(span?.attributes['cc.service']).toBe('svc');
  });

  it('puts the active trace and span ids on every log line written inside a span', async () => {
    const lines: Record<string, unknown>[] = [];
    const sink = new Writable({
      write(chunk, _enc, cb) {
        lines.push(JSON.parse(String(chunk)));
        cb();
      },
    });
    const logger = createLogger('kit-test', 'info', sink);
    const tp = await withSpan('svc', 'logged', { kind: SpanKind.INTERNAL }, async (traceparent) => {
      logger.info('inside');
      return traceparent;
    });
    logger.info('outside');
    const [, traceId, spanId] = tp.split('-');
    expect(lines[0]).toMatchObject({ msg: 'inside', trace_id: traceId, span_id: spanId });
    expect(lines[1]).not.toHaveProperty('trace_id');
    expect(traceLogFields()).toEqual({});
  });
});
