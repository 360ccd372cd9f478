import {defineConfig} from 'vite';

// The MCP Apps views: each a self-contained script the server wraps in a
// page whose CSP allows that script alone (by hash). They are separate from
// the webapp bundle: they run in the MCP client's sandboxed frame, not in
// Mattermost, so they bundle all they use. An iife build takes one entry,
// so each view is its own build: VIEW names it (thread by default, which
// also empties the folder).
// eslint-disable-next-line no-process-env -- the build's own switch
const view = process.env.VIEW || 'thread';

export default defineConfig({
    define: {'process.env.NODE_ENV': JSON.stringify('production')},
    build: {
        outDir: 'dist/views',
        emptyOutDir: view === 'thread',
        target: 'es2020',
        minify: true,
        lib: {
            entry: {[view]: `src/views/${view}.ts`},
            formats: ['iife'],
            name: 'McpServerView',
            fileName: (_format, name) => `${name}.js`,
        },
    },
});
