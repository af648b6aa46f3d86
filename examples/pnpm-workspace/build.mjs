// Each build appends its project's name to ../../order.log, after a short
// pause, so the log shows the order builds finished in.
import { appendFileSync, readFileSync } from 'node:fs';
const name = JSON.parse(readFileSync('package.json', 'utf8')).name;
await new Promise((r) => setTimeout(r, 30));
appendFileSync(new URL('./order.log', import.meta.url), name + '\n');
