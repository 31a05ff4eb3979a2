import type { ICredentialDataDecryptedObject, IExecuteFunctions } from 'n8n-workflow';

/**
 * How many items ahead of the one being prepared their credential is already asked for. In a running n8n each
 * `getCredentials` is a database read, so items that asked one after another waited for one read each in turn.
 * n8n's database pool runs a few queries at once (by default 2 on Postgres, 3 on SQLite): a few more
 * in hand keep it busy, while a node that fails at its first item leaves few reads behind, and other executions'
 * queries wait behind few of ours.
 */
export const CREDENTIALS_AHEAD = 8;

/**
 * One node run's credential of `type`, asked of n8n per item exactly as before (n8n may resolve a credential field's
 * expression per item), but up to {@link CREDENTIALS_AHEAD} items ahead of the item being prepared, so that those
 * reads overlap. An item's answer (or its error) is handed to that item only, once; asking again for an item already
 * handed out asks n8n again.
 */
export class CredentialsAhead {
	private readonly asked = new Map<number, Promise<ICredentialDataDecryptedObject>>();
	/** The next item not asked for yet. */
	private next = 0;

	constructor(
		private readonly ctx: IExecuteFunctions,
		private readonly type: string,
		private readonly ahead = CREDENTIALS_AHEAD,
	) {}

	/** Item `itemIndex`'s credential; asks for the items after it (up to the window, within the input) on the way. */
	async for(itemIndex: number): Promise<ICredentialDataDecryptedObject> {
		const until = Math.min(this.ctx.getInputData().length, itemIndex + 1 + this.ahead);
		for (this.next = Math.max(this.next, itemIndex); this.next < until; this.next++) {
			const answer = this.ask(this.next);
			answer.catch(() => undefined); // rejected for its own item only, when that item awaits it
			this.asked.set(this.next, answer);
		}
		const answer = this.asked.get(itemIndex) ?? this.ask(itemIndex);
		this.asked.delete(itemIndex);
		return await answer;
	}

	private async ask(itemIndex: number): Promise<ICredentialDataDecryptedObject> {
		return await this.ctx.getCredentials(this.type, itemIndex);
	}
}
