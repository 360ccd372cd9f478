// Bundles the reference host (refhost.mjs), with the SDK client and
// AppBridge it imports, into one browser script, and prints it as
// {"script": "..."} for the view tests (harness.RunNodeScript), which serve
// it to the host page. Nothing is written to disk.
import { rolldown } from 'rolldown';

const bundle = await rolldown({ input: new URL('./refhost.mjs', import.meta.url).pathname, platform: 'browser', logLevel: 'silent' });
const { output } = await bundle.generate({ format: 'iife' });
await bundle.close();
process.stdout.write(JSON.stringify({ script: output[0].code }));
