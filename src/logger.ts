/**
 * The package's log, for code that must not know n8n (the shared machinery: src/store, src/spend, src/pool, …):
 * every message is redacted (no key, token or URL), cut to a sane length and prefixed with the package name, then
 * handed to the one sink the n8n glue registers (src/n8n/log.ts: n8n's own logger). Nothing writes to the console.
 * Messages logged before a sink is registered wait, the latest `BUFFERED_BEFORE_SINK` of them, and go out on
 * registration, after one warning that says how many older ones were dropped (if any were).
 */
import { redact } from './redact';

/** Prefix of every message the package logs. */
export const PACKAGE_LOG_PREFIX = '[n8n-nodes-flux-concurrent]';

/** Longest message the package logs (after redaction). */
const MAX_LOG_LENGTH = 2000;

/** Messages kept while no sink is registered (the oldest go first). */
export const BUFFERED_BEFORE_SINK = 100;

export type LogLevel = 'error' | 'warn' | 'info' | 'debug';

/** Structured extras passed to the sink as its `meta` argument (values are not redacted: keep them secret-free). */
export type LogMeta = Record<string, unknown>;

export type LogSink = (level: LogLevel, line: string, meta: LogMeta) => void;

let sink: LogSink | undefined;
const waiting: Array<Parameters<LogSink>> = [];
let dropped = 0;

/** Sends the package's messages to `next` from now on (and the ones that waited for a sink). */
export function useLogSink(next: LogSink): void {
	sink = next;
	if (dropped > 0) next('warn', `${PACKAGE_LOG_PREFIX} ${dropped} earlier messages logged before n8n's logger was ready were dropped`, { package: 'n8n-nodes-flux-concurrent' });
	dropped = 0;
	for (const message of waiting.splice(0)) next(...message);
}

/** Logs one message at `level`; `secrets` are also redacted from it. */
export function log(level: LogLevel, message: string, meta: LogMeta = {}, secrets: readonly string[] = []): void {
	const text = redact(message, secrets, MAX_LOG_LENGTH);
	const line = text.startsWith(PACKAGE_LOG_PREFIX) ? text : `${PACKAGE_LOG_PREFIX} ${text}`;
	const entry: Parameters<LogSink> = [level, line, { package: 'n8n-nodes-flux-concurrent', ...meta }];
	if (sink) return sink(...entry);
	waiting.push(entry);
	if (waiting.length > BUFFERED_BEFORE_SINK) {
		waiting.shift();
		dropped++;
	}
}

export const logWarning = (message: string, meta?: LogMeta): void => log('warn', message, meta);
export const logInfo = (message: string, meta?: LogMeta): void => log('info', message, meta);
