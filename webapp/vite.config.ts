import {defineConfig} from 'vitest/config';

// Libraries Mattermost's web app provides to plugins as globals: imported in the
// source, never bundled. tests/bundle.test.ts checks that the build keeps it so.
export const externalGlobals: Record<string, string> = {
    react: 'React',
    'react-dom': 'ReactDOM',
    redux: 'Redux',
    'react-redux': 'ReactRedux',
};

export default defineConfig(({command}) => ({
    // JSX compiles to React.createElement on the host's React; the automatic runtime
    // would bundle react/jsx-runtime, which Mattermost does not provide as a global.
    // `development` is pinned so a build gives the same file whatever NODE_ENV is
    // (under Vitest it is "test", which would add JSX debug info with file paths).
    oxc: {jsx: {runtime: 'classic', development: command !== 'build'}},

    // Library mode leaves process.env alone; a bundled dependency that reads it would
    // throw in the browser. Only for builds, so tests keep their own NODE_ENV.
    define: command === 'build' ? {'process.env.NODE_ENV': JSON.stringify('production')} : {},

    build: {
        outDir: 'dist',
        emptyOutDir: true,
        target: 'es2020',
        lib: {
            entry: 'src/index.ts',
            formats: ['iife'],
            name: 'McpServerPlugin',
            fileName: () => 'main.js',
        },
        rolldownOptions: {
            external: Object.keys(externalGlobals),
            output: {globals: externalGlobals},
        },
    },

    test: {
        environment: 'happy-dom',
        include: ['tests/**/*.test.{ts,tsx}'],
    },
}));
