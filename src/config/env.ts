/**
 * The shapes every reader of the environment shares, and the one integer reader: unset or blank → the default;
 * out of range → clamped, plus one warning naming the variable, its value, the range and the value used; anything
 * but an integer → the default plus one warning naming the variable, its value and the default.
 */
import { z } from 'zod';

import { PACKAGE_LOG_PREFIX as LOG_PREFIX } from '../logger';

/** The environment as read (process.env in production, a literal in tests). */
export type Env = Readonly<Record<string, string | undefined>>;
/** Receives one message per bad value. */
export type Warn = (message: string) => void;
/** Reads a `<NAME>_FILE` (tests inject it; default: the file system). */
export type ReadTextFile = (path: string) => string;

const integerText = z
	.string()
	.trim()
	.regex(/^[+-]?\d+$/)
	.transform(Number);

/** A value as a warning shows it: quoted, its first 40 characters. */
const shown = (raw: string): string => JSON.stringify(raw.slice(0, 40));

/** `env[name]` as an integer in [min, max] (clamped, with one warning), else `fallback` (with one warning when the value is not an integer). */
export function readInteger(env: Env, name: string, fallback: number, min: number, max: number, warn: Warn): number {
	const raw = env[name];
	if (raw === undefined || raw.trim() === '') return fallback;
	const parsed = integerText.safeParse(raw);
	if (!parsed.success) {
		warn(`${LOG_PREFIX} ${name}=${shown(raw)} is not an integer; using ${fallback}.`);
		return fallback;
	}
	const used = Math.min(max, Math.max(min, parsed.data));
	if (used !== parsed.data) warn(`${LOG_PREFIX} ${name}=${shown(raw)} is outside ${min}–${max}; using ${used}.`);
	return used;
}
