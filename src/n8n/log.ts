/**
 * The package's logger: every message goes through n8n's own logger (`LoggerProxy` from n8n-workflow),
 * so it follows n8n's log level, format and destinations, prefixed with the package name. Nothing in
 * the package writes to the console directly. Messages are redacted (no key, token or URL reaches the log).
 */
import { LoggerProxy } from 'n8n-workflow';
import { redact } from '../redact';

/** Prefix of every message the package logs. */
export const PACKAGE_LOG_PREFIX = '[n8n-nodes-flux-concurrent]';

/** Longest message the package logs (after redaction). */
const MAX_LOG_LENGTH = 2000;

export type LogLevel = 'error' | 'warn' | 'info' | 'debug';

/** Structured extras passed to n8n's logger as its `meta` argument (values are not redacted: keep them secret-free). */
export type LogMeta = Record<string, unknown>;

/** Logs one message at `level` through n8n's logger; `secrets` are also redacted from it. */
export function log(level: LogLevel, message: string, meta: LogMeta = {}, secrets: readonly string[] = []): void {
	const text = redact(message, secrets, MAX_LOG_LENGTH);
	const line = text.startsWith(PACKAGE_LOG_PREFIX) ? text : `${PACKAGE_LOG_PREFIX} ${text}`;
	LoggerProxy[level](line, { package: 'n8n-nodes-flux-concurrent', ...meta });
}

export const logWarning = (message: string, meta?: LogMeta): void => log('warn', message, meta);
export const logInfo = (message: string, meta?: LogMeta): void => log('info', message, meta);
