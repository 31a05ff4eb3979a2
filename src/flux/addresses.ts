/**
 * Which network addresses a download may reach: the image URL and every redirect must be on a
 * public address, unless the Base URL itself is on a local one (a local relay, the simulator).
 * Checked on literal hosts before a request and on resolved addresses while connecting.
 */
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { BlockList, isIP } from 'node:net';

/** Non-public ranges and what to call them in an error. */
const NON_PUBLIC: ReadonlyArray<readonly [string, number, 'ipv4' | 'ipv6', string]> = [
	['0.0.0.0', 8, 'ipv4', 'an unspecified ("this network")'],
	['10.0.0.0', 8, 'ipv4', 'a private (RFC 1918)'],
	['100.64.0.0', 10, 'ipv4', 'a carrier-grade NAT'],
	['127.0.0.0', 8, 'ipv4', 'a loopback'],
	['169.254.0.0', 16, 'ipv4', 'a link-local'],
	['172.16.0.0', 12, 'ipv4', 'a private (RFC 1918)'],
	['192.0.0.0', 24, 'ipv4', 'a reserved'],
	['192.0.2.0', 24, 'ipv4', 'a documentation'],
	['192.168.0.0', 16, 'ipv4', 'a private (RFC 1918)'],
	['198.18.0.0', 15, 'ipv4', 'a benchmarking'],
	['198.51.100.0', 24, 'ipv4', 'a documentation'],
	['203.0.113.0', 24, 'ipv4', 'a documentation'],
	['224.0.0.0', 4, 'ipv4', 'a multicast'],
	['240.0.0.0', 4, 'ipv4', 'a reserved'],
	['::', 128, 'ipv6', 'an unspecified'],
	['::1', 128, 'ipv6', 'a loopback'],
	['100::', 64, 'ipv6', 'a discard-only'],
	['2001:db8::', 32, 'ipv6', 'a documentation'],
	['fc00::', 7, 'ipv6', 'a private (unique local)'],
	['fe80::', 10, 'ipv6', 'a link-local'],
	['fec0::', 10, 'ipv6', 'a site-local'],
	['ff00::', 8, 'ipv6', 'a multicast'],
];

const RANGES = NON_PUBLIC.map(([network, prefix, family, label]) => {
	const list = new BlockList();
	list.addSubnet(network, prefix, family);
	return { list, label };
});

/** Host names that only make sense on a local network. */
const LOCAL_NAME = /(^|\.)(localhost|local|internal|lan|home\.arpa|localdomain)$/;

/** A host name without IPv6 brackets and a trailing dot, lower case. */
export function bareHostname(hostname: string): string {
	return hostname.replace(/^\[|\]$/g, '').toLowerCase().replace(/\.$/, '');
}

/**
 * Why `address` (an IP literal) is not public, e.g. "a loopback"; `undefined` for a public
 * address. IPv4-mapped IPv6 addresses are judged by their IPv4 part.
 */
export function nonPublicAddress(address: string): string | undefined {
	const ip = bareHostname(address);
	const family = isIP(ip);
	if (family === 0) return undefined;
	const type = family === 4 ? 'ipv4' : 'ipv6';
	return RANGES.find((range) => range.list.check(ip, type))?.label;
}

/**
 * Is this a host on a local network: a non-public IP literal, `localhost`, a single-label name
 * (a Docker or intranet host) or a local-only suffix (`.local`, `.internal`, `.lan`, …)?
 */
export function isLocalHost(hostname: string): boolean {
	const host = bareHostname(hostname);
	if (isIP(host) !== 0) return nonPublicAddress(host) !== undefined;
	return !host.includes('.') || LOCAL_NAME.test(host);
}

/** The error code of a connection refused by {@link publicOnlyLookup}. */
export const FORBIDDEN_ADDRESS_CODE = 'FLUX_FORBIDDEN_ADDRESS';

/** Raised while connecting when a host name resolves to a non-public address. */
export class ForbiddenAddressError extends Error {
	readonly code = FORBIDDEN_ADDRESS_CODE;
	constructor(
		readonly hostname: string,
		readonly address: string,
		readonly label: string,
	) {
		super(`${hostname} resolves to ${label} address (${address})`);
		this.name = 'ForbiddenAddressError';
	}
}

/** The signature of `dns.lookup` as `net.connect` calls it. */
export type LookupFunction = (
	hostname: string,
	options: LookupOptions,
	callback: (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
) => void;

/**
 * Wraps a lookup (default `dns.lookup`) so that a host resolving to any non-public address
 * fails to connect with a {@link ForbiddenAddressError}: no socket is opened to it.
 */
export function publicOnlyLookup(lookup: LookupFunction = dnsLookup as unknown as LookupFunction): LookupFunction {
	return (hostname, options, callback) => {
		lookup(hostname, options, (err, address, family) => {
			if (err) return callback(err, address, family);
			const all = Array.isArray(address) ? address : [{ address, family: family ?? 4 }];
			for (const entry of all) {
				const label = nonPublicAddress(entry.address);
				if (label) return callback(new ForbiddenAddressError(hostname, entry.address, label), address, family);
			}
			callback(null, address, family);
		});
	};
}
