/**
 * What an ioredis error means for the package: Redis gone (`unreachable`), Redis connected but not answering
 * within the deadline (`stalled`), Redis refusing the credentials (`credentials`), Redis answering a command
 * with an error (`reply`: Redis works, the command did not), or not a Redis error at all (`other`: a bug or an
 * abort, for the caller). Reasons are secret-free.
 */

export type RedisErrorKind = 'unreachable' | 'stalled' | 'credentials' | 'reply' | 'other';

/** ioredis's message for a command that got no reply within `commandTimeout`. */
const TIMED_OUT = 'Command timed out';
const CONNECTION_MESSAGES = [/connection is closed/i, /stream isn't writeable/i, /max retries per request/i];
const CREDENTIAL_REPLIES = /^(NOAUTH|WRONGPASS)\b|invalid password|invalid username-password/i;

/** Classifies by value (name, code, message), not by class: Node's socket errors may come from another realm. */
export function classifyRedisError(error: unknown): RedisErrorKind {
	if (typeof error !== 'object' || error === null) return 'other';
	const { name, message, code } = error as { name?: unknown; message?: unknown; code?: unknown };
	if (typeof message !== 'string') return 'other';
	if (message === TIMED_OUT) return 'stalled';
	if (name === 'ReplyError') return CREDENTIAL_REPLIES.test(message) ? 'credentials' : 'reply';
	if (name === 'MaxRetriesPerRequestError') return 'unreachable';
	if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) return 'unreachable';
	return CONNECTION_MESSAGES.some((re) => re.test(message)) ? 'unreachable' : 'other';
}

/** An ioredis error's code or message, without anything that could carry a password. */
export function safeReason(error: unknown): string {
	const code = (error as { code?: unknown }).code;
	if (typeof code === 'string') return code;
	const message = typeof (error as { message?: unknown })?.message === 'string' ? (error as { message: string }).message : String(error);
	return message.replace(/\/\/[^@\s]*@/g, '//***@').slice(0, 200);
}
