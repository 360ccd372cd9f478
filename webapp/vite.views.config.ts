import {defineConfig} from 'vite';

import {viewCss} from './src/views/style.ts';

// The MCP Apps views: each a self-contained script the server wraps in a
// page whose CSP allows that script alone (by hash). They are separate from
// the webapp bundle: they run in the MCP client's sandboxed frame, not in
// Mattermost, so they bundle all they use.
// Vite builds one IIFE per run: VIEW names the view (package.json's build
// runs each); the first run, the thread view's, empties the folder.
// Each run also writes the view's styles as <view>.css: the server puts
// them in the page as one <style> and allows it by its hash, so the CSP
// needs no 'unsafe-inline'.
const view = process.env.VIEW ?? 'thread'; // eslint-disable-line no-process-env
if (!(view in viewCss)) {
    throw new Error(`no styles for the view ${view}: add them to viewCss in src/views/style.ts`);
}

export default defineConfig({
    plugins: [{
        name: 'view-css',
        generateBundle() {
            this.emitFile({type: 'asset', fileName: `${view}.css`, source: viewCss[view]});
        },
    }],
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
