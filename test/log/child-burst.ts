// A script for test/log/child-script.spec.ts, run by runChildScript as the takeover scripts are: prints a burst of
// `ev <n>` lines at once (argv: how many), as a reader woken up with its events buffered does, then tells stderr
// `written` and ends (`done`); with `hang`, its work then never settles, with nothing left to wait for (a lost
// end). Its log is never used (no Redis needed).
import { runChildScript } from './takeover-helpers';

const [n, mode] = process.argv.slice(2) as [string, string | undefined];

runChildScript(
  'redis://127.0.0.1:1',
  async () => {
    for (let i = 0; i < Number(n); i++) process.stdout.write(`ev ${i}\n`);
    process.stderr.write('written\n');
    if (mode === 'hang') await new Promise<void>(() => undefined);
  },
  (e) => String(e),
);
