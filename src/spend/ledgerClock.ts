/**
 * The time the spend ledger keeps: the wall clock (shared by every process and machine), plus this machine's
 * monotonic clock and boot id. An entry made on the same boot leaves the 24-hour window by the monotonic clock,
 * so setting the wall clock forward (by hand, or a bad NTP step) never lifts a limit early; an entry from another
 * machine or an earlier boot goes by the wall clock. Setting the wall clock back keeps entries longer (never less).
 */
import { bootId } from '../coordination/ownerLiveness';

/** The rolling window of the daily limits. */
export const WINDOW_MS = 24 * 60 * 60_000;

export interface LedgerClock {
	/** Epoch ms. */
	wall: number;
	/** Milliseconds on this machine's monotonic clock (since boot), when `boot` is known. */
	mono?: number;
	/** This boot's id (Linux: /proc/sys/kernel/random/boot_id); undefined: the monotonic clock is not used. */
	boot?: string;
}

/** True while an entry made at `entry` is inside the window at `clock`. */
export function inWindow(entry: { at: number; mono?: number; boot?: string }, clock: LedgerClock): boolean {
	if (entry.boot !== undefined && entry.boot === clock.boot && entry.mono !== undefined && clock.mono !== undefined) {
		return clock.mono - entry.mono < WINDOW_MS;
	}
	return clock.wall - entry.at < WINDOW_MS;
}

/** The real clock. */
export function systemClock(): LedgerClock {
	const boot = bootId() || undefined;
	return boot === undefined ? { wall: Date.now() } : { wall: Date.now(), mono: Number(process.hrtime.bigint() / 1_000_000n), boot };
}
