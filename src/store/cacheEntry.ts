/** One index entry of the result store's cache (`cacache.get.info` / `cacache.ls`): shared by the backend and the index listing. */
export interface CacheEntry {
	key: string;
	integrity: string;
	time: number;
	size?: number;
	metadata?: unknown;
}
