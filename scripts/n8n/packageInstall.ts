/**
 * Installing this package into an n8n home the way the Community Nodes UI does
 * (CommunityPackagesService.downloadPackage): `npm pack`, untar, strip dev/peer/optional
 * dependencies, `npm install --ignore-scripts ...` there.
 */
import { existsSync, promises as fsp } from 'node:fs';
import * as path from 'node:path';

import { npmCommand, npmEnv, runProcess, tail, type LogFn } from './processes';

export interface PackageJson {
	name: string;
	version: string;
	n8n?: { nodes?: string[]; credentials?: string[] };
	dependencies?: Record<string, string>;
	devDependencies?: Record<string, string>;
	peerDependencies?: Record<string, string>;
	optionalDependencies?: Record<string, string>;
	[key: string]: unknown;
}

export async function readPackageJson(dir: string): Promise<PackageJson> {
	return JSON.parse(await fsp.readFile(path.join(dir, 'package.json'), 'utf8')) as PackageJson;
}


export async function installPackageByPack(packageDir: string, target: string, log: LogFn, scratch: string): Promise<void> {
	const packDir = path.join(scratch, 'pack');
	await fsp.mkdir(packDir, { recursive: true });
	// --ignore-scripts: do not run prepack/prepare (we pack what is built).
	const pack = await runProcess(npmCommand(), ['pack', '--json', '--ignore-scripts', '--pack-destination', packDir], {
		cwd: packageDir,
		env: npmEnv(),
		timeoutMs: 120_000,
	});
	if (pack.exitCode !== 0) throw new Error(`npm pack failed in ${packageDir}:\n${tail(pack.stderr)}`);
	const packed = (JSON.parse(pack.stdout.slice(pack.stdout.indexOf('['))) as Array<{ filename: string }>)[0];
	const tarball = path.join(packDir, path.basename(packed.filename.replace(/^@/, '').replace(/\//, '-')));
	const tarballPath = existsSync(tarball) ? tarball : path.join(packDir, (await fsp.readdir(packDir))[0]);

	await fsp.mkdir(target, { recursive: true });
	const untar = await runProcess('tar', ['-xzf', tarballPath, '-C', target, '--strip-components=1'], {
		cwd: packDir,
		env: npmEnv(),
		timeoutMs: 60_000,
	});
	if (untar.exitCode !== 0) throw new Error(`tar failed:\n${untar.stderr}`);
	await fsp.rm(packDir, { recursive: true, force: true });

	// As n8n's CommunityPackagesService.downloadPackage: drop dev/peer/optional deps, install the rest.
	const pkg = await readPackageJson(target);
	delete pkg.devDependencies;
	delete pkg.peerDependencies;
	delete pkg.optionalDependencies;
	await fsp.writeFile(path.join(target, 'package.json'), JSON.stringify(pkg, null, 2));
	if (pkg.dependencies && Object.keys(pkg.dependencies).length > 0) {
		log(`installing ${pkg.name}'s runtime dependencies (${Object.keys(pkg.dependencies).join(', ')})`);
		const install = await runProcess(
			npmCommand(),
			[
				'install',
				'--audit=false',
				'--fund=false',
				'--bin-links=false',
				'--install-strategy=shallow',
				'--ignore-scripts=true',
				'--package-lock=false',
				'--omit=dev',
				'--prefer-offline',
				'--loglevel=warn',
			],
			{ cwd: target, env: npmEnv(), timeoutMs: 10 * 60_000 },
		);
		if (install.exitCode !== 0) throw new Error(`npm install in ${target} failed:\n${tail(install.stderr)}`);
	}
}
