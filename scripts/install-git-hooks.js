// `npm install` (prepare): points git at the repository's hooks (.githooks: the commit-msg rule on
// subjects). Plain JavaScript so that it runs on any Node the install runs on; outside a git
// checkout (a tarball) it does nothing.
import { spawnSync } from 'node:child_process';

const inside = spawnSync('git', ['rev-parse', '--git-dir'], { stdio: 'ignore' });
if (inside.status === 0) spawnSync('git', ['config', 'core.hooksPath', '.githooks'], { stdio: 'ignore' });
