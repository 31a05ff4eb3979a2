/**
 * What a running batch still needs from the store folder, in this process: a stored result (by key) or a kept
 * download file (by path) is in use from when a job produced or served it until the node that delivers it has
 * handed it to n8n (`done`), or at the latest after `ttlMs` (the pool's result TTL: no collector can take it
 * later). The store's size bound never removes what is in use. Counted: two slots of one key need it twice.
 */
export class ResultsInUse {
	private readonly uses = new Map<string, { count: number; until: number }>();
	/** Download files this process kept (only it knows when they were delivered). */
	private readonly ownFiles = new Set<string>();

	constructor(
		private readonly ttlMs: number,
		private readonly now: () => number = Date.now,
	) {}

	/** `id` (a store key or a file path) is needed by one more slot. */
	use(id: string): void {
		this.uses.set(id, { count: (this.uses.get(id)?.count ?? 0) + 1, until: this.now() + this.ttlMs });
		if (this.uses.size % 1024 === 0) this.forgetExpired();
	}

	/** One slot that needed `id` has delivered it. */
	done(id: string): void {
		const found = this.uses.get(id);
		if (!found) return;
		found.count -= 1;
		if (found.count <= 0) this.uses.delete(id);
	}

	/** A download file this process kept is needed by one slot (see `use`). */
	useFile(file: string): void {
		this.ownFiles.add(file);
		this.use(file);
	}

	isOwnFile(file: string): boolean {
		return this.ownFiles.has(file);
	}

	/** The file was removed. */
	forgetFile(file: string): void {
		this.ownFiles.delete(file);
		this.uses.delete(file);
	}

	has(id: string): boolean {
		const found = this.uses.get(id);
		if (!found) return false;
		if (found.until > this.now()) return true;
		this.uses.delete(id);
		return false;
	}

	private forgetExpired(): void {
		const now = this.now();
		for (const [id, use] of this.uses) if (use.until <= now) this.uses.delete(id);
	}
}
