/**
 * The package's log goes through n8n's own logger (`LoggerProxy` from n8n-workflow), so it follows n8n's log level,
 * format and destinations. Loading this module registers it as src/logger.ts's sink; every node loads it (through
 * the glue), and the glue logs through it.
 */
import { LoggerProxy } from 'n8n-workflow';
import { useLogSink } from '../logger';

useLogSink((level, line, meta) => LoggerProxy[level](line, meta));

export { log, logInfo, logWarning, PACKAGE_LOG_PREFIX, type LogLevel, type LogMeta } from '../logger';
