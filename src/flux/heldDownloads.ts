/**
 * Copies of fresh downloads kept in memory for their hand-over, so n8n is handed the bytes that were just written to
 * disk instead of reading them back: in a running n8n every Buffer read from a file counts toward the memory that
 * makes V8 collect its whole heap, and those full collections cost n8n's process more CPU than the package's own code
 * (bench/README.md, "Handing n8n the downloaded bytes"). A copy is the download's own chunks (no bytes are copied),
 * taken once; the file stays the truth (a copy missing, expired or already taken: the file is read as before).
 * Bounded: all copies, made and being made, hold at most `maxBytes` (COMFLY_HANDOVER_COPY_MB, default 64): a download
 * that would pass it pushes out the oldest copies made (the newest are the likeliest to be handed over next), and keeps
 * none when the copies still being made leave no room; a copy nobody took within `ttlMs` is dropped (a Submit whose
 * Collect runs later, elsewhere, or never), by an unref'd timer set for the oldest copy.
 */
import { randomUUID } from 'node:crypto';

import { settings } from '../config';
import { processWide } from '../processWide';

/** A copy not taken within this long is dropped (ms). */
export const HELD_DOWNLOAD_TTL_MS = 30_000;

/** What a download writes its chunks to as they pass (bodyFile.ts). */
export interface ChunkSink {
	add(chunk: Buffer): void;
}

export class HeldDownloads {
	/** Bytes held by copies, made and being made. */
	private bytes = 0;
	/** Of them, by copies made. */
	private madeBytes = 0;
	/** The copies made, oldest first (one lifetime for all: the first is the next to expire). */
	private readonly copies = new Map<string, { chunks: Buffer[]; bytes: number; until: number }>();
	/** Set for the oldest copy's expiry while any copy is held. */
	private timer?: NodeJS.Timeout;

	constructor(
		/** At most this many bytes in copies (made and being made); 0: no copies. */
		readonly maxBytes: number,
		readonly ttlMs = HELD_DOWNLOAD_TTL_MS,
		private readonly now: () => number = Date.now,
	) {}

	/** A copy to make of one download: feed it the chunks, then `keep` it (held, its id returned) or `drop` it. */
	copy(): DownloadCopy {
		this.sweep();
		return new DownloadCopy(this);
	}

	/** The chunks of copy `id`, once (then forgotten); undefined when it was never made, expired or was taken. */
	take(id: string): Buffer[] | undefined {
		this.sweep();
		const copy = this.copies.get(id);
		if (!copy) return undefined;
		this.forget(id, copy.bytes);
		return copy.chunks;
	}

	/** Bytes held now, by copies made and being made. */
	heldBytes(): number {
		return this.bytes;
	}

	/** Reserves `n` more bytes for a copy being made, pushing out the oldest copies made; false (nothing reserved) when that is not enough. */
	reserve(n: number): boolean {
		if (this.bytes - this.madeBytes + n > this.maxBytes) return false; // no room even without the copies made: they stay
		for (const [id, copy] of this.copies) {
			if (this.bytes + n <= this.maxBytes) break;
			this.forget(id, copy.bytes);
		}
		if (this.bytes + n > this.maxBytes) return false;
		this.bytes += n;
		return true;
	}

	/** Gives back bytes a copy being made had reserved. */
	release(n: number): void {
		this.bytes -= n;
	}

	/** A copy made: held under a new id until taken or expired (its bytes stay reserved). */
	hold(chunks: Buffer[], bytes: number): string {
		const id = randomUUID();
		this.copies.set(id, { chunks, bytes, until: this.now() + this.ttlMs });
		this.madeBytes += bytes;
		if (!this.timer) this.arm();
		return id;
	}

	private sweep(): void {
		const now = this.now();
		for (const [id, copy] of this.copies) {
			if (copy.until > now) break; // oldest first: the rest are younger
			this.forget(id, copy.bytes);
		}
	}

	/** The timer for the oldest copy's expiry (none while no copy is held). */
	private arm(): void {
		clearTimeout(this.timer);
		this.timer = undefined;
		const oldest = this.copies.values().next().value;
		if (!oldest) return;
		this.timer = setTimeout(() => {
			this.timer = undefined;
			this.sweep();
			this.arm();
		}, Math.max(0, oldest.until - this.now())).unref();
	}

	private forget(id: string, bytes: number): void {
		this.copies.delete(id);
		this.bytes -= bytes;
		this.madeBytes -= bytes;
		if (this.copies.size === 0) this.arm(); // clears the timer
	}
}

/** One download's copy being made: its chunks while the bound allows (past it, none: the file is read instead). */
export class DownloadCopy implements ChunkSink {
	private chunks: Buffer[] | undefined = [];
	private bytes = 0;

	constructor(private readonly held: HeldDownloads) {}

	add(chunk: Buffer): void {
		if (!this.chunks) return;
		if (!this.held.reserve(chunk.length)) return this.drop();
		this.chunks.push(chunk);
		this.bytes += chunk.length;
	}

	/** The download is complete: the copy is held; its id, or undefined when it was dropped. */
	keep(): string | undefined {
		const chunks = this.chunks;
		if (!chunks) return undefined;
		this.chunks = undefined;
		return this.held.hold(chunks, this.bytes);
	}

	/** The download failed, or its copy would pass the bound: its bytes are given back. */
	drop(): void {
		if (!this.chunks) return;
		this.chunks = undefined;
		this.held.release(this.bytes);
		this.bytes = 0;
	}
}

/** The process's copies, within COMFLY_HANDOVER_COPY_MB (one for every copy of the package n8n loaded: processWide.ts). */
export function heldDownloads(): HeldDownloads {
	return processWide('heldDownloads', () => new HeldDownloads(settings().handoverCopyBytes));
}
