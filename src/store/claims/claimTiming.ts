/** How claims are kept and judged (production values; tests shorten them). */
export interface ClaimTiming {
	/** How often a held claim is renewed: a file claim touched, a Redis claim's lease extended. */
	heartbeatMs: number;
	/** A file claim not touched for this long, whose owner cannot be seen alive on this machine, has lapsed. */
	fileLapseMs: number;
	/** The lease of a Redis claim: it lapses this long after its owner last renewed it. */
	redisLeaseMs: number;
	/** After Redis answers again, new Redis claims wait this long, so the owners of earlier ones re-assert them first. */
	redisGraceMs: number;
	/** The first and the longest pause of a claimant waiting for the owner's outcome. */
	waitMinMs: number;
	waitMaxMs: number;
}

export const DEFAULT_CLAIM_TIMING: ClaimTiming = {
	heartbeatMs: 2_000,
	fileLapseMs: 20_000,
	redisLeaseMs: 10_000,
	redisGraceMs: 5_000,
	waitMinMs: 20,
	waitMaxMs: 250,
};
