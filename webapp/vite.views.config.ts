import {defineConfig} from 'vite';

// The MCP Apps views: each a self-contained script the server wraps in a
// page whose CSP allows that script alone (by hash). They are separate from
// the webapp bundle: they run in the MCP client's sandboxed frame, not in
// Mattermost, so they bundle all they use.
export default defineConfig({
    define: {'process.env.NODE_ENV': JSON.stringify('production')},
    build: {
        outDir: 'dist/views',
        emptyOutDir: true,
        target: 'es2020',
        minify: true,
        lib: {
            entry: {thread: 'src/views/thread.ts', pending: 'src/views/pending.ts'},
            formats: ['iife'],
            name: 'McpServerView',
            fileName: (_format, name) => `${name}.js`,
        },
    },
});
