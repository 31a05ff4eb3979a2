/**
 * Draft caches: the bytes a FLUX 3 Video draft's result carries (`result.draft_cache`), which a later
 * `mode: draft_enhance` sends back, as the cache's URL or as its base64. The bytes name the draft (its task, prompt
 * and settings) and carry an HMAC under a secret of this simulator, so it recognises its own caches and only those.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

const MAGIC = 'relay-sim draft cache v1\n';

/** What a draft cache says about its draft: enough to render it again at full quality. */
export interface DraftOrigin {
	task: string;
	prompt: string;
	duration: number | 'auto';
	resolution: string;
}

export class DraftCaches {
	private readonly secret = randomBytes(32);

	private mac(payload: string): Buffer {
		return createHmac('sha256', this.secret).update(payload).digest();
	}

	/** The cache bytes of a draft (the same for the same draft). */
	bytes(origin: DraftOrigin): Buffer {
		const payload = JSON.stringify(origin);
		return Buffer.concat([Buffer.from(`${MAGIC}${payload}\n`, 'utf8'), this.mac(payload)]);
	}

	/** The draft `bytes` name, when this simulator issued them unchanged; else undefined. */
	read(bytes: Buffer): DraftOrigin | undefined {
		const end = bytes.length - 32;
		if (end <= MAGIC.length || bytes.toString('utf8', 0, MAGIC.length) !== MAGIC || bytes[end - 1] !== 0x0a) return undefined;
		const payload = bytes.toString('utf8', MAGIC.length, end - 1);
		if (!timingSafeEqual(this.mac(payload), bytes.subarray(end))) return undefined;
		return JSON.parse(payload) as DraftOrigin;
	}
}
